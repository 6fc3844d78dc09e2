package webhook_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/advice"
)

// installTwoVersionCRD creates plural.group served at v1 (stored) and v2, waits until
// discovery serves both, and deletes it when the test ends.
func installTwoVersionCRD(t *testing.T, group, plural, kind string) {
	t.Helper()
	cfg := acctest.Cluster(t).RESTConfig()
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	version := func(name string, storage bool) map[string]any {
		return map[string]any{"name": name, "served": true, "storage": storage,
			"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}
	}
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": plural + "." + group},
		"spec": map[string]any{
			"group": group, "scope": "Namespaced",
			"names":    map[string]any{"plural": plural, "singular": strings.ToLower(kind), "kind": kind, "listKind": kind + "List"},
			"versions": []any{version("v1", true), version("v2", false)},
		},
	}}
	ctx := context.Background()
	if _, err := dyn.Resource(lockoutCRDs).Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dyn.Resource(lockoutCRDs).Delete(ctx, crd.GetName(), metav1.DeleteOptions{}) })
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"v1", "v2"} {
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			list, err := dc.ServerResourcesForGroupVersion(group + "/" + v)
			if err == nil && slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == plural }) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s.%s/%s not in discovery after 60 s: %v", plural, group, v, err)
			}
		}
	}
}

// exactConfig is a fail-open validating configuration with one webhook on resources of group
// at versions, with match_policy policy.
func exactConfig(provider, group, resources, versions, policy string) string {
	return provider + fmt.Sprintf(`
resource "admission_validating_webhook_configuration" "test" {
  metadata {
    name = %q
  }
  webhook {
    name                      = "exact.example.com"
    admission_review_versions = ["v1"]
    side_effects              = "None"
    failure_policy            = "Ignore"
    match_policy              = %q
    client_config {
      url = "https://webhooks.example.com/exact"
    }
    rule {
      operations   = ["CREATE"]
      api_groups   = [%q]
      api_versions = %s
      resources    = [%q]
    }
  }
}
`, randomName(), policy, group, versions, resources)
}

// matchPolicy Exact on a custom resource served at two versions, read from the cluster's
// discovery at plan: the version the rule leaves out is named, on match_policy; a rule on both
// versions or Equivalent says nothing; without a cluster the custom resource is not known and
// nothing is said, while a built-in resource served at two versions (the embedded discovery)
// still is.
func TestAccExactMatchPolicy(t *testing.T) {
	t.Parallel() // plans only, on a CRD of its own
	const group, plural = "exact.example.com", "widgets"
	installTwoVersionCRD(t, group, plural, "Widget")
	provider := acctest.ProviderBlock(t)
	bypass := func(t *testing.T, cfg string) []acctest.Diagnostic {
		t.Helper()
		diags, ok := acctest.Plan(t, cfg)
		if !ok {
			t.Fatalf("the plan failed: %+v", diags)
		}
		var out []acctest.Diagnostic
		for _, d := range diags {
			switch d.Summary {
			case advice.SummaryExactBypass:
				out = append(out, d)
			case advice.SummaryServingUnchecked:
				// The URL's host (webhooks.example.com) is not there to check.
			default:
				t.Errorf("unexpected %s: %s: %s", d.Severity, d.Summary, d.Detail)
			}
		}
		return out
	}
	t.Run("v1 only", func(t *testing.T) {
		got := bypass(t, exactConfig(provider, group, plural, `["v1"]`, "Exact"))
		if len(got) != 1 || got[0].Snippet == nil || !strings.Contains(got[0].Snippet.Code, "match_policy") ||
			!strings.Contains(oneWord(got[0].Detail), "widgets.exact.example.com at v2 (the rule names v1)") {
			t.Fatalf("want one warning on match_policy naming v2, got %+v", got)
		}
		t.Logf("%s: %s", got[0].Summary, oneWord(got[0].Detail))
	})
	t.Run("both versions", func(t *testing.T) {
		if got := bypass(t, exactConfig(provider, group, plural, `["v1", "v2"]`, "Exact")); len(got) != 0 {
			t.Errorf("%+v", got)
		}
	})
	t.Run("equivalent", func(t *testing.T) {
		if got := bypass(t, exactConfig(provider, group, plural, `["v1"]`, "Equivalent")); len(got) != 0 {
			t.Errorf("%+v", got)
		}
	})
	t.Run("offline", func(t *testing.T) {
		if got := bypass(t, exactConfig(offlineProvider, group, plural, `["v1"]`, "Exact")); len(got) != 0 {
			t.Errorf("a custom resource without a cluster: %+v", got)
		}
		got := bypass(t, exactConfig(offlineProvider, "autoscaling", "horizontalpodautoscalers", `["v2"]`, "Exact"))
		if len(got) != 1 || !strings.Contains(oneWord(got[0].Detail), "horizontalpodautoscalers.autoscaling at v1 (the rule names v2)") {
			t.Errorf("a built-in resource without a cluster: %+v", got)
		}
	})
}
