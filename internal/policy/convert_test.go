package policy

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/core"
)

func ptr[T any](v T) *T { return &v }

// Every field the configuration can set survives API → model → API, for each
// kind of the family: what a refresh reads is what the next apply writes.

var fullMatch = &admissionregistrationv1.MatchResources{
	NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}},
	ObjectSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"web", "api"}},
	}},
	ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
		ResourceNames: []string{"a", "b"},
		RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}, Scope: ptr(admissionregistrationv1.NamespacedScope)},
		},
	}},
	ExcludeResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
		RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"*"}, Resources: []string{"pods/*"}, Scope: ptr(admissionregistrationv1.AllScopes)},
		},
	}},
	MatchPolicy: ptr(admissionregistrationv1.Exact),
}

var fullMeta = metav1.ObjectMeta{
	Name:        "full.example.com",
	Labels:      map[string]string{"team": "platform"},
	Annotations: map[string]string{"owner": "sre"},
}

func TestRoundTrip(t *testing.T) {
	conditions := []admissionregistrationv1.MatchCondition{{Name: "not-system", Expression: "!request.userInfo.username.startsWith('system:')"}}
	variables := []admissionregistrationv1.Variable{{Name: "limit", Expression: "int(params.data.max)"}}
	paramRef := &admissionregistrationv1.ParamRef{
		Namespace:               "config",
		Selector:                &metav1.LabelSelector{},
		ParameterNotFoundAction: ptr(admissionregistrationv1.AllowAction),
	}

	t.Run("ValidatingAdmissionPolicy", func(t *testing.T) {
		roundTrip(t, validatingPolicies, &validatingPolicy{ObjectMeta: fullMeta, Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			ParamKind:        &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"},
			MatchConstraints: fullMatch,
			Validations: []admissionregistrationv1.Validation{
				{Expression: "object.spec.replicas <= variables.limit", MessageExpression: "'at most ' + string(variables.limit)", Reason: ptr(metav1.StatusReasonForbidden)},
				{Expression: "true", Message: "always"},
			},
			FailurePolicy:    ptr(admissionregistrationv1.Ignore),
			AuditAnnotations: []admissionregistrationv1.AuditAnnotation{{Key: "replicas", ValueExpression: "string(object.spec.replicas)"}},
			MatchConditions:  conditions,
			Variables:        variables,
		}})
	})
	t.Run("ValidatingAdmissionPolicyBinding", func(t *testing.T) {
		roundTrip(t, validatingBindings, &validatingBinding{ObjectMeta: fullMeta, Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        "full.example.com",
			ParamRef:          paramRef,
			MatchResources:    fullMatch,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Warn, admissionregistrationv1.Audit},
		}})
	})
	t.Run("ValidatingAdmissionPolicyBinding with a parameter by name", func(t *testing.T) {
		roundTrip(t, validatingBindings, &validatingBinding{ObjectMeta: fullMeta, Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        "full.example.com",
			ParamRef:          &admissionregistrationv1.ParamRef{Name: "limits", ParameterNotFoundAction: ptr(admissionregistrationv1.DenyAction)},
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		}})
	})
	t.Run("MutatingAdmissionPolicy", func(t *testing.T) {
		roundTrip(t, mutatingPolicies, &mutatingPolicy{ObjectMeta: fullMeta, Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			ParamKind:        &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"},
			MatchConstraints: fullMatch,
			Variables:        variables,
			Mutations: []admissionregistrationv1.Mutation{
				{PatchType: admissionregistrationv1.PatchTypeApplyConfiguration, ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: "Object{}"}},
				{PatchType: admissionregistrationv1.PatchTypeJSONPatch, JSONPatch: &admissionregistrationv1.JSONPatch{Expression: "[]"}},
			},
			FailurePolicy:      ptr(admissionregistrationv1.Fail),
			MatchConditions:    conditions,
			ReinvocationPolicy: admissionregistrationv1.IfNeededReinvocationPolicy,
		}})
	})
	t.Run("MutatingAdmissionPolicyBinding", func(t *testing.T) {
		roundTrip(t, mutatingBindings, &mutatingBinding{ObjectMeta: fullMeta, Spec: admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{
			PolicyName:     "full.example.com",
			ParamRef:       paramRef,
			MatchResources: fullMatch,
		}})
	})
}

func roundTrip[M core.Model, T any](t *testing.T, k *core.Description[M, T], obj *T) {
	t.Helper()
	m := k.FlattenObject(obj, nil)
	exp := k.ExpandModel(&m)
	if len(exp.Unknown) > 0 {
		t.Fatalf("unknown values in a flattened object: %v", exp.Unknown)
	}
	if diff := cmp.Diff(obj, exp.Object); diff != "" {
		t.Errorf("API → model → API changed the object (-read +written):\n%s", diff)
	}
	// And the model read again for itself is the same model.
	if diff := cmp.Diff(m, k.FlattenObject(exp.Object, &m), cmp.Comparer(func(a, b attr.Value) bool { return a.Equal(b) }),
		cmp.Exporter(func(t reflect.Type) bool { return t.PkgPath() == reflect.TypeFor[policyBase]().PkgPath() })); diff != "" {
		t.Errorf("model → API → model changed the model (-first +second):\n%s", diff)
	}
}
