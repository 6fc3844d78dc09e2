package policy_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
)

// The policy core is tested end to end on the validating kinds; these tests
// cover the mutating kinds once, and what differs: mutations, the
// reinvocation policy, a binding without validation actions.

const (
	mutatingAddr        = "admission_mutating_admission_policy.team"
	mutatingBindingAddr = "admission_mutating_admission_policy_binding.team"
)

// teamConfig is a real mutating policy: it labels every new Deployment with
// a team (an apply configuration) and sets a default revision history limit
// (a JSON patch).
func teamConfig(t *testing.T, name, namespace, team string) string {
	return acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "admission_mutating_admission_policy" "team" {
  metadata {
    name = %[1]q
  }
  spec {
    reinvocation_policy = "IfNeeded"
    match_constraints {
      resource_rules {
        api_groups   = ["apps"]
        api_versions = ["v1"]
        operations   = ["CREATE"]
        resources    = ["deployments"]
      }
    }
    variables {
      name       = "team"
      expression = "'%[3]s'"
    }
    mutations {
      patch_type = "ApplyConfiguration"
      apply_configuration {
        expression = "Object{metadata: Object.metadata{labels: {'team': variables.team}}}"
      }
    }
    mutations {
      patch_type = "JSONPatch"
      json_patch {
        expression = "has(object.spec.revisionHistoryLimit) && object.spec.revisionHistoryLimit != 10 ? [] : [JSONPatch{op: 'replace', path: '/spec/revisionHistoryLimit', value: 3}]"
      }
    }
  }
}

resource "admission_mutating_admission_policy_binding" "team" {
  metadata {
    name = %[1]q
  }
  spec {
    policy_name = admission_mutating_admission_policy.team.id
    match_resources {
      namespace_selector {
        match_labels = { "kubernetes.io/metadata.name" = %[2]q }
      }
    }
  }
}

data "admission_mutating_admission_policy_binding" "one" {
  name = admission_mutating_admission_policy_binding.team.id
}
`, name, namespace, team)
}

// mutated waits until the API server applies the policy to a new
// Deployment in ns (it picks policies up asynchronously), and checks the
// result.
func mutated(t *testing.T, ns, team string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		var got *appsv1.Deployment
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
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
			var err error
			got, err = clientset(t).AppsV1().Deployments(ns).Create(context.Background(), d, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if err != nil {
				return fmt.Errorf("dry-run create of a Deployment: %v", err)
			}
			if got.Labels["team"] == team {
				break
			}
		}
		if got.Labels["team"] != team {
			return fmt.Errorf("the policy did not label the Deployment with team=%s: labels %v", team, got.Labels)
		}
		if l := got.Spec.RevisionHistoryLimit; l == nil || *l != 3 {
			return fmt.Errorf("the JSON patch did not set revisionHistoryLimit to 3: %v", l)
		}
		return nil
	}
}

func TestAccMutatingAdmissionPolicy(t *testing.T) {
	name := randomName()
	ns := makeNamespace(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			api := clientset(t).AdmissionregistrationV1()
			if _, err := api.MutatingAdmissionPolicies().Get(context.Background(), name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("policy %s still exists after destroy (err=%v)", name, err)
			}
			if _, err := api.MutatingAdmissionPolicyBindings().Get(context.Background(), name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("binding %s still exists after destroy (err=%v)", name, err)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: teamConfig(t, name, ns, "platform"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(mutatingAddr, tfjsonpath.New("spec").AtSliceIndex(0).AtMapKey("failure_policy"), knownvalue.StringExact("Fail")),
					statecheck.ExpectKnownValue(mutatingAddr, tfjsonpath.New("spec").AtSliceIndex(0).AtMapKey("mutations").AtSliceIndex(1).AtMapKey("patch_type"), knownvalue.StringExact("JSONPatch")),
					statecheck.ExpectKnownValue("data.admission_mutating_admission_policy_binding.one", tfjsonpath.New("spec").AtSliceIndex(0).AtMapKey("policy_name"), knownvalue.StringExact(name)),
				},
				Check: mutated(t, ns, "platform"),
			},
			{ResourceName: mutatingAddr, ImportState: true, ImportStateVerify: true, ImportStateVerifyIgnore: []string{"timeouts"}},
			{ResourceName: mutatingBindingAddr, ImportState: true, ImportStateVerify: true, ImportStateVerifyIgnore: []string{"timeouts"}},
			{
				Config: teamConfig(t, name, ns, "payments"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(mutatingAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction(mutatingBindingAddr, plancheck.ResourceActionNoop),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(mutatingAddr, "metadata.0.generation", "2"),
					mutated(t, ns, "payments"),
				),
			},
		},
	})
}

// Import by resource identity (Terraform 1.12 and later), once for the
// family's core, on the mutating kinds.
func TestAccPolicyImportByResourceIdentity(t *testing.T) {
	name := randomName()
	ns := makeNamespace(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
		Steps: []resource.TestStep{
			{
				Config: teamConfig(t, name, ns, "platform"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectIdentity(mutatingAddr, map[string]knownvalue.Check{"name": knownvalue.StringExact(name)}),
					statecheck.ExpectIdentity(mutatingBindingAddr, map[string]knownvalue.Check{"name": knownvalue.StringExact(name)}),
				},
			},
			{Config: teamConfig(t, name, ns, "platform"), ResourceName: mutatingAddr, ImportState: true, ImportStateKind: resource.ImportBlockWithResourceIdentity},
			{Config: teamConfig(t, name, ns, "platform"), ResourceName: mutatingBindingAddr, ImportState: true, ImportStateKind: resource.ImportBlockWithResourceIdentity},
		},
	})
}
