package policy_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/advice"
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
		if !isImpact(d.Summary) {
			out = append(out, d)
		}
	}
	return out
}

// isImpact reports whether summary is one of the impact's. The diagnostics the CLI prints carry
// no warning.Kind, only the summary, so it is told by its words here.
func isImpact(summary string) bool {
	switch summary {
	case impact.SummaryDeny, impact.SummaryWarn, impact.SummaryAudit, impact.SummaryNone, impact.SummaryFlips,
		impact.SummaryIncomplete, impact.SummaryChange, impact.SummaryNoChange, impact.SummaryReject,
		impact.SummaryKnownLater, impact.SummaryGateFailure, impact.SummaryOrder:
		return true
	}
	return false
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
		// (Allow: no params is no denial, TestAccBindingParams; kube-system left out: a Deny binding of the fail-closed policy there is warned about)
		diags, ok := acctest.Plan(t, acctest.ProviderBlock(t)+binding(fmt.Sprintf("%q", withParams), `
    param_ref {
      name                       = "limits"
      parameter_not_found_action = "Allow"
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

// paramsRef is a param_ref block with extra, kube-system left out of the binding (a Deny
// binding of a fail-closed policy there is a lockout, warned about on its own).
func paramsRef(ref string) string {
	return `
    param_ref {
` + ref + `
    }
    match_resources {
      namespace_selector {
        match_expressions {
          key      = "kubernetes.io/metadata.name"
          operator = "NotIn"
          values   = ["kube-system"]
        }
      }
    }`
}

// A binding whose param_ref finds no params, with parameter_not_found_action Deny, denies every
// request it matches: warned at plan on param_ref, by name or selector, in a namespace or in
// each request's; quiet once the params exist, with Allow, with a name known only at apply,
// and without a cluster.
func TestAccBindingParams(t *testing.T) {
	t.Parallel() // plans only, on objects of its own
	cs := clientset(t)
	policy := randomName()
	policyWithParams(t, policy)
	ns := "params-" + randomName()[:8]
	if _, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	name := "limits-" + randomName()[:8]
	plan := func(t *testing.T, provider, ref string) []acctest.Diagnostic {
		t.Helper()
		diags, ok := acctest.Plan(t, provider+binding(fmt.Sprintf("%q", policy), paramsRef(ref)))
		if !ok {
			t.Fatalf("plan failed:%s", describe(diags))
		}
		return withoutImpact(diags)
	}
	byName := fmt.Sprintf("      name = %q\n      namespace = %q\n      parameter_not_found_action = \"Deny\"", name, ns)
	bySelector := "      selector {\n        match_labels = { team = \"" + name + "\" }\n      }\n      parameter_not_found_action = \"Deny\""
	everyNamespace := fmt.Sprintf("      name = %q\n      parameter_not_found_action = \"Deny\"", name)
	const summary = "Binding denies every request it matches: its params do not exist"

	for _, c := range []struct{ name, ref, says string }{
		{"by name", byName, fmt.Sprintf(`no configmaps named %q in namespace %q`, name, ns)},
		{"by selector", bySelector, `no configmaps with labels team=` + name},
		{"in each request's namespace", everyNamespace, fmt.Sprintf(`no configmaps named %q in each request's namespace`, name)},
	} {
		t.Run("missing "+c.name, func(t *testing.T) {
			diags := plan(t, acctest.ProviderBlock(t), c.ref)
			expectOn(t, diags, "warning", summary, "param_ref", c.says)
			d := find(diags, summary)[0]
			for _, s := range []string{"rejects every request the binding matches (CREATE of deployments.apps, in the namespaces the binding's namespace selector takes)",
				"no params found for policy binding with `Deny` parameterNotFoundAction"} {
				if !strings.Contains(d.Detail, s) {
					t.Errorf("the warning does not say %q:%s", s, describe([]acctest.Diagnostic{d}))
				}
			}
			if len(diags) != 1 {
				t.Errorf("want only that warning:%s", describe(diags))
			}
		})
	}
	quiet := func(t *testing.T, diags []acctest.Diagnostic) {
		t.Helper()
		if len(diags) != 0 {
			t.Errorf("want a clean plan:%s", describe(diags))
		}
	}
	t.Run("allow", func(t *testing.T) {
		quiet(t, plan(t, acctest.ProviderBlock(t), strings.Replace(byName, `"Deny"`, `"Allow"`, 1)))
	})
	t.Run("offline", func(t *testing.T) {
		// (a cluster that cannot be reached: the lookups say nothing)
		quiet(t, plan(t, "provider \"admission\" {\n  host = \"https://127.0.0.1:1\"\n  token = \"unused\"\n  dry_run_on_plan = false\n}\n", byName))
	})
	t.Run("a name known only at apply", func(t *testing.T) {
		cfg := acctest.ProviderBlock(t) + `
resource "terraform_data" "params" {
  input = "` + name + `"
}
` + binding(fmt.Sprintf("%q", policy), paramsRef(fmt.Sprintf("      name = terraform_data.params.output\n      namespace = %q\n      parameter_not_found_action = \"Deny\"", ns)))
		diags, ok := acctest.Plan(t, cfg)
		if !ok {
			t.Fatalf("plan failed:%s", describe(diags))
		}
		quiet(t, withoutImpact(diags))
	})
	t.Run("params forbidden", func(t *testing.T) {
		// The user "reader" may read the policy, not the configmaps: the plan says once that it
		// could not check the params, and never that they are missing.
		grantPolicyReader(t, cs, "reader")
		reader := fmt.Sprintf("provider \"admission\" {\n  host = %q\n  token = %q\n  cluster_ca_certificate = %q\n  dry_run_on_plan = false\n}\n",
			acctest.Cluster(t).Host, acctest.Cluster(t).UserToken("reader"), string(acctest.Cluster(t).CAPEM))
		diags, ok := acctest.Plan(t, reader+binding(fmt.Sprintf("%q", policy), paramsRef(byName)))
		if !ok {
			t.Fatalf("plan failed:%s", describe(diags))
		}
		if n := len(find(diags, summary)); n != 0 {
			t.Errorf("params that could not be read are said missing:%s", describe(diags))
		}
		expectOn(t, diags, "warning", advice.SummaryUnread, "param_ref", "The plan could not check that the params of this binding exist")
		if d := find(diags, advice.SummaryUnread); len(d) == 1 && !strings.Contains(d[0].Detail, "forbidden") {
			t.Errorf("does not say it was forbidden:%s", describe(d))
		}
	})
	t.Run("forbidden", func(t *testing.T) {
		nobody := fmt.Sprintf("provider \"admission\" {\n  host = %q\n  token = %q\n  cluster_ca_certificate = %q\n  dry_run_on_plan = false\n}\n",
			acctest.Cluster(t).Host, acctest.Cluster(t).UserToken("nobody"), string(acctest.Cluster(t).CAPEM))
		diags, ok := acctest.Plan(t, nobody+binding(fmt.Sprintf("%q", policy), paramsRef(byName)))
		if !ok {
			t.Fatalf("plan failed:%s", describe(diags))
		}
		if n := len(find(diags, summary)); n != 0 {
			t.Errorf("params that could not be read are said missing:%s", describe(diags))
		}
	})

	// The params made: each lookup finds them.
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"team": name}}, Data: map[string]string{"max": "5"}}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, ref string }{{"by name", byName}, {"by selector", bySelector}, {"in each request's namespace", everyNamespace}} {
		t.Run("present "+c.name, func(t *testing.T) {
			quiet(t, plan(t, acctest.ProviderBlock(t), c.ref))
		})
	}
}

// grantPolicyReader lets user get and list validating admission policies, nothing else, until
// the test ends.
func grantPolicyReader(t *testing.T, cs kubernetes.Interface, user string) {
	t.Helper()
	ctx := context.Background()
	name := "policy-reader-" + user
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: []rbacv1.PolicyRule{{
		APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{"validatingadmissionpolicies"}, Verbs: []string{"get", "list"}}}}
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.RbacV1().ClusterRoles().Delete(ctx, name, metav1.DeleteOptions{}) })
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: name},
		Subjects: []rbacv1.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: user}}}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.RbacV1().ClusterRoleBindings().Delete(ctx, name, metav1.DeleteOptions{}) })
	// RBAC is read from the server's cache: wait until the grant is seen.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		review, err := cs.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: user, ResourceAttributes: &authorizationv1.ResourceAttributes{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicies", Verb: "get"}}},
			metav1.CreateOptions{})
		if err == nil && review.Status.Allowed {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the grant to %s is not in effect after 30 s: %v", user, err)
		}
	}
}
