package simulate

import (
	"context"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
)

// A policy that reads the writer decides, with the writer unknown, the objects whose verdict
// does not turn on it, and only those.
func TestValidateWriterUnknownDecidesWhatDoesNotTurnOnTheWriter(t *testing.T) {
	policy := func(expr string, conditions ...string) *ValidatingPolicy {
		p := &ValidatingPolicy{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{Operations: []admissionregistrationv1.OperationType{"UPDATE"},
					Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}}}},
			Variables:   []admissionregistrationv1.Variable{{Name: "admin", Expression: `request.userInfo.username == "admin"`}},
			Validations: []admissionregistrationv1.Validation{{Expression: expr}},
		}}
		for i, c := range conditions {
			p.Spec.MatchConditions = append(p.Spec.MatchConditions, admissionregistrationv1.MatchCondition{Name: string(rune('a' + i)), Expression: c})
		}
		return p
	}
	binding := &ValidatingBinding{ObjectMeta: metav1.ObjectMeta{Name: "b"}, Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
		PolicyName: "p", ValidationActions: []admissionregistrationv1.ValidationAction{"Deny"}}}
	cm := func(labels map[string]any) *unstructured.Unstructured {
		md := map[string]any{"name": "c", "namespace": "default"}
		if labels != nil {
			md["labels"] = labels
		}
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": md}}
	}
	protected := map[string]any{"protected": "true"}
	for _, tc := range []struct {
		name    string
		policy  *ValidatingPolicy
		obj     *unstructured.Unstructured
		depends bool
		allowed bool
	}{
		{"unprotected: decided", policy(`!(has(object.metadata.labels) && 'protected' in object.metadata.labels && request.userInfo.username != "admin")`), cm(nil), false, true},
		{"protected: turns on the writer", policy(`!(has(object.metadata.labels) && 'protected' in object.metadata.labels && request.userInfo.username != "admin")`), cm(protected), true, false},
		{"through a variable, decided", policy(`!has(object.metadata.labels) || variables.admin`), cm(nil), false, true},
		{"through a variable, turns on it", policy(`!has(object.metadata.labels) || variables.admin`), cm(protected), true, false},
		{"denied whoever writes", policy(`has(object.metadata.labels) && (request.userInfo.username == "x" || true)`), cm(nil), false, false},
		{"the authorizer", policy(`authorizer.group('').resource('configmaps').check('delete').allowed() || !has(object.metadata.labels)`), cm(protected), true, false},
		{"the authorizer, short-circuited", policy(`!has(object.metadata.labels) || authorizer.group('').resource('configmaps').check('delete').allowed()`), cm(nil), false, true},
		{"a match condition that turns on it", policy(`false`, `request.userInfo.username != "admin"`), cm(nil), true, false},
		{"a match condition decided", policy(`false`, `has(object.metadata.labels) && request.userInfo.username != "admin"`), cm(nil), false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := &Request{Operation: admission.Update, Object: tc.obj, OldObject: tc.obj, Kind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
				Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Name: "c", UserInfo: &user.DefaultInfo{Name: "admin"}}
			res, depends, err := ValidateWriterUnknown(context.Background(), tc.policy, binding, req)
			if err != nil {
				t.Fatal(err)
			}
			if depends != tc.depends || (!depends && res.Allowed != tc.allowed) {
				t.Errorf("depends on the writer %v, allowed %v (%s); want %v, %v", depends, res.Allowed, res.Message, tc.depends, tc.allowed)
			}
			// Validate, with the writer known, is unchanged.
			if _, err := Validate(context.Background(), tc.policy, binding, req); err != nil {
				t.Fatal(err)
			}
		})
	}
}
