package policy_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/advice"
)

// podsRules are the match constraints of a policy on every pod created.
var podsRules = &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
	RuleWithOperations: admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
	},
}}}

// A binding read with the fail-closed policy it binds, from the cluster: a Deny binding of a
// policy on every pod created reaches kube-system's pods and is warned about on
// validation_actions; the same binding that leaves kube-system out, or only warns, is not.
func TestAccBindingLockout(t *testing.T) {
	name := randomName()
	fail := admissionregistrationv1.Fail
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy:    &fail,
			MatchConstraints: podsRules,
			Validations:      []admissionregistrationv1.Validation{{Expression: "object.spec.containers.all(c, c.image != '')"}},
		},
	}
	ctx := context.Background()
	if _, err := clientset(t).AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, p, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create policy: %v", err)
	}
	t.Cleanup(func() {
		_ = clientset(t).AdmissionregistrationV1().ValidatingAdmissionPolicies().Delete(ctx, name, metav1.DeleteOptions{})
	})

	cfg := func(actions, extra string) string {
		return acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "admission_validating_admission_policy_binding" "b" {
  metadata {
    name = "lockout-binding.example.com"
  }
  spec {
    policy_name        = %q
    validation_actions = %s
%s
  }
}
`, name, actions, extra)
	}
	t.Run("Deny, every namespace, nothing that can fail there", func(t *testing.T) {
		// Unlike a webhook's backend, the policy cannot be down: its expression reads what
		// every pod has, and it takes no params.
		diags, ok := acctest.Plan(t, cfg(`["Deny"]`, ""))
		if !ok {
			t.Fatalf("plan failed:%s", describe(diags))
		}
		if got := find(diags, advice.SummaryPolicyFailClosedSystem); len(got) != 0 {
			t.Errorf("warned without evidence that the policy can fail in kube-system:%s", describe(got))
		}
	})
	t.Run("Deny, every namespace, an expression that fails on pods", func(t *testing.T) {
		failing := p.DeepCopy()
		failing.Name = name + "-failing"
		failing.Spec.Validations[0].Expression = "object.spec.replicas <= 3" // pods have no spec.replicas
		if _, err := clientset(t).AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, failing, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create policy: %v", err)
		}
		t.Cleanup(func() {
			_ = clientset(t).AdmissionregistrationV1().ValidatingAdmissionPolicies().Delete(ctx, failing.Name, metav1.DeleteOptions{})
		})
		diags, ok := acctest.Plan(t, strings.Replace(cfg(`["Deny"]`, ""), fmt.Sprintf("%q", name), fmt.Sprintf("%q", failing.Name), 1))
		if !ok {
			t.Fatalf("plan failed:%s", describe(diags))
		}
		expectOn(t, diags, "warning", advice.SummaryPolicyFailClosedSystem, "validation_actions", "CREATE pods in kube-system")
		for _, d := range find(diags, advice.SummaryPolicyFailClosedSystem) {
			if !strings.Contains(d.Detail, "spec.validations[0].expression does not type-check on Pod") {
				t.Errorf("the warning does not say what fails there:%s", describe(diags))
			}
		}
	})
	t.Run("Deny, kube-system left out", func(t *testing.T) {
		diags, ok := acctest.Plan(t, cfg(`["Deny"]`, `
    match_resources {
      namespace_selector {
        match_expressions {
          key      = "kubernetes.io/metadata.name"
          operator = "NotIn"
          values   = ["kube-system"]
        }
      }
    }`))
		if diags = withoutImpact(diags); !ok || len(diags) != 0 {
			t.Fatalf("want a clean plan, got ok=%v:%s", ok, describe(diags))
		}
	})
	t.Run("Warn and Audit", func(t *testing.T) {
		diags, ok := acctest.Plan(t, cfg(`["Warn", "Audit"]`, ""))
		if diags = withoutImpact(diags); !ok || len(diags) != 0 {
			t.Fatalf("want a clean plan, got ok=%v:%s", ok, describe(diags))
		}
	})
}

// The same for a fail-closed mutating admission policy: its binding is warned about unless it
// leaves kube-system out.
func TestAccMutatingBindingLockout(t *testing.T) {
	name := randomName()
	fail := admissionregistrationv1.Fail
	p := &admissionregistrationv1.MutatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			FailurePolicy:      &fail,
			MatchConstraints:   podsRules,
			ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
			Mutations: []admissionregistrationv1.Mutation{{
				PatchType: admissionregistrationv1.PatchTypeApplyConfiguration,
				ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{
					Expression: `Object{metadata: Object.metadata{labels: {"team": "a"}}}`,
				},
			}},
		},
	}
	ctx := context.Background()
	if _, err := clientset(t).AdmissionregistrationV1().MutatingAdmissionPolicies().Create(ctx, p, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create policy: %v", err)
	}
	t.Cleanup(func() {
		_ = clientset(t).AdmissionregistrationV1().MutatingAdmissionPolicies().Delete(ctx, name, metav1.DeleteOptions{})
	})

	cfg := func(extra string) string {
		return acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "admission_mutating_admission_policy_binding" "b" {
  metadata {
    name = "lockout-binding.example.com"
  }
  spec {
    policy_name = %q
%s
  }
}
`, name, extra)
	}
	diags, ok := acctest.Plan(t, cfg(""))
	if !ok {
		t.Fatalf("plan failed:%s", describe(diags))
	}
	got := find(diags, advice.SummaryPolicyFailClosedSystem)
	if len(got) != 1 || got[0].Severity != "warning" || !strings.Contains(got[0].Detail, "CREATE pods in kube-system") {
		t.Errorf("want one warning %q:%s", advice.SummaryPolicyFailClosedSystem, describe(diags))
	}
	diags, ok = acctest.Plan(t, cfg(`
    match_resources {
      namespace_selector {
        match_labels = { "team" = "a" }
      }
    }`))
	if diags = withoutImpact(diags); !ok || len(diags) != 0 {
		t.Fatalf("want a clean plan, got ok=%v:%s", ok, describe(diags))
	}
}
