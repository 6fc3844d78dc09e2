package policy_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
)

// Warnings are given where something can hurt, and only there: these plans hold what the
// server accepts and applies.

// Kyverno's samples build labels as an Object of the labels' type, a map-typed field
// (`Object.metadata.labels{foo: "bar"}`); kube-apiserver turns it into the map of its fields
// and sets the label. The plan of that policy draws no type-check warning, and the server
// applies it: a Deployment written with a server dry run gets the label.
func TestAccMutatingLabelsBuiltAsObject(t *testing.T) {
	name := randomName()
	ns := "labels-object-" + fmt.Sprint(time.Now().UnixNano()%100000)
	const expression = `Object{metadata: Object.metadata{labels: Object.metadata.labels{foo: "bar"}}}`
	cfg := acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "admission_mutating_admission_policy" "labels" {
  metadata {
    name = %[1]q
  }
  spec {
    reinvocation_policy = "Never"
    match_constraints {
      resource_rules {
        api_groups   = ["apps"]
        api_versions = ["v1"]
        operations   = ["CREATE"]
        resources    = ["deployments"]
      }
    }
    mutations {
      patch_type = "ApplyConfiguration"
      apply_configuration {
        expression = %[3]q
      }
    }
  }
}

resource "admission_mutating_admission_policy_binding" "labels" {
  metadata {
    name = %[1]q
  }
  spec {
    policy_name = %[1]q
    match_resources {
      namespace_selector {
        match_labels = { "kubernetes.io/metadata.name" = %[2]q }
      }
    }
  }
}
`, name, ns, expression)
	diags, ok := acctest.Plan(t, cfg)
	if !ok {
		t.Fatalf("plan failed:%s", describe(diags))
	}
	if got := find(diags, "Expression does not type-check"); len(got) != 0 {
		t.Errorf("the server applies the mutation, yet the plan warns:%s", describe(got))
	}

	// The same policy at the server.
	ctx := context.Background()
	cs := clientset(t)
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	api := cs.AdmissionregistrationV1()
	p := &admissionregistrationv1.MutatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
				},
			}}},
			ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
			Mutations: []admissionregistrationv1.Mutation{{PatchType: admissionregistrationv1.PatchTypeApplyConfiguration,
				ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: expression}}},
		},
	}
	if _, err := api.MutatingAdmissionPolicies().Create(ctx, p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	b := &admissionregistrationv1.MutatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: name,
			MatchResources: &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{
				MatchLabels: map[string]string{corev1.LabelMetadataName: ns}}}},
	}
	if _, err := api.MutatingAdmissionPolicyBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = api.MutatingAdmissionPolicyBindings().Delete(ctx, name, metav1.DeleteOptions{})
		_ = api.MutatingAdmissionPolicies().Delete(ctx, name, metav1.DeleteOptions{})
		_ = cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})
	})
	replicas := int32(1)
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
			},
		},
	}
	var labels map[string]string
	// The server picks policies up asynchronously.
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		got, err := cs.AppsV1().Deployments(ns).Create(ctx, d.DeepCopy(), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			t.Fatalf("dry-run create of a Deployment: %v", err)
		}
		if labels = got.Labels; labels["foo"] == "bar" {
			return
		}
	}
	t.Fatalf("the server did not apply the mutation: labels %v", labels)
}

// unreachableProvider is a provider block whose API server refuses connections: a loopback
// port nothing listens at, with the test cluster's credentials.
func unreachableProvider(t *testing.T) string {
	t.Helper()
	cp := acctest.Cluster(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	_ = l.Close() // nothing listens there now: connections are refused
	return fmt.Sprintf("provider \"admission\" {\n  host = \"https://%s\"\n  token = %q\n  cluster_ca_certificate = %q\n}\n", dead, cp.AdminToken, string(cp.CAPEM))
}

// manyResources is a configuration of n of each: validating policies and their bindings (by
// literal name), mutating policies and their bindings, and webhook configurations of both
// kinds.
func manyResources(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `
resource "admission_validating_admission_policy" "p%[1]d" {
  metadata {
    name = "unreachable-%[1]d.example.com"
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
      expression = "object.spec.replicas <= %[1]d"
    }
  }
}

resource "admission_validating_admission_policy_binding" "p%[1]d" {
  metadata {
    name = "unreachable-%[1]d.example.com"
  }
  spec {
    policy_name        = "unreachable-%[1]d.example.com"
    validation_actions = ["Warn"]
  }
}

resource "admission_mutating_admission_policy" "m%[1]d" {
  metadata {
    name = "unreachable-%[1]d.example.com"
  }
  spec {
    reinvocation_policy = "Never"
    match_constraints {
      resource_rules {
        api_groups   = [""]
        api_versions = ["v1"]
        operations   = ["CREATE"]
        resources    = ["configmaps"]
      }
    }
    mutations {
      patch_type = "ApplyConfiguration"
      apply_configuration {
        expression = "Object{metadata: Object.metadata{labels: {'n': '%[1]d'}}}"
      }
    }
  }
}

resource "admission_mutating_admission_policy_binding" "m%[1]d" {
  metadata {
    name = "unreachable-%[1]d.example.com"
  }
  spec {
    policy_name = "unreachable-%[1]d.example.com"
    match_resources {
      namespace_selector {
        match_labels = { "team" = "t%[1]d" }
      }
    }
  }
}

resource "admission_validating_webhook_configuration" "w%[1]d" {
  metadata {
    name = "unreachable-%[1]d.example.com"
  }
  webhook {
    name                      = "check.unreachable-%[1]d.example.com"
    admission_review_versions = ["v1"]
    side_effects              = "None"
    failure_policy            = "Ignore"
    client_config {
      service {
        namespace = "default"
        name      = "check-%[1]d"
      }
    }
    rule {
      api_groups   = ["example.com"]
      api_versions = ["v1"]
      operations   = ["CREATE"]
      resources    = ["widgets"]
    }
  }
}
`, i)
	}
	return b.String()
}

// A plan whose cluster refuses connections says so once, whatever the number of resources:
// the connection, the error, and what was and was not checked offline; no resource repeats
// it, and no impact line stands for it. A plan of one resource says it too.
func TestAccUnreachableClusterOneWarning(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  string
		n    int
	}{
		{"25 resources", manyResources(5), 25},
		{"one policy", manyResources(1)[:strings.Index(manyResources(1), "\nresource \"admission_validating_admission_policy_binding\"")], 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			diags, ok := acctest.Plan(t, unreachableProvider(t)+tc.cfg)
			if !ok {
				t.Fatalf("plan failed:%s", describe(diags))
			}
			if n := strings.Count(tc.cfg, "\nresource "); n != tc.n {
				t.Fatalf("the configuration has %d resources, want %d", n, tc.n)
			}
			said := find(diags, "Plan checked without the cluster")
			if len(said) != 1 {
				t.Fatalf("want one warning for the plan, got %d:%s", len(said), describe(diags))
			}
			for _, want := range []string{"connection refused", "https://127.0.0.1:", "Checked offline:", "Not checked:", "once for the whole plan"} {
				if !strings.Contains(said[0].Detail, want) {
					t.Errorf("the warning does not say %q: %s", want, said[0].Detail)
				}
			}
			if got := find(diags, "Policy impact incomplete"); len(got) != 0 {
				t.Errorf("%d impact lines repeat the refused connection:%s", len(got), describe(got))
			}
			t.Logf("%d resources, %d diagnostics:%s", tc.n, len(diags), describe(diags))
		})
	}
}

// Bindings planned in the same run as their policies, named by literal string, draw no "does
// not exist", however Terraform orders the plans: 30 pairs, more than Terraform plans at once
// (-parallelism 10), bindings written first. A binding whose policy is nowhere still does.
func TestAccBindingsPlannedWithTheirPolicies(t *testing.T) {
	// Fewer bindings than Terraform plans at once (-parallelism 10): with as many, they may
	// all wait for policies that cannot start, and then say they could not tell
	// (quietOutcome, TestQuietOutcome).
	const pairs = 8
	var b strings.Builder
	for i := range pairs {
		fmt.Fprintf(&b, `
resource "admission_validating_admission_policy_binding" "b%[1]d" {
  metadata {
    name = "same-run-%[1]d.example.com"
  }
  spec {
    policy_name        = "same-run-%[1]d.example.com"
    validation_actions = ["Warn"]
  }
}
`, i)
	}
	for i := range pairs {
		fmt.Fprintf(&b, `
resource "admission_validating_admission_policy" "p%[1]d" {
  metadata {
    name = "same-run-%[1]d.example.com"
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
      expression = "object.spec.replicas <= %[1]d"
    }
  }
}
`, i)
	}
	b.WriteString(`
resource "admission_validating_admission_policy_binding" "nowhere" {
  metadata {
    name = "same-run-nowhere.example.com"
  }
  spec {
    policy_name        = "same-run-no-such-policy.example.com"
    validation_actions = ["Warn"]
  }
}
`)
	diags, ok := acctest.Plan(t, acctest.ProviderBlock(t)+b.String())
	if !ok {
		t.Fatalf("plan failed:%s", describe(diags))
	}
	got := find(diags, "Binding to a policy that does not exist")
	if len(got) != 1 || got[0].Address != "admission_validating_admission_policy_binding.nowhere" ||
		!strings.Contains(got[0].Detail, `"same-run-no-such-policy.example.com"`) {
		t.Fatalf("want one warning, on the binding whose policy is nowhere, got %d:%s", len(got), describe(got))
	}
	if notYet := find(diags, "Binding to a policy not planned yet"); len(notYet) > 0 {
		t.Errorf("%d bindings could not tell whether their policy is planned:%s", len(notYet), describe(notYet))
	}
	// Each binding was judged with its policy as planned: its impact names the policy.
	judged := 0
	for _, d := range diags {
		if strings.Contains(d.Detail, `of ValidatingAdmissionPolicy "same-run-`) {
			judged++
		}
	}
	if judged < pairs {
		t.Errorf("%d of %d bindings were judged with their planned policy:%s", judged, pairs, describe(diags))
	}
}
