package impact_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/impact"
)

// The whole planned chain: a mutating policy that adds a team label and a validating policy
// that requires it, planned together (neither depends on the other), over 100 ConfigMaps; the
// server's dry-run writes after the apply are the judge. Then two mutating policies whose
// result depends on their order, a policy and its binding changed together, and a policy that
// reads the writer. Every policy is held to the namespace "chain", and destroyed at the end.

const (
	chainNamespace = "chain"
	chainObjects   = 100
)

// chainSeedLabels are the labels of ConfigMap c-i: team=a for the even ones, nomutate=true
// (which the mutating policy leaves out: denied) for i%10 == 9, tiered=true for i%10 == 3,
// protected=true for i%25 == 0.
func chainSeedLabels(i int) map[string]any {
	l := map[string]any{"app": fmt.Sprintf("a%d", i)}
	switch {
	case i%2 == 0:
		l["team"] = "a"
	case i%10 == 9:
		l["nomutate"] = "true"
	}
	if i%10 == 3 {
		l["tiered"] = "true"
	}
	if i%25 == 0 {
		l["protected"] = "true"
	}
	return l
}

const chainRules = `
    match_constraints {
      resource_rules {
        operations   = ["CREATE", "UPDATE"]
        api_groups   = [""]
        api_versions = ["v1"]
        resources    = ["configmaps"]
      }
      namespace_selector {
        match_labels = { "kubernetes.io/metadata.name" = "chain" }
      }
    }`

// chainTeam is the mutating policy that adds team=platform where there is no team label (and
// no nomutate label), and the validating policy that requires a team label, with expr its
// validation and bindingExtra more of its binding's spec.
func chainTeam(expr, bindingExtra string) string {
	return `
resource "admission_mutating_admission_policy" "team" {
  metadata { name = "chain-team" }
  spec {` + chainRules + `
    match_conditions {
      name       = "no-team"
      expression = "!has(object.metadata.labels.team) && !has(object.metadata.labels.nomutate)"
    }
    mutations {
      patch_type = "ApplyConfiguration"
      apply_configuration {
        expression = "Object{metadata: Object.metadata{labels: {\"team\": \"platform\"}}}"
      }
    }
    reinvocation_policy = "Never"
  }
}

resource "admission_mutating_admission_policy_binding" "team" {
  metadata { name = "chain-team" }
  spec {
    policy_name = admission_mutating_admission_policy.team.metadata[0].name
  }
}

resource "admission_validating_admission_policy" "team" {
  metadata { name = "chain-team-required" }
  spec {` + chainRules + `
    validations {
      expression = ` + fmt.Sprintf("%q", expr) + `
      message    = "a team label is needed"
    }
  }
}

resource "admission_validating_admission_policy_binding" "team" {
  metadata { name = "chain-team-required" }
  spec {
    policy_name        = admission_validating_admission_policy.team.metadata[0].name
    validation_actions = ["Deny"]
    ` + bindingExtra + `
  }
}
`
}

// chainTier are two mutating policies that set the tier label where there is none, to a and
// to b: the one that runs first decides. And a validating policy that warns where it is not a.
func chainTier(value string) string {
	return `
resource "admission_mutating_admission_policy" "tier_` + value + `" {
  metadata { name = "chain-tier-` + value + `" }
  spec {` + chainRules + `
    match_conditions {
      name       = "tiered"
      expression = "has(object.metadata.labels.tiered) && !has(object.metadata.labels.tier)"
    }
    mutations {
      patch_type = "ApplyConfiguration"
      apply_configuration {
        expression = "Object{metadata: Object.metadata{labels: {\"tier\": \"` + value + `\"}}}"
      }
    }
    reinvocation_policy = "Never"
  }
}

resource "admission_mutating_admission_policy_binding" "tier_` + value + `" {
  metadata { name = "chain-tier-` + value + `" }
  spec {
    policy_name = admission_mutating_admission_policy.tier_` + value + `.metadata[0].name
  }
}
`
}

const chainTierCheck = `
resource "admission_validating_admission_policy" "tier" {
  metadata { name = "chain-tier" }
  spec {` + chainRules + `
    validations {
      expression = "!has(object.metadata.labels.tiered) || object.metadata.labels.tier == 'a'"
      message    = "tier a"
    }
  }
}

resource "admission_validating_admission_policy_binding" "tier" {
  metadata { name = "chain-tier" }
  spec {
    policy_name        = admission_validating_admission_policy.tier.metadata[0].name
    validation_actions = ["Warn"]
  }
}
`

// chainProtected denies a write of a protected ConfigMap by anyone but admin.
const chainProtected = `
resource "admission_validating_admission_policy" "protected" {
  metadata { name = "chain-protected" }
  spec {` + chainRules + `
    validations {
      expression = "!(has(object.metadata.labels.protected) && request.userInfo.username != 'admin')"
      message    = "protected"
    }
  }
}

resource "admission_validating_admission_policy_binding" "protected" {
  metadata { name = "chain-protected" }
  spec {
    policy_name        = admission_validating_admission_policy.protected.metadata[0].name
    validation_actions = ["Deny"]
  }
}
`

func TestAccImpactPlannedChain(t *testing.T) {
	cp := acctest.Cluster(t)
	cfg := rest.CopyConfig(cp.RESTConfig())
	cfg.QPS, cfg.Burst = 200, 400
	warnings := &warningLog{}
	cfg.WarningHandler = warnings
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	nsGVR := schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	if _, err := dyn.Resource(nsGVR).Create(ctx, &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace",
		"metadata": map[string]any{"name": chainNamespace}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := range chainObjects {
		if _, err := dyn.Resource(configMapsGVR).Namespace(chainNamespace).Create(ctx, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": fmt.Sprintf("c-%d", i), "labels": chainSeedLabels(i)},
			"data": map[string]any{"k": "v"}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	w := newWorkspace(t, cp.KubeconfigPath)
	module := func(parts ...string) {
		t.Helper()
		text := acctest.RequiredProviders("registry.terraform.io/seed-a73d233f/admission") +
			fmt.Sprintf("provider \"admission\" {\n  config_path = %q\n}\n", w.kubeconfig) + strings.Join(parts, "\n")
		if err := os.WriteFile(filepath.Join(w.dir, "main.tf"), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		if out, ok := w.run(t, "destroy", "-auto-approve", "-input=false", "-lock=false"); !ok {
			t.Errorf("destroy:\n%s", out)
		}
	})
	plan := func() []acctest.Diagnostic {
		t.Helper()
		out, ok := w.run(t, "plan", "-json", "-input=false", "-lock=false")
		if !ok {
			t.Fatalf("the plan failed:\n%s", out)
		}
		return diagnostics(out)
	}
	apply := func() {
		t.Helper()
		if out, ok := w.run(t, "apply", "-auto-approve", "-input=false", "-lock=false"); !ok {
			t.Fatalf("the apply failed:\n%s", out)
		}
	}
	// dryRun writes c-i back unchanged as a server dry run: the denial, the warnings, the object.
	dryRun := func(i int) (*unstructured.Unstructured, []string, error) {
		obj, err := dyn.Resource(configMapsGVR).Namespace(chainNamespace).Get(ctx, fmt.Sprintf("c-%d", i), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		warnings.reset()
		written, err := dyn.Resource(configMapsGVR).Namespace(chainNamespace).Update(ctx, obj, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
		return written, warnings.taken(), err
	}
	// inForce waits until the server answers c-i's write as ok says.
	inForce := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not in force a minute after the apply", what)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	ref := func(i int) string { return fmt.Sprintf("%s/c-%d", chainNamespace, i) }

	// 1. The chain planned together: the validating binding denies only what the mutating
	// policy leaves without a team label (nomutate), and the server agrees on each object.
	module(chainTeam("has(object.metadata.labels.team)", ""))
	began := time.Now()
	diags := plan()
	planTime := time.Since(began)
	subject := `Binding "chain-team-required" of ValidatingAdmissionPolicy "chain-team-required", as planned`
	denied := map[string]bool{}
	for _, d := range diags {
		if d.Summary == impact.SummaryDeny && strings.Contains(d.Detail, subject) {
			denied = listedRefs(d.Detail)
			if !strings.Contains(d.Detail, "would deny 10 of the 100 existing ConfigMaps") {
				t.Errorf("the plan's denials: %s", d.Detail)
			}
		}
		if d.Summary == impact.SummaryIncomplete && strings.Contains(d.Detail, "chain-team") {
			t.Errorf("incomplete: %s", d.Detail)
		}
	}
	changed := listedCount(t, find(t, diags, impact.SummaryChange, `Binding "chain-team" of MutatingAdmissionPolicy "chain-team", as planned`).Detail,
		"would change ")
	if changed != 40 {
		t.Errorf("the mutating policy changes %d objects, want 40", changed)
	}
	apply()
	inForce("the chain", func() bool {
		_, _, errNo := dryRun(9)
		written, _, errYes := dryRun(1)
		return errNo != nil && errYes == nil && written.GetLabels()["team"] == "platform"
	})
	agree, serverDenied := 0, 0
	for i := range chainObjects {
		_, _, err := dryRun(i)
		if err != nil {
			serverDenied++
		}
		if (err != nil) == denied[ref(i)] {
			agree++
		} else {
			t.Errorf("%s: the plan says denied %v, the server %v", ref(i), denied[ref(i)], err)
		}
	}

	// 2. Two mutating policies that set the tier label, a or b, whichever runs first: each
	// warns of the order, naming the other and the objects; the validating policy that wants a
	// counts those objects apart, naming the orders.
	module(chainTeam("has(object.metadata.labels.team)", ""), chainTier("a"), chainTier("b"), chainTierCheck)
	diags = plan()
	order := find(t, diags, impact.SummaryOrder, `Binding "chain-tier-a" of MutatingAdmissionPolicy "chain-tier-a", as planned`)
	tiered := listedRefs(order.Detail)
	for i := 3; i < chainObjects; i += 10 {
		if !tiered[ref(i)] {
			t.Errorf("the order warning does not name %s: %s", ref(i), order.Detail)
		}
	}
	if len(tiered) != 10 || !strings.Contains(order.Detail, "chain-tier-b") || !strings.Contains(order.Detail, "metadata.labels.tier") {
		t.Errorf("the order warning: %s", order.Detail)
	}
	apart := find(t, diags, impact.SummaryIncomplete, `Binding "chain-tier" of ValidatingAdmissionPolicy "chain-tier", as planned`)
	if !strings.Contains(apart.Detail, "cannot tell for 10 objects") || !strings.Contains(apart.Detail, "depends on the order") ||
		!strings.Contains(apart.Detail, "warned after") || !strings.Contains(apart.Detail, "admitted after") {
		t.Errorf("the validating policy's objects that turn on the order: %s", apart.Detail)
	}
	t.Logf("the order warning:\n%s\n\nthe objects apart:\n%s", order.Detail, apart.Detail)
	apply()

	// 3. The policy and its binding changed together: each denied object is named once, by
	// the policy's warning (planned first) or by the binding's.
	stricter := "has(object.metadata.labels.team) && !(object.metadata.labels.team == 'platform' && object.metadata.labels.app.endsWith('7'))"
	selector := `match_resources {
      object_selector {
        match_expressions {
          key      = "app"
          operator = "Exists"
        }
      }
    }`
	module(chainTeam(stricter, selector), chainTier("a"), chainTier("b"), chainTierCheck)
	diags = plan()
	namedBy := map[string]map[string]int{}
	var deniedIn []string
	for _, d := range diags {
		if !strings.Contains(d.Detail, `"chain-team-required"`) {
			continue
		}
		for _, list := range []struct{ summary, head string }{
			{impact.SummaryDeny, "deny"}, {impact.SummaryFlips, "flips"},
		} {
			if d.Summary != list.summary {
				continue
			}
			if list.head == "deny" {
				deniedIn = append(deniedIn, d.Detail)
			}
			if namedBy[list.head] == nil {
				namedBy[list.head] = map[string]int{}
			}
			for r := range listedRefs(d.Detail) {
				namedBy[list.head][r]++
			}
		}
	}
	if len(deniedIn) != 2 {
		t.Fatalf("want the denials of the policy and of the binding, got %d:\n%s", len(deniedIn), strings.Join(deniedIn, "\n\n"))
	}
	if n := len(namedBy["deny"]); n != 20 {
		t.Errorf("the denials name %d objects, want 20", n)
	}
	for head, refs := range namedBy {
		for r, n := range refs {
			if n > 1 {
				t.Errorf("%s: %s is named %d times", head, r, n)
			}
		}
	}
	if !strings.Contains(strings.Join(deniedIn, "\n"), "named in the same list of") {
		t.Errorf("the second warning does not say where the others are named:\n%s", strings.Join(deniedIn, "\n\n"))
	}
	t.Logf("the denials of the policy and its binding:\n%s", strings.Join(deniedIn, "\n\n"))
	apply()

	// 4. A policy that reads the writer: only the protected objects are apart.
	module(chainTeam(stricter, selector), chainTier("a"), chainTier("b"), chainTierCheck, chainProtected)
	diags = plan()
	protected := `Binding "chain-protected" of ValidatingAdmissionPolicy "chain-protected", as planned`
	none := find(t, diags, impact.SummaryNone, protected)
	if !strings.Contains(none.Detail, "that it could judge (96 objects; it cannot tell for 4 objects, below)") {
		t.Errorf("the protected objects: %s", none.Detail)
	}
	gap := find(t, diags, impact.SummaryIncomplete, protected)
	apartRefs := listedRefs(gap.Detail)
	for i := range chainObjects {
		if apartRefs[ref(i)] != (i%25 == 0) {
			t.Errorf("%s: counted apart %v: %s", ref(i), apartRefs[ref(i)], gap.Detail)
		}
	}

	fmt.Printf("impact: planned chain: %d/%d objects agree between the plan and the server's dry-run writes after both policies apply (denied %d, the mutating policy changes %d); plan %s; order-dependent objects warned %d; userInfo: %d of %d decided\n",
		agree, chainObjects, serverDenied, changed, planTime.Round(time.Millisecond), len(tiered), chainObjects-len(apartRefs), chainObjects)
}

// listedRefs are the objects a warning lists, one a line ("  ns/name" or "  ns/name: ...").
func listedRefs(detail string) map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(detail, "\n") {
		if !strings.HasPrefix(line, "  ") || strings.HasPrefix(line, "  and ") {
			continue
		}
		r, _, _ := strings.Cut(strings.TrimPrefix(line, "  "), ":")
		r, _, _ = strings.Cut(r, " ")
		out[strings.TrimSuffix(r, ".")] = true
	}
	return out
}

// listedCount is the number after prefix in detail ("would change 40 of").
func listedCount(t *testing.T, detail, prefix string) int {
	t.Helper()
	i := strings.Index(detail, prefix)
	if i < 0 {
		t.Fatalf("no %q in %s", prefix, detail)
	}
	var n int
	if _, err := fmt.Sscanf(detail[i+len(prefix):], "%d", &n); err != nil {
		t.Fatalf("no count after %q in %s", prefix, detail)
	}
	return n
}
