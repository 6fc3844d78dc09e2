package impact

import (
	"context"
	"fmt"
	"sort"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apiserver/pkg/admission"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/matching"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/simulate"
)

// A write reaches the validating policies after the mutating admission policies have changed
// it (kube-apiserver's admission chain runs MutatingAdmissionPolicy, then the mutating
// webhooks, then ValidatingAdmissionPolicy): the validating verdict on an existing object is
// that on the object as the cluster's mutating policies leave it. Those are applied here with
// the simulator, once each, in the order of their names; a mutating webhook that sees the write
// is "cannot tell" (webhookFirst).

// mutator is a mutating admission policy of the cluster with one of its bindings.
type mutator struct {
	policy  *admissionregistrationv1.MutatingAdmissionPolicy
	binding *admissionregistrationv1.MutatingAdmissionPolicyBinding
	writer  string
}

type mutatorsRead struct {
	list []mutator
	err  error
}

// mutatingPolicies are the cluster's mutating admission policies with their bindings, read
// once per Cluster.
func (c *Cluster) mutatingPolicies(ctx context.Context) ([]mutator, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mutators != nil {
		return c.mutators.list, c.mutators.err
	}
	r := &mutatorsRead{}
	r.list, r.err = c.readMutators(ctx)
	if r.err == nil || ctx.Err() == nil {
		c.mutators = r
	}
	return r.list, r.err
}

func (c *Cluster) readMutators(ctx context.Context) ([]mutator, error) {
	api := c.Kube.AdmissionregistrationV1()
	policies := map[string]*admissionregistrationv1.MutatingAdmissionPolicy{}
	opts := metav1.ListOptions{Limit: DefaultPageSize}
	for {
		list, err := api.MutatingAdmissionPolicies().List(ctx, opts)
		if err != nil {
			return nil, err
		}
		for i := range list.Items {
			policies[list.Items[i].Name] = &list.Items[i]
		}
		if list.Continue == "" {
			break
		}
		opts.Continue = list.Continue
	}
	if len(policies) == 0 {
		return nil, nil
	}
	var out []mutator
	opts = metav1.ListOptions{Limit: DefaultPageSize}
	for {
		list, err := api.MutatingAdmissionPolicyBindings().List(ctx, opts)
		if err != nil {
			return nil, err
		}
		for i := range list.Items {
			b := &list.Items[i]
			if p, ok := policies[b.Spec.PolicyName]; ok {
				out = append(out, mutator{policy: p, binding: b, writer: mutatingReadsWriter(p)})
			}
		}
		if list.Continue == "" {
			break
		}
		opts.Continue = list.Continue
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].policy.Name != out[j].policy.Name {
			return out[i].policy.Name < out[j].policy.Name
		}
		return out[i].binding.Name < out[j].binding.Name
	})
	return out, nil
}

// mutatingReadsWriter is what of the writer a mutating policy's expressions read.
func mutatingReadsWriter(p *admissionregistrationv1.MutatingAdmissionPolicy) string {
	var exprs []string
	for _, m := range p.Spec.MatchConditions {
		exprs = append(exprs, m.Expression)
	}
	for _, v := range p.Spec.Variables {
		exprs = append(exprs, v.Expression)
	}
	for _, m := range p.Spec.Mutations {
		if m.JSONPatch != nil {
			exprs = append(exprs, m.JSONPatch.Expression)
		}
		if m.ApplyConfiguration != nil {
			exprs = append(exprs, m.ApplyConfiguration.Expression)
		}
	}
	return readsWriter(exprs...)
}

// mutatedFirst is obj as the cluster's mutating admission policies leave its next write, and
// why the impact cannot tell when it cannot.
func (r *run) mutatedFirst(ctx context.Context, obj *unstructured.Unstructured, res Resource) (*unstructured.Unstructured, string) {
	if r.mutatorsErr != nil {
		return nil, "the mutating admission policies, which change the write first, could not be read: " + r.mutatorsErr.Error()
	}
	current := obj
	for _, m := range r.mutators {
		attr := admission.NewAttributesRecord(current, obj, res.Kind, obj.GetNamespace(), obj.GetName(), res.GVR, "", admission.Update,
			&metav1.UpdateOptions{}, false, writer)
		switch a := r.matcher.PolicyResources(attr, m.policy.Spec.MatchConstraints, m.binding.Spec.MatchResources); a.Outcome {
		case matching.NotCalled:
			continue
		case matching.Failed:
			return nil, fmt.Sprintf("matching the mutating admission policy %q, which changes the write first, failed: %v", m.policy.Name, a.Err)
		}
		if m.writer != "" {
			return nil, fmt.Sprintf("the mutating admission policy %q, which changes the write first, reads %s, and who writes the object next is not known", m.policy.Name, m.writer)
		}
		ns, err := r.namespaceOf(obj)
		if err != nil {
			return nil, err.Error()
		}
		params, err := r.params.of(ctx, m.policy.Spec.ParamKind, m.binding.Spec.ParamRef, obj.GetNamespace())
		if err != nil {
			return nil, fmt.Sprintf("the mutating admission policy %q changes the write first, and %v", m.policy.Name, err)
		}
		answer, err := simulate.Mutate(ctx, m.policy, m.binding, &simulate.Request{Operation: admission.Update, Object: current, OldObject: obj,
			Kind: res.Kind, Resource: res.GVR, Name: obj.GetName(), Namespace: ns, UserInfo: writer, Params: params})
		switch {
		case err != nil:
			return nil, fmt.Sprintf("the mutating admission policy %q, which changes the write first, could not be evaluated: %v", m.policy.Name, err)
		case !answer.Matched:
		case !answer.Allowed:
			return nil, fmt.Sprintf("the mutating admission policy %q rejects the write first: %s", m.policy.Name, answer.Message)
		case answer.Object != nil:
			current = answer.Object
		}
	}
	return current, ""
}
