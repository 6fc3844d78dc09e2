package policy_test

import (
	"context"
	"fmt"
	"maps"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest/kubernetesstandin"
)

// hashicorpPolicyConfig is a configuration of hashicorp/kubernetes'
// kubernetes_validating_admission_policy_v1 (nested attributes), as its
// users write it; annotations are its metadata's, such as Helm's bookkeeping
// on a policy that Helm installed first.
func hashicorpPolicyConfig(t *testing.T, name, annotations string) string {
	return fmt.Sprintf(`
provider "kubernetes" {
  config_path = %[1]q
}

resource "kubernetes_validating_admission_policy_v1" "replicas" {
  metadata = {
    name        = %[2]q
    labels      = { team = "platform" }
    annotations = %[3]s
  }
  spec = {
    failure_policy = "Fail"
    param_kind = {
      api_version = "v1"
      kind        = "ConfigMap"
    }
    match_constraints = {
      namespace_selector = {
        match_labels = { "environment" = "prod" }
      }
      object_selector = {
        label_selector = {
          match_expressions = [{
            key      = "app"
            operator = "Exists"
          }]
        }
      }
      resource_rules = [{
        api_groups   = ["apps"]
        api_versions = ["v1"]
        operations   = ["CREATE", "UPDATE"]
        resources    = ["deployments"]
      }]
    }
    match_conditions = [{
      name       = "not-a-dry-run-user"
      expression = "request.userInfo.username != 'system:dry-run'"
    }]
    variables = [{
      name       = "max"
      expression = "int(params.data.max)"
    }]
    validations = [{
      expression         = "object.spec.replicas <= variables.max"
      message            = "too many replicas"
      message_expression = "'replicas must be at most ' + string(variables.max)"
      reason             = "Invalid"
    }]
    audit_annotations = [{
      key              = "replicas"
      value_expression = "string(object.spec.replicas)"
    }]
  }
}
`, acctest.Cluster(t).KubeconfigPath, name, annotations)
}

// movedPolicyConfig is the same policy for this provider, as the migration
// guide says to write it: the nested attributes as blocks, and a moved block.
func movedPolicyConfig(t *testing.T, name, labels string) string {
	return acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "admission_validating_admission_policy" "replicas" {
  metadata {
    name   = %[1]q
    labels = %[2]s
  }
  spec {
    failure_policy = "Fail"
    param_kind {
      api_version = "v1"
      kind        = "ConfigMap"
    }
    match_constraints {
      namespace_selector {
        match_labels = { "environment" = "prod" }
      }
      object_selector {
        match_expressions {
          key      = "app"
          operator = "Exists"
        }
      }
      resource_rules {
        api_groups   = ["apps"]
        api_versions = ["v1"]
        operations   = ["CREATE", "UPDATE"]
        resources    = ["deployments"]
      }
    }
    match_conditions {
      name       = "not-a-dry-run-user"
      expression = "request.userInfo.username != 'system:dry-run'"
    }
    variables {
      name       = "max"
      expression = "int(params.data.max)"
    }
    validations {
      expression         = "object.spec.replicas <= variables.max"
      message            = "too many replicas"
      message_expression = "'replicas must be at most ' + string(variables.max)"
      reason             = "Invalid"
    }
    audit_annotations {
      key              = "replicas"
      value_expression = "string(object.spec.replicas)"
    }
  }
}

moved {
  from = kubernetes_validating_admission_policy_v1.replicas
  to   = admission_validating_admission_policy.replicas
}
`, name, labels)
}

// TestAccMovePolicyFromHashicorpKubernetes applies a validating admission
// policy with a provider that has hashicorp/kubernetes' schema and writes
// its state (with the validation's reason, which that provider never sends
// to the server), refreshes it, then moves it to this provider with a moved
// block: nothing is created or destroyed, the plan changes nothing but the
// reason, the policy keeps its UID, Helm's annotations that the source state
// held are left to Helm (not planned for removal), and the plan after the
// move's apply is empty. A change afterwards is an update in place.
func TestAccMovePolicyFromHashicorpKubernetes(t *testing.T) {
	name := randomName()
	api := acctest.Clientset(t).AdmissionregistrationV1().ValidatingAdmissionPolicies()
	factories := map[string]func() (tfprotov6.ProviderServer, error){}
	maps.Copy(factories, acctest.ProviderFactories)
	maps.Copy(factories, kubernetesstandin.ProviderFactories())
	helm := `{ "meta.helm.sh/release-name" = "limits", "meta.helm.sh/release-namespace" = "platform" }`
	const addr = "admission_validating_admission_policy.replicas"

	var uid string
	readUID := func() (string, error) {
		p, err := api.Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return "", err
		}
		return string(p.UID), nil
	}
	sameUID := func(*terraform.State) error {
		got, err := readUID()
		if err != nil {
			return err
		}
		if got != uid {
			return fmt.Errorf("the policy was replaced: UID %s before the move, %s after", uid, got)
		}
		return nil
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy: func(*terraform.State) error {
			if _, err := readUID(); err == nil {
				return fmt.Errorf("the moved policy still exists after destroy")
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: hashicorpPolicyConfig(t, name, helm),
				Check: func(*terraform.State) (err error) {
					uid, err = readUID()
					return err
				},
			},
			{RefreshState: true},
			{
				Config: movedPolicyConfig(t, name, `{ team = "platform" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						acctest.ExpectChangedOnly(addr, "spec.0.validations.0.reason"),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtSliceIndex(0).AtMapKey("validations").AtSliceIndex(0).AtMapKey("reason"),
						knownvalue.StringExact("Invalid")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact(name)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("metadata").AtSliceIndex(0).AtMapKey("annotations"), knownvalue.Null()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("spec").AtSliceIndex(0).AtMapKey("match_constraints").AtSliceIndex(0).AtMapKey("match_policy"),
						knownvalue.StringExact("Equivalent")),
				},
				Check: sameUID,
			},
			{
				Config: movedPolicyConfig(t, name, `{ team = "platform", tier = "gold" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(sameUID, func(*terraform.State) error {
					p, err := api.Get(context.Background(), name, metav1.GetOptions{})
					if err != nil {
						return err
					}
					if p.Labels["tier"] != "gold" || p.Annotations["meta.helm.sh/release-name"] != "limits" {
						return fmt.Errorf("after the change: labels %v, annotations %v", p.Labels, p.Annotations)
					}
					return nil
				}),
			},
		},
	})
}
