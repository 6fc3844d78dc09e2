package webhook

import (
	"context"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/core"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

// A fail-closed webhook on pods everywhere, as the plan expands it.
func failClosedOnPods() *configuration {
	fail, none, path := admissionregistrationv1.Fail, admissionregistrationv1.SideEffectClassNone, "/mutate"
	return validation.Default(&configuration{
		ObjectMeta: metav1.ObjectMeta{Name: "pods.example.com"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:                    "pods.example.com",
			FailurePolicy:           &fail,
			SideEffects:             &none,
			AdmissionReviewVersions: []string{"v1"},
			ClientConfig: admissionregistrationv1.WebhookClientConfig{
				Service: &admissionregistrationv1.ServiceReference{Namespace: "injector", Name: "injector", Path: &path},
			},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
			}},
		}},
	})
}

func lockouts(ws []warning.Warning) int {
	n := 0
	for _, w := range ws {
		if w.Kind.Intercepts() { // lockout and timeout warnings
			n++
		}
	}
	return n
}

// While a value the lockout check weighs is not known (a namespace selector's
// labels from another resource read as an empty selector, which matches
// everything), the plan makes no lockout claim; a ca_bundle known only at
// apply changes nothing of what the webhook intercepts.
func TestLockoutWaitsForUnknownValues(t *testing.T) {
	hooks := field.NewPath("webhooks").Index(0)
	for _, tc := range []struct {
		name    string
		unknown []*field.Path
		warns   bool
	}{
		{"all known", nil, true},
		{"ca_bundle unknown", []*field.Path{hooks.Child("clientConfig", "caBundle")}, true},
		{"namespace selector labels unknown", []*field.Path{hooks.Child("namespaceSelector", "matchLabels")}, false},
		{"a match condition unknown", []*field.Path{hooks.Child("matchConditions").Index(0).Child("expression")}, false},
		{"service namespace unknown", []*field.Path{hooks.Child("clientConfig", "service", "namespace")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := mutating.Advise(context.Background(), core.PlanEnv{Unknown: tc.unknown}, failClosedOnPods())
			if got := lockouts(ws) > 0; got != tc.warns {
				t.Errorf("lockout warnings: %v, want %v: %+v", got, tc.warns, ws)
			}
		})
	}
}
