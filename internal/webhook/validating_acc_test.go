package webhook_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

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

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
)

// The webhook core is tested on the mutating kind; these tests cover the
// validating kind end to end once, and what differs: no
// reinvocation_policy, its own API calls, names and messages.

const validatingAddr = "admission_validating_webhook_configuration.test"

// asValidating turns a mutating test configuration into the validating one:
// the same blocks, less reinvocation_policy.
func asValidating(cfg string) string {
	cfg = regexp.MustCompile(`(?m)^\s*reinvocation_policy\s*=.*\n`).ReplaceAllString(cfg, "")
	return strings.ReplaceAll(cfg, "admission_mutating_webhook_configuration", "admission_validating_webhook_configuration")
}

func getValidating(t *testing.T, name string) *admissionregistrationv1.ValidatingWebhookConfiguration {
	t.Helper()
	obj, err := acctest.Clientset(t).AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get %s: %v", name, err)
	}
	return obj
}

func checkValidating(t *testing.T, name string, check func(*admissionregistrationv1.ValidatingWebhookConfiguration) error) resource.TestCheckFunc {
	return func(*terraform.State) error { return check(getValidating(t, name)) }
}

func checkValidatingGone(t *testing.T, name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		_, err := acctest.Clientset(t).AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(context.Background(), name, metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("%s still exists after destroy (err=%v)", name, err)
		}
		return nil
	}
}

func TestAccValidatingWebhookConfiguration(t *testing.T) {
	name := randomName()
	cs := acctest.Clientset(t).AdmissionregistrationV1().ValidatingWebhookConfigurations()
	full := asValidating(fullConfig(t, name, "5", "Ignore")) + `
data "admission_validating_webhook_configuration" "one" {
  name = admission_validating_webhook_configuration.test.metadata[0].name
}

data "admission_validating_webhook_configurations" "labelled" {
  label_selector = "app=injector,tier=platform"
  depends_on     = [admission_validating_webhook_configuration.test]
}
`
	minimal := asValidating(minimalConfig(t, name))
	one := "data.admission_validating_webhook_configuration.one"
	list := "data.admission_validating_webhook_configurations.labelled"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkValidatingGone(t, name),
		Steps: []resource.TestStep{
			{
				// Every field; server defaults in the plan; an empty plan
				// after the apply (the framework checks it).
				Config: full,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(validatingAddr, webhookPath(0, "timeout_seconds"), knownvalue.Int64Exact(5)),
					statecheck.ExpectKnownValue(validatingAddr, webhookPath(1, "failure_policy"), knownvalue.StringExact("Fail")),
					statecheck.ExpectKnownValue(validatingAddr, webhookPath(1, "match_policy"), knownvalue.StringExact("Equivalent")),
					statecheck.ExpectKnownValue(validatingAddr, webhookPath(1, "timeout_seconds"), knownvalue.Int64Exact(10)),
					statecheck.ExpectKnownValue(validatingAddr, webhookPath(0, "rule", 1, "scope"), knownvalue.StringExact("*")),
					statecheck.ExpectKnownValue(validatingAddr, webhookPath(0, "client_config", 0, "ca_bundle"), knownvalue.StringExact(caPEM)),
					statecheck.ExpectKnownValue(one, webhookPath(0, "match_conditions", 1, "expression"), knownvalue.StringExact("object != null && has(object.spec)")),
					statecheck.ExpectKnownValue(one, tfjsonpath.New("metadata").AtSliceIndex(0).AtMapKey("uid"), knownvalue.NotNull()),
					statecheck.ExpectKnownValue(list, tfjsonpath.New("items"), knownvalue.ListSizeExact(1)),
					statecheck.ExpectKnownValue(list, tfjsonpath.New("items").AtSliceIndex(0).AtMapKey("id"), knownvalue.StringExact(name)),
				},
				Check: checkValidating(t, name, func(o *admissionregistrationv1.ValidatingWebhookConfiguration) error {
					w := o.Webhooks[0]
					switch {
					case string(w.ClientConfig.CABundle) != caPEM || *w.ClientConfig.Service.Port != 8443:
						return fmt.Errorf("clientConfig = %+v", w.ClientConfig)
					case *w.MatchPolicy != admissionregistrationv1.Exact || len(w.MatchConditions) != 2 || len(w.Rules) != 2:
						return fmt.Errorf("webhook = %+v", w)
					case o.Labels["tier"] != "platform" || o.Finalizers[0] != "example.com/keep":
						return fmt.Errorf("metadata = %+v", o.ObjectMeta)
					}
					for _, mf := range o.ManagedFields {
						if mf.Manager != "terraform-provider-admission" || mf.Operation != metav1.ManagedFieldsOperationApply {
							return fmt.Errorf("written by %s (%s), want server-side apply by terraform-provider-admission", mf.Manager, mf.Operation)
						}
					}
					return nil
				}),
			},
			{
				ResourceName:            validatingAddr,
				ImportState:             true,
				ImportStateId:           name,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"timeouts"},
			},
			{
				Config: asValidating(fullConfig(t, name, "20", "Fail")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(validatingAddr, plancheck.ResourceActionUpdate),
				}},
				Check: checkValidating(t, name, func(o *admissionregistrationv1.ValidatingWebhookConfiguration) error {
					if *o.Webhooks[0].TimeoutSeconds != 20 || *o.Webhooks[0].FailurePolicy != admissionregistrationv1.Fail || o.Generation != 2 {
						return fmt.Errorf("update not stored: timeout=%d policy=%s generation=%d", *o.Webhooks[0].TimeoutSeconds, *o.Webhooks[0].FailurePolicy, o.Generation)
					}
					return nil
				}),
			},
			{
				// Back to the minimal form: the rest is removed, defaults return.
				Config: minimal,
				Check: checkValidating(t, name, func(o *admissionregistrationv1.ValidatingWebhookConfiguration) error {
					if len(o.Webhooks) != 1 || len(o.Labels) != 0 || len(o.Finalizers) != 0 || *o.Webhooks[0].TimeoutSeconds != 10 {
						return fmt.Errorf("not back to minimal: %+v", o)
					}
					return nil
				}),
			},
			{
				// Drift made with kubectl edit shows and is repaired; a CA
				// injected by another manager is left alone.
				PreConfig: func() {
					o := getValidating(t, name)
					o.Webhooks[0].TimeoutSeconds = ptr(int32(29))
					if _, err := cs.Update(context.Background(), o, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
						t.Fatal(err)
					}
					patch := fmt.Sprintf(`{"webhooks":[{"name":"minimal.example.com","clientConfig":{"caBundle":%q}}]}`, b64(caPEM))
					if _, err := cs.Patch(context.Background(), name, types.StrategicMergePatchType, []byte(patch),
						metav1.PatchOptions{FieldManager: "cert-manager-cainjector"}); err != nil {
						t.Fatal(err)
					}
				},
				Config: minimal,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(validatingAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(validatingAddr, webhookPath(0, "timeout_seconds"), knownvalue.Int64Exact(10)),
					plancheck.ExpectKnownValue(validatingAddr, webhookPath(0, "client_config", 0, "ca_bundle"), knownvalue.StringExact(caPEM)),
				}},
				Check: checkValidating(t, name, func(o *admissionregistrationv1.ValidatingWebhookConfiguration) error {
					if *o.Webhooks[0].TimeoutSeconds != 10 || string(o.Webhooks[0].ClientConfig.CABundle) != caPEM {
						return fmt.Errorf("timeout=%d caBundle=%q", *o.Webhooks[0].TimeoutSeconds, o.Webhooks[0].ClientConfig.CABundle)
					}
					return nil
				}),
			},
			{
				// Deleted outside Terraform: planned for creation.
				PreConfig: func() {
					if err := cs.Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: minimal,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(validatingAddr, plancheck.ResourceActionCreate),
				}},
			},
		},
	})
}

// What differs for the validating kind at plan: its webhooks have no
// reinvocation_policy, its errors name it, and an existing object of this
// kind (not of the other) is refused with the import hint.
func TestAccValidatingWebhookConfigurationDiffers(t *testing.T) {
	name, existing := randomName(), randomName()
	cs := acctest.Clientset(t).AdmissionregistrationV1()
	t.Cleanup(func() {
		_ = cs.ValidatingWebhookConfigurations().Delete(context.Background(), existing, metav1.DeleteOptions{})
	})
	minimal := asValidating(minimalConfig(t, name))
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkValidatingGone(t, name),
		Steps: []resource.TestStep{
			{
				Config:      replaceOnce(minimal, `side_effects              = "None"`, `side_effects = "None"`+"\n"+`reinvocation_policy = "IfNeeded"`),
				ExpectError: regexp.MustCompile(`(?s)Unsupported argument.*reinvocation_policy`),
			},
			{
				Config: replaceOnce(minimal, `side_effects              = "None"`, `side_effects = "None"`+"\n"+`timeout_seconds = 31`),
				ExpectError: regexp.MustCompile(`(?s)Invalid ValidatingWebhookConfiguration.*timeout_seconds.*` +
					words(`must be between 1 and 30 seconds (API field webhooks[0].timeoutSeconds)`)),
			},
			{
				// A MutatingWebhookConfiguration of the same name is another
				// object: no conflict.
				PreConfig: func() { createWithClientGo(t, acctest.Clientset(t), name) },
				Config:    minimal,
				Check: func(*terraform.State) error {
					return cs.MutatingWebhookConfigurations().Delete(context.Background(), name, metav1.DeleteOptions{})
				},
			},
			{
				// An existing ValidatingWebhookConfiguration is refused, with
				// this kind's import command (the renamed object replaces the
				// one above).
				PreConfig: func() {
					o := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: existing}}
					if _, err := cs.ValidatingWebhookConfigurations().Create(context.Background(), o, metav1.CreateOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config:      asValidating(minimalConfig(t, existing)),
				ExpectError: regexp.MustCompile(`(?s)ValidatingWebhookConfiguration already exists.*terraform import admission_validating_webhook_configuration`),
			},
		},
	})
}
