package webhook_test

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
)

func TestAccDataSourcesReadEveryField(t *testing.T) {
	name := randomName()
	other := randomName()
	cs := acctest.Clientset(t)
	createWithClientGo(t, cs, other) // carries no labels: filtered out below
	t.Cleanup(func() { deleteWithClientGo(t, cs, other) })

	cfg := fullConfig(t, name, "5", "Ignore") + `
data "admission_mutating_webhook_configuration" "one" {
  name = admission_mutating_webhook_configuration.test.metadata[0].name
}

data "admission_mutating_webhook_configurations" "labelled" {
  label_selector = "app=injector,tier=platform"
  depends_on     = [admission_mutating_webhook_configuration.test]
}
`
	one := "data.admission_mutating_webhook_configuration.one"
	list := "data.admission_mutating_webhook_configurations.labelled"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkGone(t, name),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(one, tfjsonpath.New("id"), knownvalue.StringExact(name)),
					statecheck.ExpectKnownValue(one, tfjsonpath.New("metadata").AtSliceIndex(0).AtMapKey("uid"), knownvalue.NotNull()),
					statecheck.ExpectKnownValue(one, tfjsonpath.New("metadata").AtSliceIndex(0).AtMapKey("resource_version"), knownvalue.NotNull()),
					statecheck.ExpectKnownValue(one, tfjsonpath.New("metadata").AtSliceIndex(0).AtMapKey("creation_timestamp"), knownvalue.NotNull()),
					statecheck.ExpectKnownValue(one, tfjsonpath.New("metadata").AtSliceIndex(0).AtMapKey("labels"),
						knownvalue.MapExact(map[string]knownvalue.Check{"app": knownvalue.StringExact("injector"), "tier": knownvalue.StringExact("platform")})),
					statecheck.ExpectKnownValue(one, webhookPath(0, "client_config", 0, "service", 0, "port"), knownvalue.Int64Exact(8443)),
					statecheck.ExpectKnownValue(one, webhookPath(0, "client_config", 0, "ca_bundle"), knownvalue.StringExact(caPEM)),
					statecheck.ExpectKnownValue(one, webhookPath(0, "match_conditions", 1, "expression"), knownvalue.StringExact("object != null && has(object.spec)")),
					statecheck.ExpectKnownValue(one, webhookPath(0, "namespace_selector", 0, "match_expressions", 0, "values"),
						knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("kube-system"), knownvalue.StringExact("injector-system")})),
					statecheck.ExpectKnownValue(one, webhookPath(1, "client_config", 0, "url"), knownvalue.StringExact("https://injector.example.com:9443/mutate")),
					statecheck.ExpectKnownValue(list, tfjsonpath.New("items"), knownvalue.ListSizeExact(1)),
					statecheck.ExpectKnownValue(list, tfjsonpath.New("items").AtSliceIndex(0).AtMapKey("id"), knownvalue.StringExact(name)),
				},
			},
			{
				// The finalizer of the full configuration would hold the
				// final destroy: end on the minimal one.
				Config: minimalConfig(t, name),
			},
		},
	})
}

func TestAccDataSourceErrors(t *testing.T) {
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      acctest.ProviderBlock(t) + `data "admission_mutating_webhook_configuration" "x" { name = "does-not-exist.example.com" }`,
				ExpectError: regexp.MustCompile(`no MutatingWebhookConfiguration named "does-not-exist.example.com"`),
			},
			{
				Config:      acctest.ProviderBlock(t) + `data "admission_mutating_webhook_configurations" "x" { label_selector = "a in (" }`,
				ExpectError: regexp.MustCompile(`Invalid label selector`),
			},
			// Last, a configuration the final destroy can read.
			{Config: acctest.ProviderBlock(t)},
		},
	})
}
