package validation

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The server's v1 defaults of the policy kinds (k8s.io/kubernetes
// pkg/apis/admissionregistration/v1, SetObjectDefaults_ValidatingAdmissionPolicy and friends).
// Each function defaults a deep copy and returns it; a field is defaulted only when it is nil,
// explicit values, even invalid ones, are kept. There is no default for a paramRef's
// parameterNotFoundAction, a mutating policy's reinvocationPolicy, or a binding's
// validationActions: the server requires them.

// DefaultValidatingPolicy returns p as the server stores it: failurePolicy Fail
// (SetDefaults_ValidatingAdmissionPolicySpec) and matchConstraints defaulted (see
// defaultMatchResources).
func DefaultValidatingPolicy(p *admissionregistrationv1.ValidatingAdmissionPolicy) *admissionregistrationv1.ValidatingAdmissionPolicy {
	if p == nil {
		return nil
	}
	out := p.DeepCopy()
	if out.Spec.FailurePolicy == nil {
		out.Spec.FailurePolicy = ptr(DefaultFailurePolicy)
	}
	defaultMatchResources(out.Spec.MatchConstraints)
	return out
}

// DefaultValidatingPolicyBinding returns b as the server stores it: matchResources, when set,
// defaulted (see defaultMatchResources).
func DefaultValidatingPolicyBinding(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
	if b == nil {
		return nil
	}
	out := b.DeepCopy()
	defaultMatchResources(out.Spec.MatchResources)
	return out
}

// DefaultMutatingPolicy returns p as the server stores it: failurePolicy Fail
// (SetDefaults_MutatingAdmissionPolicySpec) and matchConstraints defaulted (see
// defaultMatchResources). reinvocationPolicy has no default.
func DefaultMutatingPolicy(p *admissionregistrationv1.MutatingAdmissionPolicy) *admissionregistrationv1.MutatingAdmissionPolicy {
	if p == nil {
		return nil
	}
	out := p.DeepCopy()
	if out.Spec.FailurePolicy == nil {
		out.Spec.FailurePolicy = ptr(DefaultFailurePolicy)
	}
	defaultMatchResources(out.Spec.MatchConstraints)
	return out
}

// DefaultMutatingPolicyBinding returns b as the server stores it: matchResources, when set,
// defaulted (see defaultMatchResources).
func DefaultMutatingPolicyBinding(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) *admissionregistrationv1.MutatingAdmissionPolicyBinding {
	if b == nil {
		return nil
	}
	out := b.DeepCopy()
	defaultMatchResources(out.Spec.MatchResources)
	return out
}

// DefaultMatchResources returns mr as the server stores it, a deep copy with the defaults of
// defaultMatchResources; nil for nil.
func DefaultMatchResources(mr *admissionregistrationv1.MatchResources) *admissionregistrationv1.MatchResources {
	if mr == nil {
		return nil
	}
	out := mr.DeepCopy()
	defaultMatchResources(out)
	return out
}

// defaultMatchResources defaults mr in place, if it is set: matchPolicy Equivalent, empty
// namespace and object selectors (SetDefaults_MatchResources), and scope "*" in every rule of
// resourceRules and excludeResourceRules (SetDefaults_Rule).
func defaultMatchResources(mr *admissionregistrationv1.MatchResources) {
	if mr == nil {
		return
	}
	if mr.MatchPolicy == nil {
		mr.MatchPolicy = ptr(DefaultMatchPolicy)
	}
	if mr.NamespaceSelector == nil {
		mr.NamespaceSelector = &metav1.LabelSelector{}
	}
	if mr.ObjectSelector == nil {
		mr.ObjectSelector = &metav1.LabelSelector{}
	}
	for _, rules := range [][]admissionregistrationv1.NamedRuleWithOperations{mr.ResourceRules, mr.ExcludeResourceRules} {
		for i := range rules {
			if rules[i].Scope == nil {
				rules[i].Scope = ptr(DefaultScope)
			}
		}
	}
}
