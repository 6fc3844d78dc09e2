package impact

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apiserver/pkg/admission"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/matching"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/simulate"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// A write reaches the validating policies after the mutating admission policies have changed
// it (kube-apiserver's admission chain runs MutatingAdmissionPolicy, then the mutating
// webhooks, then ValidatingAdmissionPolicy): the validating verdict on an existing object is
// that on the object as the cluster's mutating policies leave it. Those are applied here with
// the simulator's Admit, in every order the server may run them in, with those planned in the
// same run in place of the cluster's (Plans); a mutating webhook that sees the write is "cannot
// tell" (webhookFirst): the order of the webhooks is not simulated, only the policies'.

// mutator is a mutating admission policy of the cluster with one of its bindings.
type mutator struct {
	policy  *admissionregistrationv1.MutatingAdmissionPolicy
	binding *admissionregistrationv1.MutatingAdmissionPolicyBinding
	writer  string
}

// mutatorsRead are the cluster's mutating policies and bindings.
type mutatorsRead struct {
	policies map[string]*admissionregistrationv1.MutatingAdmissionPolicy
	bindings []*admissionregistrationv1.MutatingAdmissionPolicyBinding
	err      error
}

// clusterMutators are the cluster's mutating admission policies and bindings, read once per
// Cluster.
func (c *Cluster) clusterMutators(ctx context.Context) *mutatorsRead {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mutators != nil {
		return c.mutators
	}
	r := c.readMutators(ctx)
	if r.err == nil || ctx.Err() == nil {
		c.mutators = r
	}
	return r
}

func (c *Cluster) readMutators(ctx context.Context) *mutatorsRead {
	api := c.Kube.AdmissionregistrationV1()
	r := &mutatorsRead{policies: map[string]*admissionregistrationv1.MutatingAdmissionPolicy{}}
	opts := metav1.ListOptions{Limit: DefaultPageSize}
	for {
		list, err := api.MutatingAdmissionPolicies().List(ctx, opts)
		if err != nil {
			r.err = err
			return r
		}
		for i := range list.Items {
			r.policies[list.Items[i].Name] = &list.Items[i]
		}
		if list.Continue == "" {
			break
		}
		opts.Continue = list.Continue
	}
	opts = metav1.ListOptions{Limit: DefaultPageSize}
	for {
		list, err := api.MutatingAdmissionPolicyBindings().List(ctx, opts)
		if err != nil {
			r.err = err
			return r
		}
		for i := range list.Items {
			r.bindings = append(r.bindings, &list.Items[i])
		}
		if list.Continue == "" {
			break
		}
		opts.Continue = list.Continue
	}
	return r
}

// boundNames are the names of the policies the cluster's mutating bindings bind.
func (m *mutatorsRead) boundNames() map[string]bool {
	out := map[string]bool{}
	for _, b := range m.bindings {
		out[b.Spec.PolicyName] = true
	}
	return out
}

// chain are the mutating policies with their bindings that change a write before the
// validating policies see it: the cluster's, those planned in this run in place of the
// cluster's of the same name, and planned (the pair a mutating impact is of) in place of
// both; in the order of their names. unknown says why the chain is not known: a policy or
// binding planned with a spec known only after apply.
func (c *Cluster) chain(ctx context.Context, planned *MutatingPair) (list []mutator, unknown string, err error) {
	read := c.clusterMutators(ctx)
	if read.err != nil {
		return nil, "", read.err
	}
	policies := map[string]*admissionregistrationv1.MutatingAdmissionPolicy{}
	for name, p := range read.policies {
		policies[name] = p
	}
	bindings := map[string]*admissionregistrationv1.MutatingAdmissionPolicyBinding{}
	for _, b := range read.bindings {
		bindings[b.Name] = b
	}
	pp, pb := c.plans.plannedMutators()
	for _, name := range slices.Sorted(maps.Keys(pp)) {
		if pp[name] == nil && unknown == "" {
			unknown = fmt.Sprintf("the mutating admission policy %q, planned in the same run, which changes the write first, is known only after apply", name)
		}
		policies[name] = pp[name]
	}
	for _, name := range slices.Sorted(maps.Keys(pb)) {
		if pb[name] == nil && unknown == "" {
			unknown = fmt.Sprintf("the mutating admission policy binding %q, planned in the same run, is known only after apply", name)
		}
		bindings[name] = pb[name]
	}
	if planned != nil {
		policies[planned.Policy.Name] = planned.Policy
		bindings[planned.Binding.Name] = planned.Binding
	}
	for _, b := range bindings {
		if b == nil {
			continue
		}
		if p := policies[b.Spec.PolicyName]; p != nil {
			p = validation.DefaultMutatingPolicy(p)
			list = append(list, mutator{policy: p, binding: validation.DefaultMutatingPolicyBinding(b), writer: mutatingReadsWriter(p)})
		}
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].policy.Name != list[j].policy.Name {
			return list[i].policy.Name < list[j].policy.Name
		}
		return list[i].binding.Name < list[j].binding.Name
	})
	return list, unknown, nil
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

// written are the objects the next write of obj becomes after the mutating admission
// policies of the chain, one for each outcome of the orders the server may run them in (the
// server fixes none: its policy source lists them in no fixed order), with those orders; why
// says why the impact cannot tell when it cannot. The chain is run by the simulator's Admit,
// which runs kube-apiserver's mutating policy plugin in every order.
func (r *run) written(ctx context.Context, obj *unstructured.Unstructured, res Resource) ([]writtenAs, string) {
	if r.mutatorsErr != nil {
		return nil, "the mutating admission policies, which change the write first, could not be read: " + r.mutatorsErr.Error()
	}
	key := res.String() + "/" + obj.GetNamespace() + "/" + obj.GetName()
	if w, ok := r.chained[key]; ok {
		return w.outcomes, w.why
	}
	outcomes, why := r.runChain(ctx, obj, res)
	if r.chained == nil {
		r.chained = map[string]chainedWrite{}
	}
	r.chained[key] = chainedWrite{outcomes, why}
	return outcomes, why
}

// writtenAs is the object a write becomes in some orders of the mutating policies.
type writtenAs struct {
	object *unstructured.Unstructured
	orders []string
}

// ordersText names the orders of w: the first, and how many others give the same object.
func (w writtenAs) ordersText() string {
	switch len(w.orders) {
	case 0:
		return ""
	case 1:
		return w.orders[0]
	case 2:
		return w.orders[0] + " (or 1 other order)"
	}
	return fmt.Sprintf("%s (or %d other orders)", w.orders[0], len(w.orders)-1)
}

type chainedWrite struct {
	outcomes []writtenAs
	why      string
}

// covering are the mutators whose rules may match an UPDATE of res.
func (r *run) covering(res Resource) []mutator {
	if l, ok := r.covers[res.String()]; ok {
		return l
	}
	var out []mutator
	for _, m := range r.mutators {
		rules := rulesOf(m.policy.Spec.MatchConstraints)
		if rules == nil || !slices.ContainsFunc(rules, func(nr admissionregistrationv1.NamedRuleWithOperations) bool {
			return covers(nr.RuleWithOperations, res.GVR, res.Namespaced)
		}) {
			continue
		}
		if br := rulesOf(m.binding.Spec.MatchResources); br != nil && !slices.ContainsFunc(br, func(nr admissionregistrationv1.NamedRuleWithOperations) bool {
			return covers(nr.RuleWithOperations, res.GVR, res.Namespaced)
		}) {
			continue
		}
		out = append(out, m)
	}
	if r.covers == nil {
		r.covers = map[string][]mutator{}
	}
	r.covers[res.String()] = out
	return out
}

func (r *run) runChain(ctx context.Context, obj *unstructured.Unstructured, res Resource) ([]writtenAs, string) {
	unchanged := []writtenAs{{object: obj}}
	candidates := r.covering(res)
	if len(candidates) == 0 {
		return unchanged, ""
	}
	attr := unchangedUpdate(obj, res)
	matched := false
	for _, m := range candidates {
		switch a := r.matcher.PolicyResources(attr, m.policy.Spec.MatchConstraints, m.binding.Spec.MatchResources); a.Outcome {
		case matching.NotCalled:
			continue
		case matching.Failed:
			return nil, fmt.Sprintf("matching the mutating admission policy %q, which changes the write first, failed: %v", m.policy.Name, a.Err)
		}
		if m.writer != "" {
			return nil, fmt.Sprintf("the mutating admission policy %q, which changes the write first, reads %s, and who writes the object next is not known", m.policy.Name, m.writer)
		}
		matched = true
	}
	// None matches the object as it is: none changes it, so none that would match it changed
	// runs either.
	if !matched {
		return unchanged, ""
	}
	if r.mutatorsUnknown != "" {
		return nil, r.mutatorsUnknown
	}
	ns, err := r.namespaceOf(obj)
	if err != nil {
		return nil, err.Error()
	}
	objs := &simulate.AdmitObjects{}
	var params []*unstructured.Unstructured
	seenParam := map[string]bool{}
	seenPolicy := map[string]bool{}
	for _, m := range candidates {
		if !seenPolicy[m.policy.Name] {
			seenPolicy[m.policy.Name] = true
			objs.MutatingPolicies = append(objs.MutatingPolicies, m.policy)
		}
		objs.MutatingBindings = append(objs.MutatingBindings, m.binding)
		found, err := r.params.of(ctx, m.policy.Spec.ParamKind, m.binding.Spec.ParamRef, obj.GetNamespace())
		if err != nil {
			return nil, fmt.Sprintf("the mutating admission policy %q changes the write first, and %v", m.policy.Name, err)
		}
		for _, p := range found {
			k := p.GetAPIVersion() + "/" + p.GetKind() + "/" + p.GetNamespace() + "/" + p.GetName()
			if !seenParam[k] {
				seenParam[k] = true
				params = append(params, p)
			}
		}
	}
	answer, err := simulate.Admit(ctx, objs, &simulate.Request{Operation: admission.Update, Object: obj.DeepCopy(), OldObject: obj.DeepCopy(),
		Kind: res.Kind, Resource: res.GVR, Name: obj.GetName(), Namespace: ns, UserInfo: writer, Params: params}, nil)
	if err != nil {
		return nil, "the mutating admission policies, which change the write first, could not be evaluated: " + err.Error()
	}
	outcomes := answer.Outcomes
	if !answer.OrderDependent {
		outcomes = []simulate.Outcome{answer.Outcome}
	}
	var out []writtenAs
	for _, o := range outcomes {
		if o.Allowed != nil && !*o.Allowed {
			msg := ""
			if o.Message != nil {
				msg = *o.Message
			}
			return nil, "the mutating admission policies reject the write first: " + msg
		}
		if o.Object == nil {
			return nil, "the mutating admission policies, which change the write first, leave an object not known offline"
		}
		w := writtenAs{object: o.Object}
		for _, order := range o.Orders {
			w.orders = append(w.orders, strings.Join(order.MutatingPolicies, ", "))
		}
		out = append(out, w)
	}
	return out, ""
}
