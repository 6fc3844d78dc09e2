package provider_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
)

// listConfig reads from the cluster through the given provider block: it
// succeeds only if the provider reached the API server and was let in.
func listConfig(providerBlock string) string {
	return providerBlock + `
data "admission_mutating_webhook_configurations" "all" {}
`
}

func expectReached() []statecheck.StateCheck {
	return []statecheck.StateCheck{
		statecheck.ExpectKnownValue("data.admission_mutating_webhook_configurations.all", tfjsonpath.New("items"), knownvalue.NotNull()),
	}
}

func TestAccConnectKubeconfigWithContext(t *testing.T) {
	t.Parallel() // its own objects; no environment variable
	cp := acctest.Cluster(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{
				// The "nobody" context authenticates but has no RBAC grant.
				Config: listConfig(fmt.Sprintf(`provider "admission" {
  config_path    = %q
  config_context = "nobody"
}`, cp.KubeconfigPath)),
				ExpectError: regexp.MustCompile(`(?s)forbidden.*RBAC`),
			},
			{
				Config: listConfig(fmt.Sprintf(`provider "admission" {
  config_path    = %q
  config_context = "no-such-context"
}`, cp.KubeconfigPath)),
				ExpectError: regexp.MustCompile(`(?s)config_context.*no-such-context`),
			},
			// Last, so that the test's final destroy can configure the provider.
			{
				Config: listConfig(fmt.Sprintf(`provider "admission" {
  config_path    = %q
  config_context = "admin-token"
}`, cp.KubeconfigPath)),
				ConfigStateChecks: expectReached(),
			},
		},
	})
}

func TestAccConnectKubeconfigFromEnvironment(t *testing.T) {
	cp := acctest.Cluster(t)
	t.Setenv("KUBE_CONFIG_PATH", cp.KubeconfigPath)
	t.Setenv("KUBE_CTX", "admin-cert")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config:            listConfig(`provider "admission" {}`),
			ConfigStateChecks: expectReached(),
		}},
	})
}

func TestAccConnectHostAndToken(t *testing.T) {
	t.Parallel() // its own objects; no environment variable
	cp := acctest.Cluster(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: listConfig(fmt.Sprintf(`provider "admission" {
  host                   = %q
  token                  = %q
  cluster_ca_certificate = %q
}`, cp.Host, cp.AdminToken, cp.CAPEM)),
				ConfigStateChecks: expectReached(),
			},
			{
				Config: listConfig(fmt.Sprintf(`provider "admission" {
  host                   = %q
  token                  = "not-a-valid-token"
  cluster_ca_certificate = %q
}`, cp.Host, cp.CAPEM)),
				ExpectError: regexp.MustCompile(`(?s)Unauthorized.*credentials`),
			},
			{
				// Without the CA the server's certificate cannot be verified.
				Config: listConfig(fmt.Sprintf(`provider "admission" {
  host  = %q
  token = %q
}`, cp.Host, cp.AdminToken)),
				ExpectError: regexp.MustCompile(`(?s)certificate.*cluster_ca_certificate`),
			},
		},
	})
}

func TestAccConnectHostAndClientCertificate(t *testing.T) {
	t.Parallel() // its own objects; no environment variable
	cp := acctest.Cluster(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: listConfig(fmt.Sprintf(`provider "admission" {
  host                   = %q
  client_certificate     = %q
  client_key             = %q
  cluster_ca_certificate = %q
}`, cp.Host, cp.AdminCertPEM, cp.AdminKeyPEM, cp.CAPEM)),
			ConfigStateChecks: expectReached(),
		}},
	})
}

func TestAccConnectExecPlugin(t *testing.T) {
	t.Parallel() // its own objects; no environment variable
	cp := acctest.Cluster(t)
	plugin := filepath.Join(t.TempDir(), "credential-plugin")
	script := `#!/bin/sh
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"}}' "$PLUGIN_TOKEN"
`
	if err := os.WriteFile(plugin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: listConfig(fmt.Sprintf(`provider "admission" {
  host                   = %q
  cluster_ca_certificate = %q
  exec {
    api_version = "client.authentication.k8s.io/v1"
    command     = %q
    env         = { PLUGIN_TOKEN = %q }
  }
}`, cp.Host, cp.CAPEM, plugin, cp.AdminToken)),
			ConfigStateChecks: expectReached(),
		}},
	})
}

func TestAccBadKubeconfigPathNamesTheAttribute(t *testing.T) {
	acctest.Cluster(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      listConfig(`provider "admission" { config_path = "/nonexistent/kubeconfig" }`),
			ExpectError: regexp.MustCompile(`(?s)config_path.*/nonexistent/kubeconfig`),
		}},
	})
}

// A cluster made in the same run: its address is unknown at plan. The plan
// must not fail, and the apply connects once the address is known.
func TestAccConnectSettingsUnknownAtPlan(t *testing.T) {
	t.Parallel() // its own objects; no environment variable
	cp := acctest.Cluster(t)
	name := "unknown-at-plan.admission.example.com"
	cfg := fmt.Sprintf(`
resource "terraform_data" "cluster" {
  input = %q
}

provider "admission" {
  host                   = terraform_data.cluster.output
  token                  = %q
  cluster_ca_certificate = %q
}

resource "admission_mutating_webhook_configuration" "test" {
  metadata {
    name = %q
  }
  webhook {
    name                      = "made.with.cluster"
    admission_review_versions = ["v1"]
    side_effects              = "None"
    client_config {
      url = "https://webhook.example.com/mutate"
    }
  }
}
`, cp.Host, cp.AdminToken, cp.CAPEM, name)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("admission_mutating_webhook_configuration.test", tfjsonpath.New("id"), knownvalue.StringExact(name)),
			},
		}},
	})
}
