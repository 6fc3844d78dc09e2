package webhook_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
)

type mwc = admissionregistrationv1.MutatingWebhookConfiguration

// attributeChange changes one attribute of fullConfig and says how the
// server's object must look afterwards.
type attributeChange struct {
	attribute string
	old, new  string
	check     func(o *mwc) any // the stored value
	want      any
}

func hook(o *mwc, i int) *admissionregistrationv1.MutatingWebhook { return &o.Webhooks[i] }

// TestAccUpdateEachAttribute changes every attribute in turn, from the full
// configuration, and reads the result back with client-go. Each step starts
// from the full configuration again, so each also proves the way back.
func TestAccUpdateEachAttribute(t *testing.T) {
	name := randomName()
	otherCA := selfSignedCA("rotated-ca")
	changes := []attributeChange{
		{"metadata.labels", `tier = "platform"`, `tier = "edge"`, func(o *mwc) any { return o.Labels["tier"] }, "edge"},
		{"metadata.annotations", `"platform-team"`, `"security-team"`, func(o *mwc) any { return o.Annotations["example.com/owner"] }, "security-team"},
		{"metadata.finalizers", `["example.com/keep"]`, `["example.com/hold"]`, func(o *mwc) any { return o.Finalizers }, []string{"example.com/hold"}},
		{"metadata.owner_references.controller", `controller           = false`, `controller           = true`,
			func(o *mwc) any { return *o.OwnerReferences[0].Controller }, true},
		{"metadata.owner_references.name", `"injector-system"
      uid`, `"injector-system-2"
      uid`, func(o *mwc) any { return o.OwnerReferences[0].Name }, "injector-system-2"},
		{"webhook.name", `"sidecar.injector.example.com"`, `"sidecar2.injector.example.com"`, func(o *mwc) any { return hook(o, 0).Name }, "sidecar2.injector.example.com"},
		{"webhook.admission_review_versions", `["v1", "v1beta1"]`, `["v1beta1", "v1"]`, func(o *mwc) any { return hook(o, 0).AdmissionReviewVersions }, []string{"v1beta1", "v1"}},
		{"webhook.side_effects", `"NoneOnDryRun"`, `"None"`, func(o *mwc) any { return string(*hook(o, 0).SideEffects) }, "None"},
		{"webhook.match_policy", `"Exact"`, `"Equivalent"`, func(o *mwc) any { return string(*hook(o, 0).MatchPolicy) }, "Equivalent"},
		{"webhook.reinvocation_policy", `"IfNeeded"`, `"Never"`, func(o *mwc) any { return string(*hook(o, 0).ReinvocationPolicy) }, "Never"},
		{"webhook.client_config.ca_bundle", fmt.Sprintf("%q", caPEM), fmt.Sprintf("%q", otherCA), func(o *mwc) any { return string(hook(o, 0).ClientConfig.CABundle) }, otherCA},
		{"webhook.client_config.service.namespace", `namespace = "injector-system"`, `namespace = "injector-2"`, func(o *mwc) any { return hook(o, 0).ClientConfig.Service.Namespace }, "injector-2"},
		{"webhook.client_config.service.name", `name      = "injector"`, `name      = "injector-2"`, func(o *mwc) any { return hook(o, 0).ClientConfig.Service.Name }, "injector-2"},
		{"webhook.client_config.service.path", `"/mutate/pods"`, `"/v2/mutate"`, func(o *mwc) any { return *hook(o, 0).ClientConfig.Service.Path }, "/v2/mutate"},
		{"webhook.client_config.service.port", `port      = 8443`, `port      = 9443`, func(o *mwc) any { return *hook(o, 0).ClientConfig.Service.Port }, int32(9443)},
		{"webhook.client_config.url", `"https://injector.example.com:9443/mutate"`, `"https://injector.example.net/v2"`, func(o *mwc) any { return *hook(o, 1).ClientConfig.URL }, "https://injector.example.net/v2"},
		{"webhook.rule.operations", `["CREATE", "UPDATE"]`, `["CREATE"]`, func(o *mwc) any { return hook(o, 0).Rules[0].Operations }, []admissionregistrationv1.OperationType{"CREATE"}},
		{"webhook.rule.api_groups", `api_groups   = ["apps"]`, `api_groups   = ["apps", "batch"]`, func(o *mwc) any { return hook(o, 0).Rules[1].APIGroups }, []string{"apps", "batch"}},
		{"webhook.rule.api_versions", `api_versions = ["*"]`, `api_versions = ["v1"]`, func(o *mwc) any { return hook(o, 0).Rules[1].APIVersions }, []string{"v1"}},
		{"webhook.rule.resources", `["pods", "pods/status"]`, `["pods", "pods/ephemeralcontainers"]`, func(o *mwc) any { return hook(o, 0).Rules[0].Resources }, []string{"pods", "pods/ephemeralcontainers"}},
		{"webhook.rule.scope", `scope        = "Namespaced"`, `scope        = "*"`, func(o *mwc) any { return string(*hook(o, 0).Rules[0].Scope) }, "*"},
		{"webhook.namespace_selector.match_labels", `{ injection = "enabled" }`, `{ injection = "on" }`, func(o *mwc) any { return hook(o, 0).NamespaceSelector.MatchLabels }, map[string]string{"injection": "on"}},
		{"webhook.namespace_selector.match_expressions.values", `["kube-system", "injector-system"]`, `["kube-system"]`,
			func(o *mwc) any { return hook(o, 0).NamespaceSelector.MatchExpressions[0].Values }, []string{"kube-system"}},
		{"webhook.object_selector.match_expressions.operator", `operator = "Exists"`, `operator = "DoesNotExist"`,
			func(o *mwc) any { return hook(o, 0).ObjectSelector.MatchExpressions[0].Operator }, metav1.LabelSelectorOpDoesNotExist},
		{"webhook.match_conditions.name", `"not-a-node"`, `"not-from-a-node"`, func(o *mwc) any { return hook(o, 0).MatchConditions[0].Name }, "not-from-a-node"},
		{"webhook.match_conditions.expression", `"object != null && has(object.spec)"`, `"has(object.spec)"`, func(o *mwc) any { return hook(o, 0).MatchConditions[1].Expression }, "has(object.spec)"},
	}

	base := fullConfig(t, name, "5", "Ignore")
	steps := []resource.TestStep{{Config: base}}
	for _, c := range changes {
		steps = append(steps, resource.TestStep{
			Config: replaceOnce(base, c.old, c.new),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(resourceAddr, plancheck.ResourceActionUpdate),
			}},
			Check: checkServer(t, name, func(o *mwc) error {
				if got := c.check(o); !reflect.DeepEqual(got, c.want) {
					return fmt.Errorf("after changing %s: server has %#v, want %#v", c.attribute, got, c.want)
				}
				return nil
			}),
		})
	}
	// Back to the full configuration, then to the minimal one, which also
	// drops the finalizer so that the final destroy can finish.
	steps = append(steps, resource.TestStep{Config: base}, resource.TestStep{Config: minimalConfig(t, name)})

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkGone(t, name),
		Steps:                    steps,
	})
}
