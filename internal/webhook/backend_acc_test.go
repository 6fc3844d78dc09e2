package webhook_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/advice"
)

// backendConfig is a validating configuration named name with one webhook on configmaps in
// namespaces labelled backend-acc=yes (none: the webhook intercepts nothing of the cluster's
// own), served by the service service (an HCL expression) in namespace on port; extra goes in
// the resource's body.
func backendConfig(provider, name, failurePolicy, namespace, service string, port int, extra string) string {
	return provider + fmt.Sprintf(`
resource "admission_validating_webhook_configuration" "test" {
  metadata {
    name = %q
  }
  %s
  webhook {
    name                      = "check.backend.example.com"
    admission_review_versions = ["v1"]
    side_effects              = "None"
    failure_policy            = %q
    client_config {
      service {
        namespace = %q
        name      = %s
        port      = %d
      }
    }
    rule {
      operations   = ["CREATE"]
      api_groups   = [""]
      api_versions = ["v1"]
      resources    = ["configmaps"]
    }
    namespace_selector {
      match_labels = {
        "backend-acc" = "yes"
      }
    }
  }
}
`, name, extra, failurePolicy, namespace, service, port)
}

// backendNamespace makes a namespace for a test, and deletes it after.
func backendNamespace(t *testing.T, cs kubernetes.Interface, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := cs.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{}) })
}

// createService makes the Service name in namespace with one port 443 named https.
func createService(t *testing.T, cs kubernetes.Interface, namespace, name string) {
	t.Helper()
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "https", Port: 443}}}}
	if _, err := cs.CoreV1().Services(namespace).Create(context.Background(), svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// createReadyEndpoint makes an EndpointSlice of the Service name with one ready address
// serving its port https, as the EndpointSlice controller would for a ready pod (the local
// control plane runs no controllers).
func createReadyEndpoint(t *testing.T, cs kubernetes.Interface, namespace, name string) error {
	ready, port, portName := true, int32(9443), "https"
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: name + "-1", Namespace: namespace, Labels: map[string]string{discoveryv1.LabelServiceName: name}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: &portName, Port: &port}},
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.7"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}},
	}
	_, err := cs.DiscoveryV1().EndpointSlices(namespace).Create(context.Background(), slice, metav1.CreateOptions{})
	return err
}

// backendWarnings are the warnings of a plan of cfg about webhooks' services, and whether the
// plan succeeded.
func backendWarnings(t *testing.T, cfg string) ([]acctest.Diagnostic, []acctest.Diagnostic) {
	t.Helper()
	diags, ok := acctest.Plan(t, cfg)
	if !ok {
		t.Fatalf("the plan failed: %+v", diags)
	}
	var backend, others []acctest.Diagnostic
	for _, d := range diags {
		switch {
		case d.Severity != "warning":
			t.Errorf("unexpected %s: %s: %s", d.Severity, d.Summary, d.Detail)
		case d.Summary == advice.SummaryNoService || d.Summary == advice.SummaryNoPort || d.Summary == advice.SummaryNoEndpoint ||
			d.Summary == advice.SummaryUnread:
			backend = append(backend, d)
		default:
			others = append(others, d)
		}
	}
	return backend, others
}

// A fail-closed webhook's service, looked up at plan: missing, without a ready endpoint, without
// the port, and ready; each warning once, on the service block, naming what fails; nothing for
// a fail-open webhook, a service not known until apply, a webhook the apply waits for, a
// cluster that cannot be reached; a service the provider may not read is said once.
func TestAccBackendAtPlan(t *testing.T) {
	t.Parallel() // plans only, in a namespace of its own
	cs := acctest.Clientset(t)
	const ns = "backend-plan"
	backendNamespace(t, cs, ns)
	provider := acctest.ProviderBlock(t)
	plan := func(t *testing.T, failurePolicy, service string, port int, extra string) []acctest.Diagnostic {
		t.Helper()
		backend, _ := backendWarnings(t, backendConfig(provider, randomName(), failurePolicy, ns, service, port, extra))
		for _, d := range backend {
			t.Logf("%s: %s", d.Summary, oneWord(d.Detail))
		}
		return backend
	}
	onServiceBlock := func(t *testing.T, d acctest.Diagnostic) {
		t.Helper()
		if d.Snippet == nil || !strings.Contains(d.Snippet.Code, "service {") {
			t.Errorf("%s is not on the service block: %+v", d.Summary, d.Snippet)
		}
	}
	one := func(t *testing.T, got []acctest.Diagnostic, summary string, says ...string) {
		t.Helper()
		if len(got) != 1 || got[0].Summary != summary {
			t.Fatalf("want one warning %q, got %+v", summary, got)
		}
		onServiceBlock(t, got[0])
		for _, s := range says {
			if !strings.Contains(oneWord(got[0].Detail), s) {
				t.Errorf("the warning does not say %q: %s", s, oneWord(got[0].Detail))
			}
		}
	}

	t.Run("missing", func(t *testing.T) {
		one(t, plan(t, "Fail", `"hooks"`, 443, ""), advice.SummaryNoService,
			`its service "hooks" in namespace "backend-plan" does not exist in the cluster`, "rejects every request the webhook matches",
			"(CREATE of configmaps, in the namespaces its namespace selector takes)", `with the error: failed calling webhook "check.backend.example.com": services "hooks" not found.`, "wait_for_endpoints = true")
	})
	t.Run("fail open", func(t *testing.T) {
		if got := plan(t, "Ignore", `"hooks"`, 443, ""); len(got) != 0 {
			t.Errorf("a fail-open webhook: %+v", got)
		}
	})
	t.Run("a service known only at apply", func(t *testing.T) {
		cfg := `
resource "terraform_data" "service" {
  input = "hooks"
}
`
		backend, _ := backendWarnings(t, cfg+backendConfig(provider, randomName(), "Fail", ns, `terraform_data.service.output`, 443, ""))
		if len(backend) != 0 {
			t.Errorf("a service name not known yet: %+v", backend)
		}
	})
	t.Run("the apply waits", func(t *testing.T) {
		if got := plan(t, "Fail", `"hooks"`, 443, "wait_for_endpoints = true"); len(got) != 0 {
			t.Errorf("wait_for_endpoints: %+v", got)
		}
	})
	t.Run("offline", func(t *testing.T) {
		if got := plan(t, "Fail", `"hooks"`, 443, ""); len(got) == 0 {
			t.Fatal("the check is not made")
		}
		backend, _ := backendWarnings(t, backendConfig(offlineProvider, randomName(), "Fail", ns, `"hooks"`, 443, ""))
		if len(backend) != 0 {
			t.Errorf("without a cluster: %+v", backend)
		}
	})
	t.Run("forbidden", func(t *testing.T) {
		// Two webhooks whose services the provider may not read: said once.
		nobody := fmt.Sprintf("provider \"admission\" {\n  host = %q\n  token = %q\n  cluster_ca_certificate = %q\n  dry_run_on_plan = false\n}\n",
			acctest.Cluster(t).Host, acctest.Cluster(t).UserToken("nobody"), string(acctest.Cluster(t).CAPEM))
		cfg := backendConfig(nobody, randomName(), "Fail", ns, `"hooks"`, 443, "")
		end := strings.LastIndex(cfg, "\n}\n")
		second := strings.Replace(cfg[strings.Index(cfg, "  webhook {"):end], "check.backend.example.com", "second.backend.example.com", 1)
		cfg = cfg[:end] + "\n" + second + cfg[end:]
		backend, _ := backendWarnings(t, cfg)
		if len(backend) != 1 || backend[0].Summary != advice.SummaryUnread || !strings.Contains(oneWord(backend[0].Detail), "forbidden") {
			t.Fatalf("want one warning that the service could not be read, got %+v", backend)
		}
		onServiceBlock(t, backend[0])
	})

	createService(t, cs, ns, "hooks")
	t.Run("no endpoint", func(t *testing.T) {
		one(t, plan(t, "Fail", `"hooks"`, 443, ""), advice.SummaryNoEndpoint,
			`its service "hooks" in namespace "backend-plan" has no ready endpoint for port 443`, `no endpoints available for service "hooks"`)
	})
	t.Run("another port", func(t *testing.T) {
		one(t, plan(t, "Fail", `"hooks"`, 8443, ""), advice.SummaryNoPort,
			`has no port 8443 (it has 443 (https))`, `no service port 8443 found for service "hooks"`)
	})
	if err := createReadyEndpoint(t, cs, ns, "hooks"); err != nil {
		t.Fatal(err)
	}
	t.Run("ready", func(t *testing.T) {
		if got := plan(t, "Fail", `"hooks"`, 443, ""); len(got) != 0 {
			t.Errorf("a service with a ready endpoint: %+v", got)
		}
	})
}

// wait_for_endpoints: a configuration applied while its service has no endpoint is written
// only once the endpoint is ready (the EndpointSlice is made a few seconds into the apply);
// when the time runs out the apply fails with what it waited for, and writes nothing.
func TestAccWaitForEndpoints(t *testing.T) {
	t.Parallel() // in a namespace of its own
	cs := acctest.Clientset(t)
	const ns = "backend-wait"
	backendNamespace(t, cs, ns)
	provider := acctest.ProviderBlock(t)

	name := randomName()
	var ready time.Time
	errs := make(chan error, 1)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if _, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(context.Background(), name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("%s still exists after destroy (err=%v)", name, err)
			}
			return nil
		},
		Steps: []resource.TestStep{{
			PreConfig: func() {
				// The Service comes at once, its endpoint a few seconds later, as a
				// Deployment's pods become ready.
				createService(t, cs, ns, "later")
				go func() {
					time.Sleep(8 * time.Second)
					ready = time.Now()
					errs <- createReadyEndpoint(t, cs, ns, "later")
				}()
			},
			Config: backendConfig(provider, name, "Fail", ns, `"later"`, 443, "wait_for_endpoints = true"),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("admission_validating_webhook_configuration.test", "wait_for_endpoints", "true"),
				func(*terraform.State) error {
					if err := <-errs; err != nil {
						return err
					}
					obj, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(context.Background(), name, metav1.GetOptions{})
					if err != nil {
						return err
					}
					// creationTimestamp has whole seconds.
					if created := obj.CreationTimestamp.Time; created.Before(ready.Truncate(time.Second)) {
						return fmt.Errorf("the configuration was created at %s, before its service's endpoint was ready at %s", created, ready)
					}
					return nil
				},
			),
		}},
	})

	never := randomName()
	createService(t, cs, ns, "never")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: backendConfig(provider, never, "Fail", ns, `"never"`, 443, "wait_for_endpoints = true\n  timeouts {\n    create = \"6s\"\n  }"),
			ExpectError: regexp.MustCompile(`(?s)` + words(`Timed out waiting for the webhook's service`) + `.*` +
				words(`wait_for_endpoints is set: waited`) + `\s+\d+s\s+` + words(`for service "never" in namespace "backend-wait" to have a ready endpoint on port 443`) +
				`.*` + words(`the last look found: no endpoints available for service "never". Nothing was written`)),
		}},
	})
	if _, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(context.Background(), never, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the configuration whose service never had an endpoint was written: %v", err)
	}
}
