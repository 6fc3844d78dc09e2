package impact

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/matching"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/simulate"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// MutatingPair is a mutating policy with one of its bindings.
type MutatingPair struct {
	Policy  *admissionregistrationv1.MutatingAdmissionPolicy
	Binding *admissionregistrationv1.MutatingAdmissionPolicyBinding
}

// Mutating is the impact of planned on the objects the cluster runs: which of them it changes
// on their next write, and which fields. Mutating admission policies run before the mutating
// webhooks (the admission chain of kube-apiserver orders MutatingAdmissionPolicy first), so
// the webhooks do not change what the policy sees of an unchanged write.
func (c *Cluster) Mutating(ctx context.Context, planned MutatingPair, opts Options) *Result {
	began := time.Now()
	ctx, cancel := context.WithTimeout(ctx, c.Bounds.budget())
	defer cancel()
	policy := validation.DefaultMutatingPolicy(planned.Policy)
	binding := validation.DefaultMutatingPolicyBinding(planned.Binding)
	res := &Result{Policy: policy.Name, Binding: binding.Name, MatchedKinds: map[string]int{}, plans: &c.plans, subject: opts.Subject}
	defer func() { res.Elapsed = time.Since(began) }()
	var exprs []string
	for _, m := range policy.Spec.MatchConditions {
		exprs = append(exprs, m.Expression)
	}
	for _, v := range policy.Spec.Variables {
		exprs = append(exprs, v.Expression)
	}
	for _, m := range policy.Spec.Mutations {
		if m.JSONPatch != nil {
			exprs = append(exprs, m.JSONPatch.Expression)
		}
		if m.ApplyConfiguration != nil {
			exprs = append(exprs, m.ApplyConfiguration.Expression)
		}
	}
	readsWriter := readsWriter(exprs...)

	served, err := c.Served()
	if err != nil {
		res.Incomplete = append(res.Incomplete, err.Error())
		return res
	}
	for _, f := range served.Failed {
		res.Incomplete = append(res.Incomplete, "discovery could not read "+f)
	}
	resources := served.matchedResources(rulesOf(policy.Spec.MatchConstraints), rulesOf(binding.Spec.MatchResources))
	if len(resources) == 0 {
		res.NoUpdate = !anyUpdate(policy.Spec.MatchConstraints)
		return res
	}
	// The other mutating policies, planned beside this one or in the cluster, for the order.
	if note := c.plans.settle(ctx, nil); note != "" {
		res.Incomplete = append(res.Incomplete, note)
	}
	r, err := c.newRunWith(ctx, false, &MutatingPair{Policy: policy, Binding: binding})
	if err != nil {
		res.Incomplete = append(res.Incomplete, err.Error())
		return res
	}
	if err := r.namespaces.Incomplete(); err != nil {
		res.Incomplete = append(res.Incomplete, err.Error())
	}
	selector := objectSelectors(policy.Spec.MatchConstraints, binding.Spec.MatchResources)
	for _, rs := range resources {
		listed := c.list(ctx, rs, selector, func(page []unstructured.Unstructured) {
			for i := range page {
				v := r.mutate(ctx, policy, binding, readsWriter, &page[i], rs)
				res.record(v, opts.KeepAll)
				if v.Matched && v.CannotTell == "" && !v.Denied {
					if o, ok := r.orderDependent(ctx, &page[i], rs); ok {
						res.add(&res.OrderDependent, "order", o, opts.KeepAll)
					}
				}
			}
		})
		res.Examined += listed.Examined
		res.Lists = append(res.Lists, listed)
	}
	return res
}

// mutate is the verdict of a mutating policy on the next write of obj.
func (r *run) mutate(ctx context.Context, policy *admissionregistrationv1.MutatingAdmissionPolicy,
	binding *admissionregistrationv1.MutatingAdmissionPolicyBinding, readsWriter string, obj *unstructured.Unstructured, res Resource) Verdict {
	out := Verdict{Resource: res, Namespace: obj.GetNamespace(), Name: obj.GetName()}
	attr := unchangedUpdate(obj, res)
	switch a := r.matcher.PolicyResources(attr, policy.Spec.MatchConstraints, binding.Spec.MatchResources); a.Outcome {
	case matching.NotCalled:
		return out
	case matching.Failed:
		out.Matched, out.CannotTell = true, "matching it failed: "+a.Err.Error()
		return out
	}
	out.Matched = true
	if readsWriter != "" {
		out.CannotTell = "the policy reads " + readsWriter + ", and who writes the object next is not known"
		return out
	}
	ns, err := r.namespaceOf(obj)
	if err != nil {
		out.CannotTell = err.Error()
		return out
	}
	params, err := r.params.of(ctx, policy.Spec.ParamKind, binding.Spec.ParamRef, obj.GetNamespace())
	if err != nil {
		out.CannotTell = err.Error()
		return out
	}
	req := &simulate.Request{Operation: admission.Update, Object: obj, OldObject: obj, Kind: res.Kind, Resource: res.GVR,
		Name: obj.GetName(), Namespace: ns, UserInfo: writer, Params: params}
	answer, err := simulate.Mutate(ctx, policy, binding, req)
	if err != nil {
		out.CannotTell = err.Error()
		return out
	}
	if !answer.Matched {
		out.Matched = false
		return out
	}
	if !answer.Allowed {
		out.Denied, out.Message = true, answer.Message
		return out
	}
	if answer.Object != nil {
		out.Changes = changedPaths("", asHeld(obj).Object, answer.Object.Object)
	}
	return out
}

// asHeld is obj as the simulator holds an object of its kind before the mutations (a built-in
// kind through its Go type, so that what the type drops is not read as a change).
func asHeld(obj *unstructured.Unstructured) *unstructured.Unstructured {
	typed, err := clientgoscheme.Scheme.New(obj.GroupVersionKind())
	if err != nil {
		return obj
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, typed); err != nil {
		return obj
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		return obj
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetGroupVersionKind(obj.GroupVersionKind())
	return u
}

// changedPaths are the API paths where after differs from before: a field added, removed or
// changed, a list compared whole where its length changed ("spec.template.spec.containers[0].image",
// "metadata.labels.team").
func changedPaths(path string, before, after any) []string {
	if reflect.DeepEqual(before, after) {
		return nil
	}
	switch b := before.(type) {
	case map[string]any:
		a, ok := after.(map[string]any)
		if !ok {
			break
		}
		keys := map[string]bool{}
		for k := range b {
			keys[k] = true
		}
		for k := range a {
			keys[k] = true
		}
		var out []string
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			if path == "" && k == "metadata" {
				// The server's bookkeeping (managedFields, resourceVersion) is not the policy's.
				bm, _ := b[k].(map[string]any)
				am, _ := a[k].(map[string]any)
				for _, f := range []string{"managedFields", "resourceVersion", "generation"} {
					if am != nil && bm != nil {
						am = withField(am, f, bm[f])
					}
				}
				out = append(out, changedPaths("metadata", bm, am)...)
				continue
			}
			out = append(out, changedPaths(join(path, k), b[k], a[k])...)
		}
		return out
	case []any:
		a, ok := after.([]any)
		if !ok || len(a) != len(b) {
			break
		}
		var out []string
		for i := range b {
			out = append(out, changedPaths(fmt.Sprintf("%s[%d]", path, i), b[i], a[i])...)
		}
		return out
	}
	return []string{path}
}

func withField(m map[string]any, k string, v any) map[string]any {
	c := make(map[string]any, len(m))
	for kk, vv := range m {
		c[kk] = vv
	}
	if v == nil {
		delete(c, k)
	} else {
		c[k] = v
	}
	return c
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// orderDependent is the verdict on obj when the mutating policies of the run's chain that
// change its next write leave it otherwise in one order than in another, its message naming
// the orders and the fields where they differ.
func (r *run) orderDependent(ctx context.Context, obj *unstructured.Unstructured, res Resource) (Verdict, bool) {
	writes, why := r.written(ctx, obj, res)
	if why != "" || len(writes) < 2 {
		return Verdict{}, false
	}
	fields := map[string]bool{}
	var orders []string
	for i, w := range writes {
		orders = append(orders, w.ordersText())
		if i > 0 {
			for _, f := range changedPaths("", writes[0].object.Object, w.object.Object) {
				fields[f] = true
			}
		}
	}
	msg := "the orders " + strings.Join(orders, "; and ") + " give different objects"
	if len(fields) > 0 {
		msg += " (in " + strings.Join(slices.Sorted(maps.Keys(fields)), ", ") + ")"
	}
	return Verdict{Resource: res, Namespace: obj.GetNamespace(), Name: obj.GetName(), Matched: true, Message: msg}, true
}
