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
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/advice"
)

var lockoutCRDs = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// installCRD creates a CustomResourceDefinition of plural.<group> with the given scope on the
// local control plane, waits until discovery serves it, and deletes it when the test ends.
func installCRD(t *testing.T, group, plural, kind, scope string) {
	t.Helper()
	cfg := acctest.Cluster(t).RESTConfig()
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": plural + "." + group},
		"spec": map[string]any{
			"group": group, "scope": scope,
			"names": map[string]any{"plural": plural, "singular": strings.ToLower(kind), "kind": kind, "listKind": kind + "List"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}},
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
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		list, err := dc.ServerResourcesForGroupVersion(group + "/v1")
		if err == nil && slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == plural }) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s.%s not in discovery after 60 s: %v", plural, group, err)
		}
	}
}

// slowHooksConfig is a mutating configuration of two fail-closed webhooks of 20 s each, whose
// rules name only plural.group, and only its namespaced objects (scope Namespaced): every
// namespaced object of that resource waits for both, 40 s; a cluster-scoped resource is
// matched by neither.
func slowHooksConfig(providerBlock, name, group, plural string) string {
	hook := func(n string) string {
		return fmt.Sprintf(`
  webhook {
    name                      = "%s.lockout.example.com"
    admission_review_versions = ["v1"]
    side_effects              = "None"
    failure_policy            = "Fail"
    timeout_seconds           = 20
    client_config {
      url = "https://webhooks.example.com/%s"
    }
    rule {
      operations   = ["CREATE"]
      api_groups   = [%q]
      api_versions = ["v1"]
      resources    = [%q]
      scope        = "Namespaced"
    }
  }`, n, n, group, plural)
	}
	return providerBlock + fmt.Sprintf(`
resource "admission_mutating_webhook_configuration" "test" {
  metadata {
    name = %q
  }%s%s
}
`, name, hook("first"), hook("second"))
}

// The scope of a custom resource, read from the live server's discovery at plan, decides the
// timeouts warning: a namespaced resource warns, a cluster-scoped one (which the rules' scope
// Namespaced leaves out) does not, and a resource the cluster does not serve gets no claim.
func TestAccLockoutLiveScope(t *testing.T) {
	const group = "lockout.example.com"
	installCRD(t, group, "clusterwidgets", "ClusterWidget", "Cluster")
	installCRD(t, group, "widgets", "Widget", "Namespaced")
	cases := []struct {
		name, plural string
		offline      bool
		warn         bool
	}{
		{"cluster-scoped", "clusterwidgets", false, false},
		{"namespaced", "widgets", false, true},
		{"not served", "gizmos", false, false},          // its scope is unknown: no claim
		{"namespaced, offline", "widgets", true, false}, // without the cluster the scope is unknown
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			provider := acctest.ProviderBlock(t)
			if tc.offline {
				provider = offlineProvider
			}
			diags, ok := acctest.Plan(t, slowHooksConfig(provider, randomName(), group, tc.plural))
			if !ok {
				t.Fatalf("plan failed: %+v", diags)
			}
			var warned []acctest.Diagnostic
			for _, d := range diags {
				if d.Summary == advice.SummaryFailClosedTimeouts {
					warned = append(warned, d)
				} else if d.Severity == "warning" && strings.HasPrefix(d.Summary, "Fail-closed") {
					t.Errorf("unexpected warning %s: %s", d.Summary, d.Detail)
				}
			}
			if tc.warn != (len(warned) == 1) {
				t.Fatalf("timeouts warning given %d times, want %v: %+v", len(warned), tc.warn, diags)
			}
			for _, d := range warned {
				t.Logf("%s: %s", d.Summary, d.Detail)
			}
			if tc.warn && (!strings.Contains(warned[0].Detail, "add up to 40 s") || !strings.Contains(warned[0].Detail, "widgets in namespace")) {
				t.Errorf("warning: %s", warned[0].Detail)
			}
		})
	}
}
