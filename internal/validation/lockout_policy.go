package validation

import (
	"context"
	"fmt"
	"slices"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/matching"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/cel/environment"
)

// matchCriteria is a policy's or a binding's matchResources as the server's policy matcher
// reads it (k8s.io/apiserver pkg/admission/plugin/policy/matching MatchCriteria), with the
// server's defaults: absent selectors are empty and match everything, matchPolicy Equivalent.
type matchCriteria struct {
	m admissionregistrationv1.MatchResources
}

func newMatchCriteria(m *admissionregistrationv1.MatchResources) matchCriteria {
	c := matchCriteria{*m.DeepCopy()}
	if c.m.NamespaceSelector == nil {
		c.m.NamespaceSelector = &metav1.LabelSelector{}
	}
	if c.m.ObjectSelector == nil {
		c.m.ObjectSelector = &metav1.LabelSelector{}
	}
	if c.m.MatchPolicy == nil {
		p := admissionregistrationv1.Equivalent
		c.m.MatchPolicy = &p
	}
	return c
}

func (c matchCriteria) GetParsedNamespaceSelector() (labels.Selector, error) {
	return metav1.LabelSelectorAsSelector(c.m.NamespaceSelector)
}
func (c matchCriteria) GetParsedObjectSelector() (labels.Selector, error) {
	return metav1.LabelSelectorAsSelector(c.m.ObjectSelector)
}
func (c matchCriteria) GetMatchResources() admissionregistrationv1.MatchResources { return c.m }

// policyMatcher is the server's: k8s.io/apiserver pkg/admission/plugin/policy/matching.
func policyMatcher() (*matching.Matcher, error) {
	if _, err := hookMatcher(); err != nil { // sets up the namespace lister
		return nil, err
	}
	return matching.NewMatcher(namespaces, nil), nil
}

// policyCalled is whether the server evaluates a policy, bound with binding's matchResources
// (nil: the policy's alone), on attr: both match (k8s.io/apiserver pkg/admission/plugin/policy/generic
// the dispatcher asks the policy's, then the binding's), then the policy's match conditions
// decide, evaluated as the server does (matchconditions.Matcher over the condition compiler of
// the base environment). An error is no claim.
func policyCalled(constraints, binding *admissionregistrationv1.MatchResources, conditions []admissionregistrationv1.MatchCondition,
	hasParams bool, kind, name string, attr admission.Attributes) verdict {
	if constraints == nil {
		return unknown
	}
	if slices.Contains(excludedResources, attr.GetResource().GroupResource()) {
		return notCalled
	}
	m, err := policyMatcher()
	if err != nil {
		return unknown
	}
	addNamespace(attr.GetNamespace())
	for _, mr := range []*admissionregistrationv1.MatchResources{constraints, binding} {
		if mr == nil {
			continue
		}
		ok, _, _, err := m.Matches(attr, noEquivalents, newMatchCriteria(mr))
		if err != nil {
			return unknown
		}
		if !ok {
			return notCalled
		}
	}
	if len(conditions) == 0 {
		return called
	}
	accessors := make([]cel.ExpressionAccessor, len(conditions))
	for i, c := range conditions {
		accessors[i] = &matchconditions.MatchCondition{Name: c.Name, Expression: c.Expression}
	}
	filter := conditionCompiler().CompileCondition(accessors, cel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true},
		environment.StoredExpressions)
	fail := admissionregistrationv1.Fail
	va, err := versioned{attr}.VersionedAttribute(attr.GetKind())
	if err != nil {
		return unknown
	}
	res := matchconditions.NewMatcher(filter, &fail, "policy", kind, name).Match(context.Background(), va, nil, nil)
	switch {
	case res.Error != nil:
		return unknown
	case res.Matches:
		return called
	}
	return notCalled
}

// policyHits are the critical requests (systemRequests) a policy reaches through a binding.
func policyHits(constraints, binding *admissionregistrationv1.MatchResources, conditions []admissionregistrationv1.MatchCondition,
	hasParams bool, kind, name string) map[harm][]criticalRequest {
	hit := map[harm][]criticalRequest{}
	for _, r := range systemRequests {
		if policyCalled(constraints, binding, conditions, hasParams, kind, name, r.attributes()) == called &&
			!slices.ContainsFunc(hit[r.harm], func(o criticalRequest) bool { return o.what == r.what }) {
			hit[r.harm] = append(hit[r.harm], r)
		}
	}
	return hit
}

// PolicyLockout is the advice on a ValidatingAdmissionPolicyBinding whose validationActions
// include Deny, given the policy it binds (nil when not known: no claim): when the policy fails
// closed (failurePolicy Fail, the default) and the two together reach a request that keeps the
// cluster alive (systemRequests), an expression error there (a missing param, an absent field,
// the cost limit) rejects it. The warning is at spec.validationActions.
// Source: Kubernetes docs, "Validating Admission Policy" (failurePolicy: Fail rejects the
// request when an expression errors), and systemRequests' sources for the requests.
func PolicyLockout(policy *admissionregistrationv1.ValidatingAdmissionPolicy, binding *admissionregistrationv1.ValidatingAdmissionPolicyBinding) []Warning {
	if policy == nil || binding == nil || !slices.Contains(binding.Spec.ValidationActions, admissionregistrationv1.Deny) ||
		!failsClosed(policy.Spec.FailurePolicy) {
		return nil
	}
	hit := policyHits(policy.Spec.MatchConstraints, binding.Spec.MatchResources, policy.Spec.MatchConditions,
		policy.Spec.ParamKind != nil, "validating", policy.Name)
	return policyWarnings(field.NewPath("spec", "validationActions"),
		fmt.Sprintf("A Deny binding of the fail-closed validating admission policy %q", policy.Name), hit)
}

// MutatingPolicyLockout is the advice on a MutatingAdmissionPolicyBinding, given the policy it
// binds (nil: no claim): when the policy fails closed and the two reach a request that keeps
// the cluster alive, a mutation that fails there rejects it. The warning is at
// spec.matchResources.
func MutatingPolicyLockout(policy *admissionregistrationv1.MutatingAdmissionPolicy, binding *admissionregistrationv1.MutatingAdmissionPolicyBinding) []Warning {
	if policy == nil || binding == nil || !failsClosed(policy.Spec.FailurePolicy) {
		return nil
	}
	hit := policyHits(policy.Spec.MatchConstraints, binding.Spec.MatchResources, policy.Spec.MatchConditions,
		policy.Spec.ParamKind != nil, "mutating", policy.Name)
	return policyWarnings(field.NewPath("spec", "matchResources"),
		fmt.Sprintf("A binding of the fail-closed mutating admission policy %q", policy.Name), hit)
}

// policyWarnings words the hits of a policy: unlike a webhook it is never unavailable, but
// each expression that fails there rejects the request.
func policyWarnings(p *field.Path, subject string, hit map[harm][]criticalRequest) []Warning {
	return harmWarnings(p, wording{subject,
		"When an expression of the policy fails on them (a missing param, an absent field, the cost limit)",
		"set the policy's failurePolicy to Ignore",
		map[harm]string{harmSystem: SummaryPolicyFailClosedSystem, harmNodes: SummaryPolicyFailClosedNodes, harmRBAC: SummaryPolicyFailClosedRBAC}}, hit, "")
}

// PolicyLockoutProbes are the requests PolicyLockout and MutatingPolicyLockout try, so that a
// test can put the same requests to a real API server.
func PolicyLockoutProbes() []LockoutProbe {
	var out []LockoutProbe
	for _, r := range systemRequests {
		out = append(out, LockoutProbe{r.op, r.gvr, r.kind, r.sub, r.namespace, r.name, r.user})
	}
	return out
}

// PolicyIntercepts is the lockout check's verdict on a validating admission policy bound by
// binding for p: whether the API server evaluates the policy on it, and whether that is known.
func PolicyIntercepts(policy *admissionregistrationv1.ValidatingAdmissionPolicy, binding *admissionregistrationv1.ValidatingAdmissionPolicyBinding,
	p LockoutProbe) (intercepted, known bool) {
	r := criticalRequest{gvr: p.Resource, kind: p.Kind, sub: p.Subresource, namespace: p.Namespace, name: p.Name, op: p.Operation, user: p.User}
	switch policyCalled(policy.Spec.MatchConstraints, binding.Spec.MatchResources, policy.Spec.MatchConditions,
		policy.Spec.ParamKind != nil, "validating", policy.Name, r.attributes()) {
	case called:
		return true, true
	case notCalled:
		return false, true
	}
	return false, false
}
