package impact_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/impact"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/provider"
)

// BenchmarkAccPlanImpact10000 is the plan of a policy and binding that match 10,000 ConfigMaps
// a local kube-apiserver holds (seeded once, in one namespace; every hundredth denied), all
// examined (impact_max_objects = 10000): impact-added-s is the plan's time less that of the
// same plan with the impact off (impact_max_objects = 0), and peak-RSS-MiB the peak resident
// memory of this process, which serves the provider (the seeding client included). It needs
// TF_ACC, like the acceptance tests. Goal: at most 5 s added and 300 MiB.
func BenchmarkAccPlanImpact10000(b *testing.B) {
	cp := acctest.Cluster(b)
	const n = 10000
	cfg := rest.CopyConfig(cp.RESTConfig())
	cfg.QPS, cfg.Burst = 500, 1000
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	began := time.Now()
	seedConfigMaps(b, ctx, dyn, "bench", n)
	b.Logf("seeded %d ConfigMaps in %s", n, time.Since(began).Round(time.Millisecond))

	plan := func(maxObjects int) time.Duration {
		w := newWorkspaceFor(b, cp.KubeconfigPath, fmt.Sprintf(benchConfig, cp.KubeconfigPath, maxObjects))
		began := time.Now()
		out, ok := w.run(b, "plan", "-json", "-input=false", "-lock=false")
		took := time.Since(began)
		if !ok {
			b.Fatalf("plan:\n%s", out)
		}
		if maxObjects > 0 {
			d := find(b, diagnostics(out), impact.SummaryDeny, `Binding "bench"`)
			if !strings.Contains(d.Detail, "would deny 100 of the 10,000 existing ConfigMaps") {
				b.Fatalf("the impact: %s", d.Detail)
			}
		}
		return took
	}
	var with, without time.Duration
	for b.Loop() {
		without += plan(0)
		with += plan(n)
	}
	b.ReportMetric((with-without).Seconds()/float64(b.N), "impact-added-s")
	b.ReportMetric(with.Seconds()/float64(b.N), "plan-s")
	if mib, ok := peakRSS(); ok {
		b.ReportMetric(mib, "peak-RSS-MiB")
	}
}

const benchConfig = `
provider "admission" {
  config_path        = %q
  impact_max_objects = %d
  impact_timeout     = "60s"
}

resource "admission_validating_admission_policy" "bench" {
  metadata { name = "bench" }
  spec {
    match_constraints {
      resource_rules {
        operations   = ["CREATE", "UPDATE"]
        api_groups   = [""]
        api_versions = ["v1"]
        resources    = ["configmaps"]
      }
      namespace_selector {
        match_labels = { "kubernetes.io/metadata.name" = "bench" }
      }
    }
    validations {
      expression = "!has(object.data) || !('k' in object.data) || object.data.k != 'bad'"
      message    = "k may not be bad"
    }
  }
}

resource "admission_validating_admission_policy_binding" "bench" {
  metadata { name = "bench" }
  spec {
    policy_name        = admission_validating_admission_policy.bench.metadata[0].name
    validation_actions = ["Deny"]
  }
}
`

func seedConfigMaps(b *testing.B, ctx context.Context, dyn dynamic.Interface, ns string, n int) {
	b.Helper()
	nsGVR := schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	if _, err := dyn.Resource(nsGVR).Create(ctx, &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace",
		"metadata": map[string]any{"name": ns}}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < n; i += 8 {
				v := "good"
				if i%100 == 0 {
					v = "bad"
				}
				obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
					"metadata": map[string]any{"name": fmt.Sprintf("c-%d", i)}, "data": map[string]any{"k": v, "pad": strings.Repeat("x", 200)}}}
				if _, err := dyn.Resource(configMapsGVR).Namespace(ns).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}

// newWorkspaceFor is a workspace of the module cfg (a provider block and resources).
func newWorkspaceFor(t testing.TB, kubeconfig, cfg string) *workspace {
	t.Helper()
	address := "registry.terraform.io/seed-a73d233f/admission"
	providers := serveQuietly(t, address)
	tf := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if tf == "" {
		t.Fatal("TF_ACC_TERRAFORM_PATH is not set (make test sets it)")
	}
	w := &workspace{dir: t.TempDir(), kubeconfig: kubeconfig, tf: tf,
		env: append(os.Environ(), "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1", "TF_REATTACH_PROVIDERS="+providers)}
	module := acctest.RequiredProviders(address) + cfg
	if err := os.WriteFile(filepath.Join(w.dir, "main.tf"), []byte(module), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, ok := w.run(t, "init", "-input=false", "-backend=false"); !ok {
		t.Fatalf("terraform init:\n%s", out)
	}
	return w
}

// serveQuietly serves the provider from this process as acctest.ServeProvider does, without
// its logs (which a benchmark would measure), and stops it when t is done.
func serveQuietly(t testing.TB, address string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	reattach := make(chan *plugin.ReattachConfig)
	closed := make(chan struct{})
	go func() {
		if err := tf6server.Serve(address, provider.NewServer("bench"), tf6server.WithDebug(ctx, reattach, closed)); err != nil {
			t.Errorf("serve the provider: %v", err)
		}
	}()
	rc := <-reattach
	t.Cleanup(func() { cancel(); <-closed })
	providers, err := json.Marshal(map[string]any{address: map[string]any{
		"Protocol": "grpc", "ProtocolVersion": 6, "Pid": rc.Pid, "Test": true,
		"Addr": map[string]string{"Network": rc.Addr.Network(), "String": rc.Addr.String()},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return string(providers)
}

// peakRSS is this process's peak resident memory in MiB (VmHWM of /proc/self/status, Linux).
func peakRSS() (float64, bool) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024, err == nil
		}
	}
	return 0, false
}
