package policy_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	sdkacctest "github.com/hashicorp/terraform-plugin-testing/helper/acctest"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
)

func randomName() string { return sdkacctest.RandomWithPrefix("acc") + ".example.com" }

const (
	policyAddr  = "admission_validating_admission_policy.replicas"
	bindingAddr = "admission_validating_admission_policy_binding.replicas"
)

// replicasConfig is a real policy: a replicas limit read from a ConfigMap
// parameter, a label requirement with a message expression, an audit
// annotation; and its binding. limitKey and failurePolicy vary between
// steps.
func replicasConfig(t *testing.T, name, namespace, message, failurePolicy string) string {
	return acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "admission_validating_admission_policy" "replicas" {
  metadata {
    name   = %[1]q
    labels = { team = "platform" }
  }
  spec {
    failure_policy = %[4]q
    param_kind {
      api_version = "v1"
      kind        = "ConfigMap"
    }
    match_constraints {
      resource_rules {
        api_groups   = ["apps"]
        api_versions = ["v1"]
        operations   = ["CREATE", "UPDATE"]
        resources    = ["deployments"]
      }
      exclude_resource_rules {
        api_groups     = ["apps"]
        api_versions   = ["v1"]
        operations     = ["CREATE", "UPDATE"]
        resources      = ["deployments"]
        resource_names = ["exempt"]
      }
      namespace_selector {
        match_expressions {
          key      = "kubernetes.io/metadata.name"
          operator = "NotIn"
          values   = ["kube-system"]
        }
      }
    }
    match_conditions {
      name       = "not-a-dry-run-user"
      expression = "request.userInfo.username != 'system:dry-run'"
    }
    variables {
      name       = "limit"
      expression = "int(params.data.maxReplicas)"
    }
    validations {
      expression         = "object.spec.replicas <= variables.limit"
      message_expression = "'replicas must be at most ' + string(variables.limit)"
      reason             = "Invalid"
    }
    validations {
      expression = "has(object.metadata.labels) && 'team' in object.metadata.labels"
      message    = %[3]q
    }
    audit_annotations {
      key              = "replicas"
      value_expression = "string(object.spec.replicas)"
    }
  }
}

resource "admission_validating_admission_policy_binding" "replicas" {
  metadata {
    name = %[1]q
  }
  spec {
    policy_name        = admission_validating_admission_policy.replicas.id
    validation_actions = ["Deny", "Audit"]
    param_ref {
      name                       = "replica-limits"
      namespace                  = %[2]q
      parameter_not_found_action = "Deny"
    }
    match_resources {
      namespace_selector {
        match_labels = { "kubernetes.io/metadata.name" = %[2]q }
      }
      resource_rules {
        api_groups   = ["apps"]
        api_versions = ["v1"]
        operations   = ["CREATE", "UPDATE"]
        resources    = ["deployments"]
      }
    }
  }
}
`, name, namespace, message, failurePolicy)
}

func clientset(t *testing.T) kubernetes.Interface { return acctest.Clientset(t) }

func getPolicy(t *testing.T, name string) *admissionregistrationv1.ValidatingAdmissionPolicy {
	t.Helper()
	obj, err := clientset(t).AdmissionregistrationV1().ValidatingAdmissionPolicies().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get policy %s: %v", name, err)
	}
	return obj
}

func policyGone(t *testing.T, name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		api := clientset(t).AdmissionregistrationV1()
		if _, err := api.ValidatingAdmissionPolicies().Get(context.Background(), name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("policy %s still exists after destroy (err=%v)", name, err)
		}
		if _, err := api.ValidatingAdmissionPolicyBindings().Get(context.Background(), name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("binding %s still exists after destroy (err=%v)", name, err)
		}
		return nil
	}
}

// makeNamespace creates a namespace with the replica-limits ConfigMap
// (maxReplicas 3) that the binding's param_ref names.
func makeNamespace(t *testing.T) string {
	t.Helper()
	ns := strings.ToLower(sdkacctest.RandomWithPrefix("acc"))
	cs := clientset(t)
	ctx := context.Background()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "replica-limits"}, Data: map[string]string{"maxReplicas": "3"}}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create config map: %v", err)
	}
	return ns
}

// deployment is a dry-run create of a Deployment with replicas in ns: the
// policy's verdict on it (nil when admitted).
func deployment(t *testing.T, ns string, replicas int32, labels map[string]string) error {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
			},
		},
	}
	_, err := clientset(t).AppsV1().Deployments(ns).Create(context.Background(), d, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	return err
}

// enforces waits until the API server enforces the policy (it picks policies
// and bindings up asynchronously) and checks what it says.
func enforces(t *testing.T, ns string, wantMessage string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		var err error
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
			if err = deployment(t, ns, 5, map[string]string{"team": "a"}); err != nil && strings.Contains(err.Error(), wantMessage) {
				break
			}
		}
		if err == nil || !strings.Contains(err.Error(), wantMessage) {
			return fmt.Errorf("5 replicas: want the policy's denial %q, got %v", wantMessage, err)
		}
		if err := deployment(t, ns, 2, map[string]string{"team": "a"}); err != nil {
			return fmt.Errorf("2 replicas with a team label: want it admitted, got %v", err)
		}
		if err := deployment(t, ns, 2, nil); err == nil {
			return fmt.Errorf("2 replicas without a team label: want a denial")
		}
		return nil
	}
}

func TestAccValidatingAdmissionPolicy(t *testing.T) {
	name := randomName()
	ns := makeNamespace(t)
	cfg := replicasConfig(t, name, ns, "every Deployment needs a team label", "Fail") + `
data "admission_validating_admission_policy" "one" {
  name = admission_validating_admission_policy.replicas.id
}

data "admission_validating_admission_policy_bindings" "all" {
  depends_on = [admission_validating_admission_policy_binding.replicas]
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             policyGone(t, name),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				ConfigStateChecks: []statecheck.StateCheck{
					// Server defaults are in the plan and the state.
					statecheck.ExpectKnownValue(policyAddr, tfjsonpath.New("spec").AtSliceIndex(0).AtMapKey("match_constraints").AtSliceIndex(0).AtMapKey("match_policy"), knownvalue.StringExact("Equivalent")),
					statecheck.ExpectKnownValue(policyAddr, tfjsonpath.New("spec").AtSliceIndex(0).AtMapKey("match_constraints").AtSliceIndex(0).AtMapKey("resource_rules").AtSliceIndex(0).AtMapKey("scope"), knownvalue.StringExact("*")),
					statecheck.ExpectKnownValue(policyAddr, tfjsonpath.New("metadata").AtSliceIndex(0).AtMapKey("generation"), knownvalue.Int64Exact(1)),
					statecheck.ExpectKnownValue(bindingAddr, tfjsonpath.New("spec").AtSliceIndex(0).AtMapKey("match_resources").AtSliceIndex(0).AtMapKey("match_policy"), knownvalue.StringExact("Equivalent")),
					statecheck.ExpectKnownValue("data.admission_validating_admission_policy.one", tfjsonpath.New("spec").AtSliceIndex(0).AtMapKey("validations").AtSliceIndex(1).AtMapKey("message"), knownvalue.StringExact("every Deployment needs a team label")),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(policyAddr, "id", name),
					resource.TestCheckResourceAttr(policyAddr, "spec.0.failure_policy", "Fail"),
					resource.TestCheckResourceAttr(bindingAddr, "spec.0.policy_name", name),
					resource.TestCheckTypeSetElemNestedAttrs("data.admission_validating_admission_policy_bindings.all", "items.*", map[string]string{"id": name}),
					enforces(t, ns, "replicas must be at most 3"),
					func(*terraform.State) error {
						p := getPolicy(t, name)
						if got := p.Spec.Validations[0].MessageExpression; got != "'replicas must be at most ' + string(variables.limit)" {
							return fmt.Errorf("stored message expression: %q", got)
						}
						if p.Spec.AuditAnnotations[0].Key != "replicas" || p.Spec.Variables[0].Name != "limit" {
							return fmt.Errorf("stored spec: %+v", p.Spec)
						}
						return nil
					},
				),
			},
			// The status is read at the next refresh, and a change to it is no
			// change to plan. kube-controller-manager writes it (its
			// ValidatingAdmissionPolicy status controller), which the test
			// control plane does not run: the test writes it the same way.
			{
				PreConfig: func() {
					p := getPolicy(t, name)
					p.Status = admissionregistrationv1.ValidatingAdmissionPolicyStatus{
						ObservedGeneration: p.Generation,
						TypeChecking: &admissionregistrationv1.TypeChecking{ExpressionWarnings: []admissionregistrationv1.ExpressionWarning{
							{FieldRef: "spec.validations[0].expression", Warning: "apps/v1, Kind=Deployment: no such key: replicass"},
						}},
					}
					if _, err := clientset(t).AdmissionregistrationV1().ValidatingAdmissionPolicies().UpdateStatus(context.Background(), p, metav1.UpdateOptions{}); err != nil {
						t.Fatalf("update status: %v", err)
					}
				},
				Config:           cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(policyAddr, "status.observed_generation", "1"),
					resource.TestCheckResourceAttr(policyAddr, "status.type_checking.0.field_ref", "spec.validations[0].expression"),
					resource.TestCheckResourceAttr(policyAddr, "status.type_checking.0.warning", "apps/v1, Kind=Deployment: no such key: replicass"),
				),
			},
			{ResourceName: policyAddr, ImportState: true, ImportStateVerify: true, ImportStateVerifyIgnore: []string{"timeouts", "status"}},
			{ResourceName: bindingAddr, ImportState: true, ImportStateVerify: true, ImportStateVerifyIgnore: []string{"timeouts"}},
			// An update: one more generation, the new message enforced.
			{
				Config: replicasConfig(t, name, ns, "label it with a team", "Ignore"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(policyAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction(bindingAddr, plancheck.ResourceActionNoop),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(policyAddr, "metadata.0.generation", "2"),
					func(*terraform.State) error {
						if p := getPolicy(t, name); *p.Spec.FailurePolicy != admissionregistrationv1.Ignore || p.Spec.Validations[1].Message != "label it with a team" {
							return fmt.Errorf("stored after update: %+v", p.Spec)
						}
						return nil
					},
				),
			},
			// Drift: a change made with kubectl shows in the plan and is taken back.
			{
				PreConfig: func() {
					p := getPolicy(t, name)
					p.Spec.Validations[1].Message = "changed by hand"
					if _, err := clientset(t).AdmissionregistrationV1().ValidatingAdmissionPolicies().Update(context.Background(), p, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
						t.Fatalf("update outside Terraform: %v", err)
					}
				},
				Config:           replicasConfig(t, name, ns, "label it with a team", "Ignore"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(policyAddr, plancheck.ResourceActionUpdate)}},
				Check: func(*terraform.State) error {
					if got := getPolicy(t, name).Spec.Validations[1].Message; got != "label it with a team" {
						return fmt.Errorf("drift not repaired: message %q", got)
					}
					return nil
				},
			},
			// Deleted outside Terraform: planned as a create.
			{
				PreConfig: func() {
					if err := clientset(t).AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
						t.Fatalf("delete outside Terraform: %v", err)
					}
				},
				Config:             replicasConfig(t, name, ns, "label it with a team", "Ignore"),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
		},
	})
}
