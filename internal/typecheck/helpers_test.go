package typecheck_test

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// rule matches resources of one group and version, on create and update.
func rule(group, version string, resources ...string) admissionregistrationv1.NamedRuleWithOperations {
	return admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{version}, Resources: resources},
	}}
}

// policy is a validating policy with the rules and the validation expressions given.
func policy(rules []admissionregistrationv1.NamedRuleWithOperations, expressions ...string) *admissionregistrationv1.ValidatingAdmissionPolicy {
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{}
	p.Name = "test.example.com"
	p.Spec.MatchConstraints = &admissionregistrationv1.MatchResources{ResourceRules: rules}
	for _, e := range expressions {
		p.Spec.Validations = append(p.Spec.Validations, admissionregistrationv1.Validation{Expression: e})
	}
	return p
}

// deployments is the rule of a policy on apps/v1 deployments.
func deployments() []admissionregistrationv1.NamedRuleWithOperations {
	return []admissionregistrationv1.NamedRuleWithOperations{rule("apps", "v1", "deployments")}
}
