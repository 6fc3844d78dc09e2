package webhook_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
)

// An object made with client-go, adopted with an import block (Terraform
// 1.5 and later) and then managed: the plan after the import is empty.
func TestAccImportBlockOfObjectMadeWithClientGo(t *testing.T) {
	name := randomName()
	cs := acctest.Clientset(t)
	createWithClientGo(t, cs, name)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkGone(t, name),
		Steps: []resource.TestStep{
			{
				Config:          minimalConfig(t, name),
				ResourceName:    resourceAddr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportStateId:   name,
			},
			{
				// Take it over with the import block's result, as a user would.
				Config:             minimalConfig(t, name),
				ResourceName:       resourceAddr,
				ImportState:        true,
				ImportStateId:      name,
				ImportStatePersist: true,
			},
			{
				Config: minimalConfig(t, name),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(resourceAddr, webhookPath(0, "timeout_seconds"), knownvalue.Int64Exact(10)),
				},
			},
		},
	})
}

// Import by resource identity (import { identity = { name = ... } }), which
// Terraform supports from 1.12. Older CLIs skip this test and say so.
func TestAccImportByResourceIdentity(t *testing.T) {
	name := randomName()
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		TerraformVersionChecks: []tfversion.TerraformVersionCheck{
			tfversion.SkipBelow(tfversion.Version1_12_0),
		},
		CheckDestroy: checkGone(t, name),
		Steps: []resource.TestStep{
			{
				Config: minimalConfig(t, name),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectIdentity(resourceAddr, map[string]knownvalue.Check{
						"name": knownvalue.StringExact(name),
					}),
				},
			},
			{
				Config:          minimalConfig(t, name),
				ResourceName:    resourceAddr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithResourceIdentity,
			},
		},
	})
}
