package webhook_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	sdkacctest "github.com/hashicorp/terraform-plugin-testing/helper/acctest"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
)

const resourceAddr = "admission_mutating_webhook_configuration.test"

func randomName() string { return sdkacctest.RandomWithPrefix("acc") + ".example.com" }

// minimalConfig sets only what the server requires.
func minimalConfig(t *testing.T, name string) string {
	return acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "admission_mutating_webhook_configuration" "test" {
  metadata {
    name = %q
  }
  webhook {
    name                      = "minimal.example.com"
    admission_review_versions = ["v1"]
    side_effects              = "None"
    client_config {
      service {
        namespace = "default"
        name      = "injector"
      }
    }
  }
}
`, name)
}

func get(t *testing.T, cs kubernetes.Interface, name string) *admissionregistrationv1.MutatingWebhookConfiguration {
	t.Helper()
	obj, err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get %s: %v", name, err)
	}
	return obj
}

// checkServer runs check on the object as the server stores it.
func checkServer(t *testing.T, name string, check func(*admissionregistrationv1.MutatingWebhookConfiguration) error) resource.TestCheckFunc {
	return func(*terraform.State) error {
		return check(get(t, acctest.Clientset(t), name))
	}
}

func checkGone(t *testing.T, name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		_, err := acctest.Clientset(t).AdmissionregistrationV1().MutatingWebhookConfigurations().Get(context.Background(), name, metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("%s still exists after destroy (err=%v)", name, err)
		}
		return nil
	}
}

func webhookPath(i int, names ...any) tfjsonpath.Path {
	p := tfjsonpath.New("webhook").AtSliceIndex(i)
	for _, n := range names {
		switch n := n.(type) {
		case string:
			p = p.AtMapKey(n)
		case int:
			p = p.AtSliceIndex(n)
		}
	}
	return p
}

func TestAccMinimalShowsServerDefaults(t *testing.T) {
	name := randomName()
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkGone(t, name),
		Steps: []resource.TestStep{{
			Config: minimalConfig(t, name),
			// The plan's dry run found the name free: the generation is
			// known at plan, and the apply writes without reading first.
			// The id stays known after apply: other resources refer to it.
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue(resourceAddr, tfjsonpath.New("metadata").AtSliceIndex(0).AtMapKey("generation"), knownvalue.Int64Exact(1)),
				plancheck.ExpectUnknownValue(resourceAddr, tfjsonpath.New("id")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(resourceAddr, tfjsonpath.New("id"), knownvalue.StringExact(name)),
				statecheck.ExpectKnownValue(resourceAddr, webhookPath(0, "failure_policy"), knownvalue.StringExact("Fail")),
				statecheck.ExpectKnownValue(resourceAddr, webhookPath(0, "match_policy"), knownvalue.StringExact("Equivalent")),
				statecheck.ExpectKnownValue(resourceAddr, webhookPath(0, "reinvocation_policy"), knownvalue.StringExact("Never")),
				statecheck.ExpectKnownValue(resourceAddr, webhookPath(0, "timeout_seconds"), knownvalue.Int64Exact(10)),
				statecheck.ExpectKnownValue(resourceAddr, webhookPath(0, "client_config", 0, "service", 0, "port"), knownvalue.Int64Exact(443)),
				statecheck.ExpectKnownValue(resourceAddr, webhookPath(0, "client_config", 0, "ca_bundle"), knownvalue.Null()),
				statecheck.ExpectKnownValue(resourceAddr, webhookPath(0, "namespace_selector"), knownvalue.ListSizeExact(0)),
				statecheck.ExpectKnownValue(resourceAddr, tfjsonpath.New("metadata").AtSliceIndex(0).AtMapKey("generation"), knownvalue.Int64Exact(1)),
				statecheck.ExpectKnownValue(resourceAddr, tfjsonpath.New("metadata").AtSliceIndex(0).AtMapKey("uid"), knownvalue.NotNull()),
			},
			Check: checkServer(t, name, func(o *admissionregistrationv1.MutatingWebhookConfiguration) error {
				w := o.Webhooks[0]
				if *w.FailurePolicy != admissionregistrationv1.Fail || *w.TimeoutSeconds != 10 || *w.ClientConfig.Service.Port != 443 {
					return fmt.Errorf("server object lacks the expected defaults: %+v", w)
				}
				if w.NamespaceSelector == nil || len(w.NamespaceSelector.MatchLabels)+len(w.NamespaceSelector.MatchExpressions) != 0 {
					return fmt.Errorf("namespaceSelector = %+v, want {}", w.NamespaceSelector)
				}
				return nil
			}),
		}, {
			// An empty selector block is what the server stores anyway: no diff.
			Config: replaceOnce(minimalConfig(t, name), `client_config {`, `namespace_selector {}
    object_selector {
      match_labels = {}
    }
    client_config {`),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(resourceAddr, webhookPath(0, "namespace_selector"), knownvalue.ListSizeExact(1)),
				statecheck.ExpectKnownValue(resourceAddr, webhookPath(0, "object_selector", 0, "match_labels"), knownvalue.MapSizeExact(0)),
			},
		}},
	})
}

var caPEM = selfSignedCA("injector-ca")

// fullConfig sets every attribute of the resource.
func fullConfig(t *testing.T, name, timeout, policy string) string {
	return acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "admission_mutating_webhook_configuration" "test" {
  metadata {
    name        = %[1]q
    labels      = { app = "injector", tier = "platform" }
    annotations = { "example.com/owner" = "platform-team" }
    finalizers  = ["example.com/keep"]
    owner_references {
      api_version          = "v1"
      kind                 = "Namespace"
      name                 = "injector-system"
      uid                  = "6b0f1a59-7d6f-4a0e-9a7c-1d2f3e4a5b6c"
      block_owner_deletion = false
      controller           = false
    }
  }

  webhook {
    name                      = "sidecar.injector.example.com"
    admission_review_versions = ["v1", "v1beta1"]
    side_effects              = "NoneOnDryRun"
    failure_policy            = %[3]q
    match_policy              = "Exact"
    reinvocation_policy       = "IfNeeded"
    timeout_seconds           = %[2]s

    client_config {
      ca_bundle = %[4]q
      service {
        namespace = "injector-system"
        name      = "injector"
        path      = "/mutate/pods"
        port      = 8443
      }
    }

    rule {
      operations   = ["CREATE", "UPDATE"]
      api_groups   = [""]
      api_versions = ["v1"]
      resources    = ["pods", "pods/status"]
      scope        = "Namespaced"
    }
    rule {
      operations   = ["*"]
      api_groups   = ["apps"]
      api_versions = ["*"]
      resources    = ["deployments"]
    }

    namespace_selector {
      match_labels = { injection = "enabled" }
      match_expressions {
        key      = "kubernetes.io/metadata.name"
        operator = "NotIn"
        values   = ["kube-system", "injector-system"]
      }
    }
    object_selector {
      match_expressions {
        key      = "sidecar.example.com/inject"
        operator = "Exists"
      }
    }

    match_conditions {
      name       = "not-a-node"
      expression = "!(request.userInfo.username.startsWith('system:node:'))"
    }
    match_conditions {
      name       = "has-containers"
      expression = "object != null && has(object.spec)"
    }
  }

  webhook {
    name                      = "external.injector.example.com"
    admission_review_versions = ["v1"]
    side_effects              = "None"
    client_config {
      url = "https://injector.example.com:9443/mutate"
    }
    rule {
      operations   = ["CREATE"]
      api_groups   = ["batch"]
      api_versions = ["v1"]
      resources    = ["jobs"]
      scope        = "*"
    }
  }

  # The finalizer above would hold a deletion forever: bound the wait.
  timeouts {
    delete = "30s"
  }
}
`, name, timeout, policy, caPEM)
}

func TestAccFullConfigImportAndUpdate(t *testing.T) {
	name := randomName()
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkGone(t, name),
		Steps: []resource.TestStep{
			{
				Config: fullConfig(t, name, "5", "Ignore"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(resourceAddr, webhookPath(0, "timeout_seconds"), knownvalue.Int64Exact(5)),
					statecheck.ExpectKnownValue(resourceAddr, webhookPath(0, "client_config", 0, "ca_bundle"), knownvalue.StringExact(caPEM)),
					statecheck.ExpectKnownValue(resourceAddr, webhookPath(1, "namespace_selector"), knownvalue.ListSizeExact(0)),
					statecheck.ExpectKnownValue(resourceAddr, webhookPath(0, "match_conditions"), knownvalue.ListSizeExact(2)),
				},
				Check: checkServer(t, name, func(o *admissionregistrationv1.MutatingWebhookConfiguration) error {
					w := o.Webhooks[0]
					switch {
					case string(w.ClientConfig.CABundle) != caPEM:
						return fmt.Errorf("caBundle = %q", w.ClientConfig.CABundle)
					case *w.ClientConfig.Service.Port != 8443 || *w.ClientConfig.Service.Path != "/mutate/pods":
						return fmt.Errorf("service = %+v", w.ClientConfig.Service)
					case *w.ReinvocationPolicy != admissionregistrationv1.IfNeededReinvocationPolicy || *w.MatchPolicy != admissionregistrationv1.Exact:
						return fmt.Errorf("policies = %v %v", *w.ReinvocationPolicy, *w.MatchPolicy)
					case len(w.MatchConditions) != 2 || w.MatchConditions[1].Name != "has-containers":
						return fmt.Errorf("matchConditions = %+v", w.MatchConditions)
					case o.Labels["tier"] != "platform" || o.Finalizers[0] != "example.com/keep" || o.OwnerReferences[0].Kind != "Namespace":
						return fmt.Errorf("metadata = %+v", o.ObjectMeta)
					case *o.Webhooks[1].ClientConfig.URL != "https://injector.example.com:9443/mutate":
						return fmt.Errorf("url = %v", *o.Webhooks[1].ClientConfig.URL)
					}
					return nil
				}),
			},
			{
				ResourceName:      resourceAddr,
				ImportState:       true,
				ImportStateId:     name,
				ImportStateVerify: true,
				// Operation timeouts are settings of the resource, not of the object.
				ImportStateVerifyIgnore: []string{"timeouts"},
			},
			{
				Config: fullConfig(t, name, "20", "Fail"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(resourceAddr, plancheck.ResourceActionUpdate),
				}},
				Check: checkServer(t, name, func(o *admissionregistrationv1.MutatingWebhookConfiguration) error {
					if *o.Webhooks[0].TimeoutSeconds != 20 || *o.Webhooks[0].FailurePolicy != admissionregistrationv1.Fail {
						return fmt.Errorf("update not stored: timeout=%d policy=%s", *o.Webhooks[0].TimeoutSeconds, *o.Webhooks[0].FailurePolicy)
					}
					if o.Generation != 2 {
						return fmt.Errorf("generation = %d, want 2", o.Generation)
					}
					return nil
				}),
			},
			{
				// Removing optional attributes removes them from the object
				// (and the server's defaults come back).
				Config: minimalConfig(t, name),
				Check: checkServer(t, name, func(o *admissionregistrationv1.MutatingWebhookConfiguration) error {
					switch {
					case len(o.Webhooks) != 1 || o.Webhooks[0].Name != "minimal.example.com":
						return fmt.Errorf("webhooks = %+v", o.Webhooks)
					case len(o.Labels) != 0 || len(o.Annotations) != 0 || len(o.Finalizers) != 0 || len(o.OwnerReferences) != 0:
						return fmt.Errorf("metadata left behind: %+v", o.ObjectMeta)
					case *o.Webhooks[0].TimeoutSeconds != 10:
						return fmt.Errorf("timeout = %d", *o.Webhooks[0].TimeoutSeconds)
					}
					return nil
				}),
			},
		},
	})
}

func TestAccDriftIsShownAndRepaired(t *testing.T) {
	name := randomName()
	cs := acctest.Clientset(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkGone(t, name),
		Steps: []resource.TestStep{
			{Config: minimalConfig(t, name)},
			{
				// Someone edits the object (as kubectl edit does).
				PreConfig: func() {
					o := get(t, cs, name)
					o.Webhooks[0].TimeoutSeconds = ptr(int32(29))
					o.Webhooks[0].FailurePolicy = ptr(admissionregistrationv1.Ignore)
					if _, err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Update(context.Background(), o, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
						t.Fatal(err)
					}
				},
				Config: minimalConfig(t, name),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(resourceAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(resourceAddr, webhookPath(0, "timeout_seconds"), knownvalue.Int64Exact(10)),
				}},
				Check: checkServer(t, name, func(o *admissionregistrationv1.MutatingWebhookConfiguration) error {
					if *o.Webhooks[0].TimeoutSeconds != 10 || *o.Webhooks[0].FailurePolicy != admissionregistrationv1.Fail {
						return fmt.Errorf("drift not repaired: timeout=%d policy=%s", *o.Webhooks[0].TimeoutSeconds, *o.Webhooks[0].FailurePolicy)
					}
					return nil
				}),
			},
			{
				// Someone deletes it: the plan creates it again.
				PreConfig: func() {
					if err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: minimalConfig(t, name),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(resourceAddr, plancheck.ResourceActionCreate),
				}},
				Check: checkServer(t, name, func(o *admissionregistrationv1.MutatingWebhookConfiguration) error { return nil }),
			},
		},
	})
}

func TestAccInjectedCABundleIsLeftAlone(t *testing.T) {
	name := randomName()
	cs := acctest.Clientset(t)
	injected := caPEM
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkGone(t, name),
		Steps: []resource.TestStep{
			{Config: minimalConfig(t, name)},
			{
				// A CA injector (as cert-manager's cainjector) fills the bundle.
				PreConfig: func() {
					patch := fmt.Sprintf(`{"webhooks":[{"name":"minimal.example.com","clientConfig":{"caBundle":%q}}]}`, b64(injected))
					_, err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Patch(context.Background(), name,
						types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{FieldManager: "cert-manager-cainjector"})
					if err != nil {
						t.Fatal(err)
					}
				},
				Config: minimalConfig(t, name),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(resourceAddr, webhookPath(0, "client_config", 0, "ca_bundle"), knownvalue.StringExact(injected)),
				},
			},
			{
				// Changing another field keeps the injected bundle.
				Config: replaceOnce(minimalConfig(t, name), `side_effects              = "None"`, `side_effects              = "None"
    timeout_seconds           = 7`),
				Check: checkServer(t, name, func(o *admissionregistrationv1.MutatingWebhookConfiguration) error {
					if string(o.Webhooks[0].ClientConfig.CABundle) != injected || *o.Webhooks[0].TimeoutSeconds != 7 {
						return fmt.Errorf("caBundle=%q timeout=%d", o.Webhooks[0].ClientConfig.CABundle, *o.Webhooks[0].TimeoutSeconds)
					}
					return nil
				}),
			},
		},
	})
}

func TestAccConflictWithAnotherApplierIsAnError(t *testing.T) {
	name := randomName()
	cs := acctest.Clientset(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkGone(t, name),
		Steps: []resource.TestStep{
			{Config: minimalConfig(t, name)},
			{
				// Another tool declares timeoutSeconds with server-side apply.
				PreConfig: func() {
					patch := `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingWebhookConfiguration","metadata":{"name":"` + name + `"},` +
						`"webhooks":[{"name":"minimal.example.com","timeoutSeconds":25}]}`
					force := true
					_, err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Patch(context.Background(), name,
						types.ApplyPatchType, []byte(patch), metav1.PatchOptions{FieldManager: "other-gitops-tool", Force: &force})
					if err != nil {
						t.Fatal(err)
					}
				},
				Config:      minimalConfig(t, name),
				ExpectError: regexp.MustCompile(`(?s)timeoutSeconds.*other-gitops-tool.*force_conflicts`),
			},
			{
				// force_conflicts takes the field back.
				Config: replaceOnce(minimalConfig(t, name), "config_path", "force_conflicts = true\n  config_path"),
				Check: checkServer(t, name, func(o *admissionregistrationv1.MutatingWebhookConfiguration) error {
					if *o.Webhooks[0].TimeoutSeconds != 10 {
						return fmt.Errorf("timeout = %d, want 10", *o.Webhooks[0].TimeoutSeconds)
					}
					return nil
				}),
			},
		},
	})
}

func TestAccCreateOverExistingObjectFails(t *testing.T) {
	name := randomName()
	cs := acctest.Clientset(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig:   func() { createWithClientGo(t, cs, name) },
				Config:      minimalConfig(t, name),
				ExpectError: regexp.MustCompile(`(?s)already exists.*terraform import`),
			},
			{
				// Adopt it instead, with an import.
				Config:             minimalConfig(t, name),
				ResourceName:       resourceAddr,
				ImportState:        true,
				ImportStateId:      name,
				ImportStatePersist: true,
			},
			{
				Config: minimalConfig(t, name),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
			},
		},
		CheckDestroy: checkGone(t, name),
	})
}

// A create whose plan made no dry run (dry_run_on_plan = false) does not know
// the name is free: its generation is known only after apply, and the apply reads
// first, so that an object made between the plan and the apply stops it
// rather than being taken over.
func TestAccCreateReadsFirstWhenItsPlanCouldNotTell(t *testing.T) {
	name := randomName()
	cs := acctest.Clientset(t)
	t.Cleanup(func() {
		_ = cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	cfg := replaceOnce(minimalConfig(t, name), "config_path", "dry_run_on_plan = false\n  config_path")
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownValue(resourceAddr, tfjsonpath.New("metadata").AtSliceIndex(0).AtMapKey("generation")),
				beforeApply(func() { createWithClientGo(t, cs, name) }),
			}},
			ExpectError: regexp.MustCompile(`(?s)already exists.*terraform import`),
		}},
	})
	got, err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range got.ManagedFields {
		if m.Operation == metav1.ManagedFieldsOperationApply {
			t.Errorf("the object made between the plan and the apply was written by %s", m.Manager)
		}
	}
}

// beforeApply runs f between the plan and the apply of a step.
type beforeApply func()

func (f beforeApply) CheckPlan(context.Context, plancheck.CheckPlanRequest, *plancheck.CheckPlanResponse) {
	f()
}

func TestAccMisspeltArgumentIsAnError(t *testing.T) {
	t.Parallel() // plans only, on objects of its own
	cfg := replaceOnce(minimalConfig(t, randomName()), "side_effects", "side_efects")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      cfg,
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`Unsupported argument`),
		}},
	})
}

// The documented form of hashicorp/kubernetes'
// kubernetes_mutating_webhook_configuration_v1, with only the resource type
// renamed.
func TestAccHashicorpKubernetesConfigWorksRenamed(t *testing.T) {
	name := randomName()
	cfg := acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "admission_mutating_webhook_configuration" "test" {
  metadata {
    name = %q
  }

  webhook {
    name = "api.example.com"

    admission_review_versions = ["v1", "v1beta1"]

    client_config {
      service {
        namespace = "example-namespace"
        name      = "example-service"
      }
    }

    rule {
      api_groups   = ["apps"]
      api_versions = ["v1"]
      operations   = ["CREATE"]
      resources    = ["deployments"]
      scope        = "Namespaced"
    }

    reinvocation_policy = "IfNeeded"
    side_effects        = "None"
  }
}
`, name)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkGone(t, name),
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(resourceAddr, webhookPath(0, "rule", 0, "scope"), knownvalue.StringExact("Namespaced")),
			},
		}},
	})
}

// sideEffects Some is refused on a create but kept on an update of an
// object that already has it, so `terraform validate` lets it through and
// the plan of a new object refuses it, offline.
func TestAccCreateOnlyRuleFailsThePlanOfANewObject(t *testing.T) {
	t.Parallel() // plans only, on objects of its own
	name := randomName()
	cfg := replaceOnce(replaceOnce(minimalConfig(t, name), `side_effects              = "None"`, `side_effects              = "Some"`),
		"config_path", "dry_run_on_plan = false\n  config_path")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      cfg,
			ExpectError: regexp.MustCompile(`(?s)side_effects.*Unsupported value: "Some"`),
		}},
	})
}
