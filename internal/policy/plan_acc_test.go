package policy_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/impact"
)

// What a plan says about a policy or a binding before anything is applied:
// the server's rules as errors, type checking and bindings as warnings, each
// on the line it is about. resource.Test cannot see warnings, so these run
// `terraform plan -json` (acctest.Plan).

// find is the diagnostics with this summary.
func find(diags []acctest.Diagnostic, summary string) []acctest.Diagnostic {
	var out []acctest.Diagnostic
	for _, d := range diags {
		if d.Summary == summary {
			out = append(out, d)
		}
	}
	return out
}

// withoutImpact is diags without the lines of the impact on the cluster's objects, which every
// plan of a policy or binding has when it reaches a cluster (impact_acc_test.go tests them).
func withoutImpact(diags []acctest.Diagnostic) []acctest.Diagnostic {
	var out []acctest.Diagnostic
	for _, d := range diags {
		if !impact.IsImpact(d.Summary) {
			out = append(out, d)
		}
	}
	return out
}

func describe(diags []acctest.Diagnostic) string {
	var b strings.Builder
	for _, d := range diags {
		code := ""
		if d.Snippet != nil {
			code = strings.TrimSpace(d.Snippet.Code)
		}
		fmt.Fprintf(&b, "\n  %s: %s [%s] %s", d.Severity, d.Summary, code, d.Detail)
	}
	return b.String()
}

// expectOn checks that diags have exactly one diagnostic of this severity
// and summary, on the configuration line that contains onLine, and whose
// detail contains detail.
func expectOn(t *testing.T, diags []acctest.Diagnostic, severity, summary, onLine, detail string) {
	t.Helper()
	got := find(diags, summary)
	if len(got) != 1 {
		t.Fatalf("want one %s %q, got %d:%s", severity, summary, len(got), describe(diags))
	}
	d := got[0]
	if d.Severity != severity || d.Snippet == nil || !strings.Contains(d.Snippet.Code, onLine) || !strings.Contains(d.Detail, detail) {
		t.Errorf("want a %s on the line with %q saying %q, got:%s", severity, onLine, detail, describe(got))
	}
}

func policyWithParams(t *testing.T, name string) {
	t.Helper()
	fail := admissionregistrationv1.Fail
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: &fail,
			ParamKind:     &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"},
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
				},
			}}},
			Validations: []admissionregistrationv1.Validation{{Expression: "object.spec.replicas <= int(params.data.max)"}},
		},
	}
	if _, err := clientset(t).AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create policy: %v", err)
	}
	t.Cleanup(func() {
		_ = clientset(t).AdmissionregistrationV1().ValidatingAdmissionPolicies().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
}

func binding(policyName, extra string) string {
	return fmt.Sprintf(`
resource "admission_validating_admission_policy_binding" "b" {
  metadata {
    name = "binding.example.com"
  }
  spec {
    policy_name        = %s
    validation_actions = ["Deny"]
%s
  }
}
`, policyName, extra)
}

func TestAccBindingWarnings(t *testing.T) {
	t.Parallel() // plans only, on objects of its own
	withParams := randomName()
	policyWithParams(t, withParams)

	t.Run("policy that does not exist", func(t *testing.T) {
		diags, ok := acctest.Plan(t, acctest.ProviderBlock(t)+binding(`"no-such-policy.example.com"`, ""))
		if !ok {
			t.Fatalf("plan failed:%s", describe(diags))
		}
		expectOn(t, diags, "warning", "Binding to a policy that does not exist", "policy_name", `no ValidatingAdmissionPolicy named "no-such-policy.example.com"`)
	})
	t.Run("no param_ref for a policy with param_kind", func(t *testing.T) {
		diags, ok := acctest.Plan(t, acctest.ProviderBlock(t)+binding(fmt.Sprintf("%q", withParams), ""))
		if !ok {
			t.Fatalf("plan failed:%s", describe(diags))
		}
		expectOn(t, diags, "warning", "Binding without param_ref to a policy with param_kind", "spec", "is then rejected")
		if n := len(find(diags, "Binding to a policy that does not exist")); n != 0 {
			t.Errorf("the policy exists, yet %d warnings say it does not", n)
		}
	})
	t.Run("param_ref given", func(t *testing.T) {
		// (kube-system left out: a Deny binding of the fail-closed policy there is warned about)
		diags, ok := acctest.Plan(t, acctest.ProviderBlock(t)+binding(fmt.Sprintf("%q", withParams), `
    param_ref {
      name                       = "limits"
      parameter_not_found_action = "Deny"
    }
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
	t.Run("policy created in the same apply, referenced by id", func(t *testing.T) {
		cfg := acctest.ProviderBlock(t) + `
resource "admission_validating_admission_policy" "p" {
  metadata {
    name = "new-policy.example.com"
  }
  spec {
    match_constraints {
      resource_rules {
        api_groups   = ["apps"]
        api_versions = ["v1"]
        operations   = ["CREATE"]
        resources    = ["deployments"]
      }
    }
    validations {
      expression = "object.spec.replicas <= 5"
    }
  }
}
` + binding("admission_validating_admission_policy.p.id", "")
		diags, ok := acctest.Plan(t, cfg)
		if diags = withoutImpact(diags); !ok || len(diags) != 0 {
			t.Fatalf("want a clean plan, got ok=%v:%s", ok, describe(diags))
		}
	})
}

// deploymentsPolicy is a policy on apps/v1 deployments with one validation.
func deploymentsPolicy(expression, extra string) string {
	return fmt.Sprintf(`
resource "admission_validating_admission_policy" "p" {
  metadata {
    name = "plan-checks.example.com"
  }
  spec {
    match_constraints {
      resource_rules {
        api_groups   = ["apps"]
        api_versions = ["v1"]
        operations   = ["CREATE", "UPDATE"]
        resources    = ["deployments"]
      }
    }
    validations {
      expression = %q
%s
    }
  }
}
`, expression, extra)
}

func TestAccPolicyPlanChecks(t *testing.T) {
	t.Parallel() // plans only, on objects of its own
	t.Run("a typo in a field name is a type-checking warning on its line", func(t *testing.T) {
		diags, ok := acctest.Plan(t, acctest.ProviderBlock(t)+deploymentsPolicy("object.spec.replicass <= 5", ""))
		if !ok {
			t.Fatalf("plan failed:%s", describe(diags))
		}
		expectOn(t, diags, "warning", "Expression does not type-check", "object.spec.replicass", "replicass")
	})
	t.Run("the same without a cluster", func(t *testing.T) {
		// The built-in schemas are in the provider: an unreachable cluster
		// loses nothing but the dry run.
		offline := `provider "admission" {
  host            = "https://127.0.0.1:1"
  token           = "unused"
  dry_run_on_plan = false
}
`
		diags, ok := acctest.Plan(t, offline+deploymentsPolicy("object.spec.replicass <= 5", ""))
		if !ok {
			t.Fatalf("plan failed:%s", describe(diags))
		}
		expectOn(t, diags, "warning", "Expression does not type-check", "object.spec.replicass", "replicass")
	})
	t.Run("a correct expression has no warning", func(t *testing.T) {
		diags, ok := acctest.Plan(t, acctest.ProviderBlock(t)+deploymentsPolicy("object.spec.replicas <= 5", ""))
		if diags = withoutImpact(diags); !ok || len(diags) != 0 {
			t.Fatalf("want a clean plan, got ok=%v:%s", ok, describe(diags))
		}
	})
	t.Run("a CEL syntax error fails the plan on its line", func(t *testing.T) {
		diags, ok := acctest.Plan(t, acctest.ProviderBlock(t)+deploymentsPolicy("object.spec.replicas <=", ""))
		if ok {
			t.Fatalf("want the plan to fail:%s", describe(diags))
		}
		expectOn(t, diags, "error", "Invalid ValidatingAdmissionPolicy", "object.spec.replicas <=", "compilation failed")
	})
	t.Run("a message expression that is no string fails the plan", func(t *testing.T) {
		diags, ok := acctest.Plan(t, acctest.ProviderBlock(t)+deploymentsPolicy("object.spec.replicas <= 5", `      message_expression = "object.spec.replicas"`))
		if ok {
			t.Fatalf("want the plan to fail:%s", describe(diags))
		}
		expectOn(t, diags, "error", "Invalid ValidatingAdmissionPolicy", "message_expression", "string")
	})
}

// fiveKindsMutating is a mutating policy on five kinds, whose apply
// configuration sets spec.replicass.
const fiveKindsMutating = `
resource "admission_mutating_admission_policy" "m" {
  metadata {
    name = "five-kinds.example.com"
  }
  spec {
    reinvocation_policy = "Never"
    match_constraints {
      resource_rules {
        api_groups   = ["apps"]
        api_versions = ["v1"]
        operations   = ["CREATE"]
        resources    = ["deployments", "statefulsets", "replicasets", "daemonsets"]
      }
      resource_rules {
        api_groups   = [""]
        api_versions = ["v1"]
        operations   = ["CREATE"]
        resources    = ["replicationcontrollers"]
      }
    }
    mutations {
      patch_type = "ApplyConfiguration"
      apply_configuration {
        expression = "Object{spec: Object.spec{replicass: 3}}"
      }
    }
  }
}
`

func TestAccMutatingPolicyPlanChecks(t *testing.T) {
	t.Parallel() // plans only, on objects of its own
	start := time.Now()
	diags, ok := acctest.Plan(t, acctest.ProviderBlock(t)+fiveKindsMutating)
	elapsed := time.Since(start)
	if !ok {
		t.Fatalf("plan failed:%s", describe(diags))
	}
	// One warning, naming each of the five kinds that lacks the field.
	expectOn(t, diags, "warning", "Expression does not type-check", "Object.spec{replicass: 3}", "replicass")
	for _, kind := range []string{"Deployment", "StatefulSet", "ReplicaSet", "DaemonSet", "ReplicationController"} {
		if !strings.Contains(find(diags, "Expression does not type-check")[0].Detail, kind) {
			t.Errorf("the warning does not name %s", kind)
		}
	}
	t.Logf("figures: terraform plan of a mutating policy matching five kinds, type-checked: %.2fs (terraform init and plan)", elapsed.Seconds())
}
