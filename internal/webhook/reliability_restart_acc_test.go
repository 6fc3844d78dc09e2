package webhook_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest/controlplane"
)

// The API server itself goes away and comes back (its etcd, with the stored
// objects, stays): a plan while it is down fails after its read timeout,
// naming the object; the next run, once it is back, finds nothing to do; and
// a run during which it restarts rides out the outage and converges. It runs
// on a control plane of its own, so that the other tests keep theirs.
func TestAccReliabilityAPIServerRestarted(t *testing.T) {
	ctx := context.Background()
	cp, err := controlplane.Start(ctx, controlplane.Options{})
	if err != nil {
		t.Fatalf("starting a second control plane: %v", err)
	}
	t.Cleanup(func() { _ = cp.Stop() })
	cs, err := kubernetes.NewForConfig(cp.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	name := randomName()
	config := func(timeoutSeconds int, timeouts string) string {
		return fmt.Sprintf(`provider "admission" {
  host                   = %q
  token                  = %q
  cluster_ca_certificate = %q
}
`, cp.Host, cp.AdminToken, cp.CAPEM) + resourceBlock(t, name, timeoutSeconds, timeouts)
	}
	onServer := func(timeoutSeconds int32) resource.TestCheckFunc {
		return func(s *terraform.State) error {
			o, err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if got := *o.Webhooks[0].TimeoutSeconds; got != timeoutSeconds {
				return fmt.Errorf("server has timeoutSeconds %d, want %d", got, timeoutSeconds)
			}
			if rv := s.RootModule().Resources[resourceAddr].Primary.Attributes["metadata.0.resource_version"]; rv != o.ResourceVersion {
				return fmt.Errorf("state has resourceVersion %s, server %s", rv, o.ResourceVersion)
			}
			return nil
		}
	}
	var down time.Time
	restarted := make(chan error, 1)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			_, err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx, name, metav1.GetOptions{})
			if !apierrors.IsNotFound(err) {
				return fmt.Errorf("%s still exists after destroy (err=%v)", name, err)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{Config: config(10, `read = "5s"`), Check: onServer(10)},
			{
				// Down for the whole plan.
				PreConfig: func() {
					cp.StopAPIServer()
					down = time.Now()
				},
				Config:      config(10, `read = "5s"`),
				ExpectError: regexp.MustCompile(`(?s)Cannot read MutatingWebhookConfiguration "` + regexp.QuoteMeta(name) + `".*gave up after \d+ attempts.*connection refused`),
			},
			{
				// Back: nothing to do (the step fails on a non-empty plan
				// after its apply).
				PreConfig: func() {
					t.Logf("figures: API server stopped: plan failed after %s", time.Since(down).Round(10*time.Millisecond))
					if err := cp.StartAPIServer(ctx); err != nil {
						t.Fatalf("restarting kube-apiserver: %v", err)
					}
				},
				Config: config(10, `read = "5s"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
				Check: onServer(10),
			},
			// A refresh runs with the read timeout in the state: longer
			// ones for the next run.
			{Config: config(10, "read   = \"2m\"\n    update = \"2m\""), Check: onServer(10)},
			{
				// Down when the run starts and back a few seconds later,
				// within the read and update timeouts: the run converges.
				PreConfig: func() {
					cp.StopAPIServer()
					down = time.Now()
					go func() {
						time.Sleep(4 * time.Second)
						restarted <- cp.StartAPIServer(ctx)
					}()
				},
				Config: config(11, "read   = \"2m\"\n    update = \"2m\""),
				Check: resource.ComposeAggregateTestCheckFunc(
					func(*terraform.State) error {
						if err := <-restarted; err != nil {
							return fmt.Errorf("restarting kube-apiserver: %w", err)
						}
						t.Logf("figures: API server restarted during the run: converged %s after it went down", time.Since(down).Round(10*time.Millisecond))
						return nil
					},
					onServer(11),
				),
			},
		},
	})
}
