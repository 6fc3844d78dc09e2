package validation

import (
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

func jsonPatchPolicy(expressions ...string) *admissionregistrationv1.MutatingAdmissionPolicy {
	p := &admissionregistrationv1.MutatingAdmissionPolicy{}
	p.Name = "patch.example.com"
	p.Spec.ReinvocationPolicy = admissionregistrationv1.NeverReinvocationPolicy
	p.Spec.MatchConstraints = &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
		RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
		},
	}}}
	for _, e := range expressions {
		p.Spec.Mutations = append(p.Spec.Mutations, admissionregistrationv1.Mutation{
			PatchType: admissionregistrationv1.PatchTypeJSONPatch, JSONPatch: &admissionregistrationv1.JSONPatch{Expression: e},
		})
	}
	return p
}

func TestParamsWithoutParamKindSaysToAddIt(t *testing.T) {
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{}
	p.Name = "params.example.com"
	p.Spec.MatchConstraints = jsonPatchPolicy().Spec.MatchConstraints
	p.Spec.Validations = []admissionregistrationv1.Validation{{Expression: "object.spec.replicas <= params.data.max"}}
	errs := Offline(ValidatingPolicyCheck(DefaultValidatingPolicy(p), nil))
	if len(errs) != 1 || errs[0].Field != "spec.validations[0].expression" {
		t.Fatalf("want the expression rejected, got %v", errs)
	}
	msg := Message(errs[0])
	if !strings.HasPrefix(msg, errs[0].ErrorBody()) || !strings.Contains(msg, "add a param_kind block") {
		t.Errorf("the message keeps the server's words and says to add param_kind: %q", msg)
	}
	// With a param_kind, params is declared.
	p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
	if errs := Offline(ValidatingPolicyCheck(DefaultValidatingPolicy(p), nil)); len(errs) != 0 {
		t.Errorf("with a param_kind: %v", errs)
	}
	// Other errors have no hint.
	for _, e := range Offline(MutatingPolicyCheck(DefaultMutatingPolicy(jsonPatchPolicy("[")), nil)) {
		if Message(e) != e.ErrorBody() {
			t.Errorf("a hint on %v", e)
		}
	}
}
