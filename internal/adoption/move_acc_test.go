package adoption_test

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	sdkacctest "github.com/hashicorp/terraform-plugin-testing/helper/acctest"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest/kubernetesstandin"
)

// TestAccMoveHelmObjectFromHashicorpKubernetes: a webhook configuration that
// Helm installed was imported into hashicorp/kubernetes, whose configuration
// had to repeat Helm's keys so that its plan would not remove them. Moved to
// this provider with a configuration that leaves them out, the plan moves it
// and changes nothing, and Helm's keys stay on the server.
func TestAccMoveHelmObjectFromHashicorpKubernetes(t *testing.T) {
	name := "move-" + strings.ToLower(sdkacctest.RandString(6)) + "-cert-manager-webhook"
	api := acctest.Clientset(t).AdmissionregistrationV1().ValidatingWebhookConfigurations()
	factories := map[string]func() (tfprotov6.ProviderServer, error){}
	maps.Copy(factories, acctest.ProviderFactories)
	maps.Copy(factories, kubernetesstandin.ProviderFactories())
	const helmMeta = `
    labels = {
      "app.kubernetes.io/instance"   = "cert-manager"
      "app.kubernetes.io/managed-by" = "Helm"
    }
    annotations = {
      "cert-manager.io/inject-ca-from-secret" = "cert-manager/cert-manager-webhook-ca"
      "meta.helm.sh/release-name"             = "cert-manager"
      "meta.helm.sh/release-namespace"        = "cert-manager"
    }`
	const ownMeta = `
    labels = {
      "app.kubernetes.io/instance" = "cert-manager"
    }
    annotations = {
      "cert-manager.io/inject-ca-from-secret" = "cert-manager/cert-manager-webhook-ca"
    }`
	body := func(typ, meta string) string {
		return fmt.Sprintf(`
resource %q "cert_manager" {
  metadata {
    name = %q%s
  }
  webhook {
    name                      = "webhook.cert-manager.io"
    admission_review_versions = ["v1"]
    side_effects              = "None"
    failure_policy            = "Fail"
    match_policy              = "Equivalent"
    timeout_seconds           = 30
    client_config {
      service {
        namespace = "cert-manager"
        name      = "cert-manager-webhook"
        path      = "/validate"
      }
    }
    namespace_selector {
      match_expressions {
        key      = "cert-manager.io/disable-validation"
        operator = "NotIn"
        values   = ["true"]
      }
    }
    rule {
      operations   = ["CREATE", "UPDATE"]
      api_groups   = ["cert-manager.io", "acme.cert-manager.io"]
      api_versions = ["v1"]
      resources    = ["*/*"]
      scope        = "*"
    }
  }
}
`, typ, name, meta)
	}
	hashicorp := fmt.Sprintf("provider \"kubernetes\" {\n  config_path = %q\n}\n", acctest.Cluster(t).KubeconfigPath) +
		body("kubernetes_validating_webhook_configuration_v1", helmMeta)
	moved := acctest.ProviderBlock(t) + body("admission_validating_webhook_configuration", ownMeta) + `
moved {
  from = kubernetes_validating_webhook_configuration_v1.cert_manager
  to   = admission_validating_webhook_configuration.cert_manager
}
`
	var uid string
	helmKept := func(*terraform.State) error {
		obj, err := api.Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if string(obj.UID) != uid {
			return fmt.Errorf("the object was replaced")
		}
		if obj.Labels["app.kubernetes.io/managed-by"] != "Helm" || obj.Annotations["meta.helm.sh/release-name"] != "cert-manager" {
			return fmt.Errorf("Helm's keys are gone: labels %v, annotations %v", obj.Labels, obj.Annotations)
		}
		return nil
	}
	const addr = "admission_validating_webhook_configuration.cert_manager"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{
			{
				Config: hashicorp,
				Check: func(*terraform.State) error {
					obj, err := api.Get(context.Background(), name, metav1.GetOptions{})
					if err != nil {
						return err
					}
					uid = string(obj.UID)
					return nil
				},
			},
			{
				Config: moved,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionNoop)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: helmKept,
			},
			{
				// A change afterwards leaves Helm's keys alone too.
				Config: strings.Replace(moved, "timeout_seconds           = 30", "timeout_seconds           = 10", 1),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: helmKept,
			},
		},
	})
}
