package advice

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/admission"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/matching"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/typecheck"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

// policyCalled is whether the server evaluates a policy, bound with binding's matchResources
// (nil: the policy's alone), on attr: the matcher's answer on both (matching.Matcher.Policy, as
// the policy dispatchers ask the policy's, then the binding's), with the policy's match
// conditions compiled as the server does and evaluated as under failurePolicy Fail, without
// params. An answer that failed is no claim.
func policyCalled(m *matching.Matcher, constraints, binding *admissionregistrationv1.MatchResources, conditions []admissionregistrationv1.MatchCondition,
	hasParams bool, kind, name string, attr admission.Attributes) verdict {
	if m == nil {
		return unknown
	}
	fail := admissionregistrationv1.Fail
	p := matching.PolicyBinding{Constraints: constraints, Resources: binding,
		Conditions: matching.CompilePolicyConditions(conditions, hasParams, &fail, kind, name)}
	return verdictOf(m.Policy(context.Background(), p, attr).Outcome)
}

// policyHits are the critical requests (systemRequests) a policy reaches through a binding.
func policyHits(constraints, binding *admissionregistrationv1.MatchResources, conditions []admissionregistrationv1.MatchCondition,
	hasParams bool, kind, name string) map[harm][]criticalRequest {
	hit := map[harm][]criticalRequest{}
	m := newMatcher()
	for _, r := range systemRequests {
		if policyCalled(m, constraints, binding, conditions, hasParams, kind, name, r.attributes()) == called &&
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
//
// Unlike a webhook, whose backend can be down, a policy fails only through its own expressions
// and params. On kube-system's workloads the warning is given only on evidence that they can
// fail there (FailureEvidence: a param that can be missing under Deny, a type-check finding on
// a kind system components write there), said in the warning; on what every node and
// kube-apiserver itself write (leases, nodes, certificates, endpoints, RBAC), whose rejection
// takes the whole cluster down, on any reach.
// Source: Kubernetes docs, "Validating Admission Policy" (failurePolicy: Fail rejects the
// request when an expression errors), and systemRequests' sources for the requests.
func PolicyLockout(policy *admissionregistrationv1.ValidatingAdmissionPolicy, binding *admissionregistrationv1.ValidatingAdmissionPolicyBinding,
	typeFindings []typecheck.Warning) []warning.Warning {
	if policy == nil || binding == nil || !slices.Contains(binding.Spec.ValidationActions, admissionregistrationv1.Deny) ||
		!failsClosed(policy.Spec.FailurePolicy) {
		return nil
	}
	hit := policyHits(policy.Spec.MatchConstraints, binding.Spec.MatchResources, policy.Spec.MatchConditions,
		policy.Spec.ParamKind != nil, "validating", policy.Name)
	evidence := FailureEvidence(policy.Spec.ParamKind, binding.Spec.ParamRef, typeFindings, hit[harmSystem])
	if len(evidence) == 0 {
		delete(hit, harmSystem)
	}
	return policyWarnings(field.NewPath("spec", "validationActions"),
		fmt.Sprintf("A Deny binding of the fail-closed validating admission policy %q", policy.Name), hit, evidence)
}

// FailureEvidence is what shows that a policy's expressions can fail on the requests rs: its
// param (a binding without param_ref to a policy with a param kind, or a param_ref whose
// parameterNotFoundAction is Deny: a namespace without the param object rejects), and the type
// checker's findings (typeFindings, worded per kind as the server's TypeCheckingResults) on a
// kind of rs. Nil when nothing does.
func FailureEvidence(paramKind *admissionregistrationv1.ParamKind, paramRef *admissionregistrationv1.ParamRef, typeFindings []typecheck.Warning,
	rs []criticalRequest) []string {
	if len(rs) == 0 {
		return nil
	}
	var out []string
	if paramKind != nil {
		switch {
		case paramRef == nil:
			out = append(out, "the binding has no param_ref, so every expression that reads params fails")
		case paramRef.ParameterNotFoundAction != nil && *paramRef.ParameterNotFoundAction == admissionregistrationv1.DenyAction:
			out = append(out, "its param_ref's parameter_not_found_action is Deny, so a request there whose params are missing is rejected")
		}
	}
	var kinds []string
	for _, r := range rs {
		if !slices.Contains(kinds, r.kind) {
			kinds = append(kinds, r.kind)
		}
	}
	for _, f := range typeFindings {
		for _, k := range kinds {
			if strings.Contains(f.Message, ", Kind="+k+":") {
				out = append(out, fmt.Sprintf("%s does not type-check on %s", f.Field, k))
				break
			}
		}
	}
	return out
}

// MutatingPolicyLockout is the advice on a MutatingAdmissionPolicyBinding, given the policy it
// binds (nil: no claim): when the policy fails closed and the two reach a request that keeps
// the cluster alive, a mutation that fails there rejects it. The warning is at
// spec.matchResources.
func MutatingPolicyLockout(policy *admissionregistrationv1.MutatingAdmissionPolicy, binding *admissionregistrationv1.MutatingAdmissionPolicyBinding) []warning.Warning {
	if policy == nil || binding == nil || !failsClosed(policy.Spec.FailurePolicy) {
		return nil
	}
	hit := policyHits(policy.Spec.MatchConstraints, binding.Spec.MatchResources, policy.Spec.MatchConditions,
		policy.Spec.ParamKind != nil, "mutating", policy.Name)
	return policyWarnings(field.NewPath("spec", "matchResources"),
		fmt.Sprintf("A binding of the fail-closed mutating admission policy %q", policy.Name), hit, nil)
}

// policyWarnings words the hits of a policy: unlike a webhook it is never unavailable, but
// each expression that fails there rejects the request; evidence, when given, is what shows
// that its expressions can fail there.
func policyWarnings(p *field.Path, subject string, hit map[harm][]criticalRequest, evidence []string) []warning.Warning {
	summaries := map[harm]string{harmSystem: SummaryPolicyFailClosedSystem, harmNodes: SummaryPolicyFailClosedNodes, harmRBAC: SummaryPolicyFailClosedRBAC}
	general := wording{subject, "When an expression of the policy fails on them (a missing param, an absent field, the cost limit)",
		"set the policy's failurePolicy to Ignore", summaries}
	if len(evidence) == 0 {
		return harmWarnings(p, general, hit, "")
	}
	system := general
	system.when = "Its expressions can fail there (" + strings.Join(evidence, "; ") + "); when they do"
	others := maps.Clone(hit)
	delete(others, harmSystem)
	return append(harmWarnings(p, system, map[harm][]criticalRequest{harmSystem: hit[harmSystem]}, ""), harmWarnings(p, general, others, "")...)
}
