package webhook_test

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest/kubernetesstandin"
)

// hashicorpConfig is a configuration of hashicorp/kubernetes' two webhook
// configuration resources, as its users write it: the mutating one with
// every field that provider has, the validating one with a service and
// neither labels nor annotations (which that provider's refresh stores as
// empty maps).
func hashicorpConfig(t *testing.T, mutating, validating string) string {
	return fmt.Sprintf(`
provider "kubernetes" {
  config_path = %[1]q
}

resource "kubernetes_mutating_webhook_configuration_v1" "injector" {
  metadata {
    name        = %[2]q
    labels      = { team = "platform" }
    annotations = { "example.com/owner" = "platform" }
  }
  webhook {
    name                      = "inject.full.example.com"
    admission_review_versions = ["v1", "v1beta1"]
    side_effects              = "None"
    failure_policy            = "Ignore"
    match_policy              = "Exact"
    reinvocation_policy       = "IfNeeded"
    timeout_seconds           = 5
    client_config {
      service {
        namespace = "injector"
        name      = "injector"
        path      = "/mutate"
        port      = 8443
      }
      ca_bundle = %[4]q
    }
    rule {
      operations   = ["CREATE", "UPDATE"]
      api_groups   = ["", "apps"]
      api_versions = ["v1"]
      resources    = ["pods", "deployments"]
      scope        = "Namespaced"
    }
    namespace_selector {
      match_expressions {
        key      = "kubernetes.io/metadata.name"
        operator = "NotIn"
        values   = ["kube-system"]
      }
    }
    object_selector {
      match_labels = { inject = "yes" }
    }
  }
  webhook {
    name                      = "url.full.example.com"
    admission_review_versions = ["v1"]
    side_effects              = "NoneOnDryRun"
    client_config {
      url = "https://hooks.example.com/mutate"
    }
    rule {
      operations   = ["*"]
      api_groups   = ["*"]
      api_versions = ["*"]
      resources    = ["configmaps"]
    }
  }
}

resource "kubernetes_validating_webhook_configuration_v1" "checker" {
  metadata {
    name = %[3]q
  }
  webhook {
    name                      = "check.vfull.example.com"
    admission_review_versions = ["v1"]
    side_effects              = "None"
    failure_policy            = "Fail"
    match_policy              = "Equivalent"
    timeout_seconds           = 7
    client_config {
      service {
        namespace = "checker"
        name      = "checker"
        path      = "/validate"
      }
    }
    rule {
      operations   = ["CREATE", "UPDATE", "DELETE"]
      api_groups   = ["apps"]
      api_versions = ["v1"]
      resources    = ["deployments", "deployments/scale"]
      scope        = "*"
    }
    namespace_selector {
      match_labels = { checked = "true" }
    }
  }
}
`, acctest.Cluster(t).KubeconfigPath, mutating, validating, caPEM)
}

// movedConfig is the same configuration for this provider: the resource
// types renamed, and moved blocks.
func movedConfig(t *testing.T, mutating, validating string) string {
	cfg := hashicorpConfig(t, mutating, validating)
	cfg = cfg[strings.Index(cfg, "\nresource "):]
	cfg = strings.ReplaceAll(cfg, "kubernetes_mutating_webhook_configuration_v1", "admission_mutating_webhook_configuration")
	cfg = strings.ReplaceAll(cfg, "kubernetes_validating_webhook_configuration_v1", "admission_validating_webhook_configuration")
	return acctest.ProviderBlock(t) + cfg + `
moved {
  from = kubernetes_mutating_webhook_configuration_v1.injector
  to   = admission_mutating_webhook_configuration.injector
}

moved {
  from = kubernetes_validating_webhook_configuration_v1.checker
  to   = admission_validating_webhook_configuration.checker
}
`
}

// TestAccMoveFromHashicorpKubernetes applies webhook configurations with a
// provider that has hashicorp/kubernetes' schema and writes its state,
// refreshes that state as any plan or apply with hashicorp/kubernetes does,
// then moves them to this provider with moved blocks: the plan is the moves
// only, nothing is created, changed or destroyed, the apply sends nothing
// (the objects keep their UID and resourceVersion), and the plan after it is
// empty.
func TestAccMoveFromHashicorpKubernetes(t *testing.T) {
	mutatingName, validatingName := randomName(), randomName()
	cs := acctest.Clientset(t).AdmissionregistrationV1()
	factories := map[string]func() (tfprotov6.ProviderServer, error){}
	maps.Copy(factories, acctest.ProviderFactories)
	maps.Copy(factories, kubernetesstandin.ProviderFactories())

	// The UIDs and resourceVersions of the two objects.
	var uids, versions [2]string
	read := func() (uids, versions [2]string, err error) {
		m, err := cs.MutatingWebhookConfigurations().Get(context.Background(), mutatingName, metav1.GetOptions{})
		if err != nil {
			return uids, versions, err
		}
		v, err := cs.ValidatingWebhookConfigurations().Get(context.Background(), validatingName, metav1.GetOptions{})
		if err != nil {
			return uids, versions, err
		}
		return [2]string{string(m.UID), string(v.UID)}, [2]string{m.ResourceVersion, v.ResourceVersion}, nil
	}
	readUIDs := func() ([2]string, error) {
		u, _, err := read()
		return u, err
	}
	mutatingAddr, validatingAddr := "admission_mutating_webhook_configuration.injector", "admission_validating_webhook_configuration.checker"
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy: func(s *terraform.State) error {
			if _, err := readUIDs(); err == nil {
				return fmt.Errorf("the moved objects still exist after destroy")
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: hashicorpConfig(t, mutatingName, validatingName),
				Check: func(*terraform.State) (err error) {
					uids, versions, err = read()
					return err
				},
			},
			{
				// hashicorp/kubernetes' refresh: its state then holds
				// labels = {} and annotations = {} for maps the object has not.
				RefreshState: true,
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("kubernetes_validating_webhook_configuration_v1.checker", "metadata.0.labels.%", "0"),
					resource.TestCheckResourceAttr("kubernetes_validating_webhook_configuration_v1.checker", "metadata.0.annotations.%", "0"),
					resource.TestCheckResourceAttr("kubernetes_validating_webhook_configuration_v1.checker", "webhook.0.client_config.0.ca_bundle", ""),
				),
			},
			{
				Config: movedConfig(t, mutatingName, validatingName),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(mutatingAddr, plancheck.ResourceActionNoop),
						plancheck.ExpectResourceAction(validatingAddr, plancheck.ResourceActionNoop),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: func(*terraform.State) error {
					afterUIDs, afterVersions, err := read()
					if err != nil {
						return err
					}
					if afterUIDs != uids {
						return fmt.Errorf("the objects were replaced: UIDs %v before the move, %v after", uids, afterUIDs)
					}
					if afterVersions != versions {
						return fmt.Errorf("the move wrote to the objects: resourceVersions %v before, %v after", versions, afterVersions)
					}
					return nil
				},
			},
			{
				// Managed by this provider from now on: a change is a
				// server-side apply of this provider's field manager, and the
				// object is the same one.
				Config: strings.Replace(movedConfig(t, mutatingName, validatingName), "timeout_seconds           = 7", "timeout_seconds           = 9", 1),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(validatingAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction(mutatingAddr, plancheck.ResourceActionNoop),
				}},
				Check: func(*terraform.State) error {
					v, err := cs.ValidatingWebhookConfigurations().Get(context.Background(), validatingName, metav1.GetOptions{})
					if err != nil {
						return err
					}
					if *v.Webhooks[0].TimeoutSeconds != 9 || string(v.UID) != uids[1] {
						return fmt.Errorf("timeout %d, uid %s (was %s)", *v.Webhooks[0].TimeoutSeconds, v.UID, uids[1])
					}
					return nil
				},
			},
		},
	})
}
