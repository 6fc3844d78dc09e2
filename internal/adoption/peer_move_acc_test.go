package adoption_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tfjson "github.com/hashicorp/terraform-json"
	sdkacctest "github.com/hashicorp/terraform-plugin-testing/helper/acctest"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	admissionv1 "k8s.io/client-go/kubernetes/typed/admissionregistration/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/benchmark"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/jsontest"
)

// TestAccMoveFromRealHashicorpKubernetes moves objects made by the real
// hashicorp/kubernetes provider, not the stand-in: the binary that
// ADMISSION_BENCH_PEER names (as for make bench), built from that provider's
// own repository, since the Go module proxy serves none of its recent
// releases. Both webhook kinds and two validating admission policies are
// applied with it, a controller injects the caBundle of one webhook, and its
// state is refreshed twice, as every plan and apply with it does. Moved with
// `moved` blocks to a configuration that is the same but for the resource
// types (and the policies' blocks), the plan moves them and changes nothing
// but the one `reason` hashicorp/kubernetes recorded and never sent, with a
// warning on its line; the apply sends nothing else (resourceVersions kept),
// and the plan after it is empty.
func TestAccMoveFromRealHashicorpKubernetes(t *testing.T) {
	peer := benchmark.PeerFromEnv()
	if peer.Binary == "" {
		t.Skip("needs the real hashicorp/kubernetes provider (make testacc-peer): " + peer.Reason)
	}
	cluster := acctest.Cluster(t) // skips outside acceptance runs
	tf := acctest.TerraformPath(t)
	t.Logf("hashicorp/kubernetes: %s", peer.About)

	plugins := t.TempDir()
	if err := os.Symlink(peer.Binary, filepath.Join(plugins, "terraform-provider-kubernetes")); err != nil {
		t.Fatal(err)
	}
	rc := acctest.DevProviderWith(t, map[string]string{
		"registry.terraform.io/hashicorp/kubernetes": plugins,
		"registry.opentofu.org/hashicorp/kubernetes": plugins,
	})
	dir := t.TempDir()
	suffix := strings.ToLower(sdkacctest.RandString(6))
	names := peerNames{
		injector: "injector-" + suffix + ".example.com",
		checker:  "checker-" + suffix + ".example.com",
		plain:    "plain-" + suffix + ".example.com",
		reasoned: "reasoned-" + suffix + ".example.com",
	}
	write := func(config string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) string {
		t.Helper()
		return acctest.MustRun(t, dir, rc, tf, args...)
	}
	api := acctest.Clientset(t).AdmissionregistrationV1()
	ctx := context.Background()

	// hashicorp/kubernetes makes the objects.
	write(peerRequiredProviders + peerProviderBlocks(cluster.KubeconfigPath) + peerHashicorpResources(names))
	start := time.Now()
	run("apply", "-auto-approve", "-input=false", "-no-color")
	t.Logf("hashicorp/kubernetes applied 2 webhook configurations and 2 policies in %s", time.Since(start).Round(time.Millisecond))

	// A controller (cert-manager's CA injector) fills in the checker's caBundle.
	ca := selfSignedPEM(t)
	patch := fmt.Sprintf(`{"webhooks":[{"name":"check.checker.example.com","clientConfig":{"caBundle":%q}}]}`, base64.StdEncoding.EncodeToString([]byte(ca)))
	if _, err := api.ValidatingWebhookConfigurations().Patch(ctx, names.checker, k8stypes.StrategicMergePatchType, []byte(patch),
		metav1.PatchOptions{FieldManager: "cert-manager-cainjector"}); err != nil {
		t.Fatal(err)
	}

	// Its state, refreshed twice.
	run("apply", "-refresh-only", "-auto-approve", "-input=false", "-no-color")
	run("apply", "-refresh-only", "-auto-approve", "-input=false", "-no-color")
	refreshed := showState(t, run("show", "-json"))
	for addr, keys := range map[string][]string{
		"kubernetes_mutating_webhook_configuration_v1.injector":  {"labels", "annotations"},
		"kubernetes_validating_webhook_configuration_v1.checker": {"annotations"},
	} {
		for _, key := range keys {
			v, _ := jsontest.At(refreshed.attr(t, addr, "metadata"), 0, key)
			if m, ok := v.(map[string]any); !ok || len(m) != 0 {
				t.Errorf("the refreshed state of %s has %s = %v, want {} (what the move must read as none)", addr, key, v)
			}
		}
	}
	if got, _ := jsontest.At(refreshed.attr(t, "kubernetes_validating_webhook_configuration_v1.checker", "webhook"), 0, "client_config", 0, "ca_bundle"); got != ca {
		t.Errorf("the refreshed state of the checker has ca_bundle %v, want the injected one", got)
	}
	before := peerVersions(t, api, names)

	// The move, with this provider's configuration: the types renamed,
	// the policies' nested attributes as blocks, and moved blocks.
	write(peerRequiredProviders + peerProviderBlocks(cluster.KubeconfigPath) + peerMovedResources(names))
	start = time.Now()
	out := run("plan", "-input=false", "-no-color", "-out=move.tfplan")
	t.Logf("the plan of the move took %s", time.Since(start).Round(time.Millisecond))
	if !strings.Contains(out, "Plan: 0 to add, 1 to change, 0 to destroy.") {
		t.Errorf("the plan of the move is not the moves and one change:\n%s", out)
	}
	warning := "Warning: The server never got this value"
	if n := strings.Count(out, warning); n != 1 {
		t.Errorf("the plan has %d warnings %q, want 1:\n%s", n, warning, out)
	} else {
		rest := out[strings.Index(out, warning):]
		line := peerReasonLine(t, filepath.Join(dir, "main.tf"))
		if want := fmt.Sprintf("on main.tf line %d", line); !strings.Contains(rest[:min(len(rest), 400)], want) {
			t.Errorf("the warning is not on the reason's line (%s):\n%s", want, rest)
		}
	}
	if n := strings.Count(out, "Warning:"); n != 2 || !strings.Contains(out, "Provider development overrides are in effect") {
		t.Errorf("the plan has other warnings than the reason's and dev_overrides':\n%s", out)
	}
	changes := planChanges(t, run("show", "-json", "move.tfplan"))
	moved := map[string]string{
		"admission_mutating_webhook_configuration.injector":  "kubernetes_mutating_webhook_configuration_v1.injector",
		"admission_validating_webhook_configuration.checker": "kubernetes_validating_webhook_configuration_v1.checker",
		"admission_validating_admission_policy.plain":        "kubernetes_validating_admission_policy_v1.plain",
		"admission_validating_admission_policy.reasoned":     "kubernetes_validating_admission_policy_v1.reasoned",
	}
	if len(changes) != len(moved) {
		t.Errorf("the plan has %d resource changes, want %d: %v", len(changes), len(moved), changes)
	}
	for addr, from := range moved {
		c, ok := changes[addr]
		switch {
		case !ok:
			t.Errorf("%s is not in the plan", addr)
			continue
		case c.PreviousAddress != from:
			t.Errorf("%s: moved from %q, want %q", addr, c.PreviousAddress, from)
		}
		want := []string{"no-op"}
		var wantChanged []string
		if addr == "admission_validating_admission_policy.reasoned" {
			want, wantChanged = []string{"update"}, []string{"spec.0.validations.0.reason"}
		}
		if got := actionNames(c.Change.Actions); !slices.Equal(got, want) {
			t.Errorf("%s: actions %v, want %v", addr, got, want)
		}
		if got := acctest.ChangedKnown(c.Change); !slices.Equal(got, wantChanged) {
			t.Errorf("%s: the plan changes %v, want %v", addr, got, wantChanged)
		}
	}
	t.Logf("the plan of the move: %d moves, %d updates (the reason), no create or destroy", len(moved), 1)

	start = time.Now()
	run("apply", "-input=false", "-no-color", "move.tfplan")
	t.Logf("the apply of the move took %s", time.Since(start).Round(time.Millisecond))
	after := peerVersions(t, api, names)
	for _, name := range []string{names.injector, names.checker, names.plain} {
		if before[name] != after[name] {
			t.Errorf("the apply wrote %s: resourceVersion %s before, %s after", name, before[name], after[name])
		}
	}
	if before[names.reasoned] == after[names.reasoned] {
		t.Errorf("the apply did not write the reason of %s", names.reasoned)
	}
	p, err := api.ValidatingAdmissionPolicies().Get(ctx, names.reasoned, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := p.Spec.Validations[0].Reason; r == nil || *r != metav1.StatusReasonForbidden {
		t.Errorf("the reason on the server after the apply: %v, want Forbidden", r)
	}
	c, err := api.ValidatingWebhookConfigurations().Get(ctx, names.checker, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if string(c.Webhooks[0].ClientConfig.CABundle) != ca {
		t.Errorf("the injected caBundle is gone after the move")
	}
	t.Logf("resourceVersions before the apply %v, after %v", before, after)

	out, code := acctest.Run(t, dir, rc, tf, "plan", "-input=false", "-no-color", "-detailed-exitcode")
	if code != 0 {
		t.Errorf("the plan after the move is not empty (exit %d):\n%s", code, out)
	}
	run("destroy", "-auto-approve", "-input=false", "-no-color")
}

type peerNames struct{ injector, checker, plain, reasoned string }

const peerRequiredProviders = `terraform {
  required_providers {
    kubernetes = {
      source = "hashicorp/kubernetes"
    }
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}
`

func peerProviderBlocks(kubeconfig string) string {
	return fmt.Sprintf(`
provider "kubernetes" {
  config_path = %[1]q
}

provider "admission" {
  config_path = %[1]q
}
`, kubeconfig)
}

// The webhooks fail open and spare kube-system, so that nothing but the
// reason's warning is expected at plan. A selector's values are in the order
// hashicorp/kubernetes sends them (a set: sorted), which the server keeps.
const peerWebhookBodies = `
  webhook {
    name                      = "inject.injector.example.com"
    admission_review_versions = ["v1"]
    side_effects              = "None"
    failure_policy            = "Ignore"
    client_config {
      service {
        namespace = "injector"
        name      = "injector"
        path      = "/mutate"
      }
    }
    rule {
      operations   = ["CREATE"]
      api_groups   = [""]
      api_versions = ["v1"]
      resources    = ["pods"]
    }
    namespace_selector {
      match_expressions {
        key      = "kubernetes.io/metadata.name"
        operator = "NotIn"
        values   = ["injector", "kube-system"]
      }
    }
  }
`

const peerCheckerBody = `
  webhook {
    name                      = "check.checker.example.com"
    admission_review_versions = ["v1"]
    side_effects              = "None"
    failure_policy            = "Ignore"
    timeout_seconds           = 5
    client_config {
      url = "https://checker.example.com/validate"
    }
    rule {
      operations   = ["CREATE", "UPDATE"]
      api_groups   = ["apps"]
      api_versions = ["v1"]
      resources    = ["deployments"]
    }
  }
`

func peerHashicorpResources(n peerNames) string {
	return fmt.Sprintf(`
resource "kubernetes_mutating_webhook_configuration_v1" "injector" {
  metadata {
    name = %[1]q
  }
%[5]s}

resource "kubernetes_validating_webhook_configuration_v1" "checker" {
  metadata {
    name   = %[2]q
    labels = { team = "platform" }
  }
%[6]s
  lifecycle {
    # cert-manager's CA injector fills it in
    ignore_changes = [webhook[0].client_config[0].ca_bundle]
  }
}

resource "kubernetes_validating_admission_policy_v1" "plain" {
  metadata = {
    name = %[3]q
  }
  spec = {
    failure_policy = "Ignore"
    match_constraints = {
      resource_rules = [{
        api_groups   = ["apps"]
        api_versions = ["v1"]
        operations   = ["CREATE", "UPDATE"]
        resources    = ["deployments"]
      }]
    }
    validations = [{
      expression = "object.spec.replicas <= 5"
      message    = "at most 5 replicas"
    }]
    audit_annotations = [{
      key              = "replicas"
      value_expression = "string(object.spec.replicas)"
    }]
  }
}

resource "kubernetes_validating_admission_policy_v1" "reasoned" {
  metadata = {
    name   = %[4]q
    labels = { team = "platform" }
  }
  spec = {
    failure_policy = "Ignore"
    match_constraints = {
      resource_rules = [{
        api_groups   = ["apps"]
        api_versions = ["v1"]
        operations   = ["CREATE", "UPDATE"]
        resources    = ["deployments"]
      }]
    }
    validations = [{
      expression = "object.spec.replicas <= 10"
      message    = "at most 10 replicas"
      reason     = "Forbidden"
    }]
    audit_annotations = [{
      key              = "replicas"
      value_expression = "string(object.spec.replicas)"
    }]
  }
}
`, n.injector, n.checker, n.plain, n.reasoned, peerWebhookBodies, peerCheckerBody)
}

func peerMovedResources(n peerNames) string {
	return fmt.Sprintf(`
moved {
  from = kubernetes_mutating_webhook_configuration_v1.injector
  to   = admission_mutating_webhook_configuration.injector
}

moved {
  from = kubernetes_validating_webhook_configuration_v1.checker
  to   = admission_validating_webhook_configuration.checker
}

moved {
  from = kubernetes_validating_admission_policy_v1.plain
  to   = admission_validating_admission_policy.plain
}

moved {
  from = kubernetes_validating_admission_policy_v1.reasoned
  to   = admission_validating_admission_policy.reasoned
}

resource "admission_mutating_webhook_configuration" "injector" {
  metadata {
    name = %[1]q
  }
%[5]s}

resource "admission_validating_webhook_configuration" "checker" {
  metadata {
    name   = %[2]q
    labels = { team = "platform" }
  }
%[6]s}

resource "admission_validating_admission_policy" "plain" {
  metadata {
    name = %[3]q
  }
  spec {
    failure_policy = "Ignore"
    match_constraints {
      resource_rules {
        api_groups   = ["apps"]
        api_versions = ["v1"]
        operations   = ["CREATE", "UPDATE"]
        resources    = ["deployments"]
      }
    }
    validations {
      expression = "object.spec.replicas <= 5"
      message    = "at most 5 replicas"
    }
    audit_annotations {
      key              = "replicas"
      value_expression = "string(object.spec.replicas)"
    }
  }
}

resource "admission_validating_admission_policy" "reasoned" {
  metadata {
    name   = %[4]q
    labels = { team = "platform" }
  }
  spec {
    failure_policy = "Ignore"
    match_constraints {
      resource_rules {
        api_groups   = ["apps"]
        api_versions = ["v1"]
        operations   = ["CREATE", "UPDATE"]
        resources    = ["deployments"]
      }
    }
    validations {
      expression = "object.spec.replicas <= 10"
      message    = "at most 10 replicas"
      reason     = "Forbidden"
    }
    audit_annotations {
      key              = "replicas"
      value_expression = "string(object.spec.replicas)"
    }
  }
}
`, n.injector, n.checker, n.plain, n.reasoned, peerWebhookBodies, peerCheckerBody)
}

// peerReasonLine is the line of the reason in the configuration file.
func peerReasonLine(t *testing.T, file string) int {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(raw), "\n") {
		if strings.Contains(line, `reason     = "Forbidden"`) {
			return i + 1
		}
	}
	t.Fatal("no reason in the configuration")
	return 0
}

// peerVersions are the resourceVersions of the objects, by name.
func peerVersions(t *testing.T, api admissionv1.AdmissionregistrationV1Interface, n peerNames) map[string]string {
	t.Helper()
	ctx := context.Background()
	versions := map[string]string{}
	get := func(name string, meta metav1.Object, err error) {
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		versions[name] = meta.GetResourceVersion()
	}
	m, err := api.MutatingWebhookConfigurations().Get(ctx, n.injector, metav1.GetOptions{})
	get(n.injector, m, err)
	v, err := api.ValidatingWebhookConfigurations().Get(ctx, n.checker, metav1.GetOptions{})
	get(n.checker, v, err)
	for _, name := range []string{n.plain, n.reasoned} {
		p, err := api.ValidatingAdmissionPolicies().Get(ctx, name, metav1.GetOptions{})
		get(name, p, err)
	}
	return versions
}

// selfSignedPEM is a throwaway CA certificate, as an injector would fill in.
func selfSignedPEM(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "injected-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(365 * 24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// shownState is `terraform show -json` of a state.
type shownState struct {
	Values struct {
		RootModule struct {
			Resources []struct {
				Address string         `json:"address"`
				Values  map[string]any `json:"values"`
			} `json:"resources"`
		} `json:"root_module"`
	} `json:"values"`
}

func showState(t *testing.T, out string) shownState {
	t.Helper()
	var s shownState
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &s); err != nil {
		t.Fatalf("terraform show -json: %v\n%s", err, out)
	}
	return s
}

func (s shownState) attr(t *testing.T, addr, name string) any {
	t.Helper()
	for _, r := range s.Values.RootModule.Resources {
		if r.Address == addr {
			return r.Values[name]
		}
	}
	t.Fatalf("%s is not in the state", addr)
	return nil
}

// planChanges are the resource changes of `terraform show -json` of a
// plan, by address.
func planChanges(t *testing.T, out string) map[string]*tfjson.ResourceChange {
	t.Helper()
	var p tfjson.Plan
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &p); err != nil {
		t.Fatalf("terraform show -json: %v\n%s", err, out)
	}
	changes := map[string]*tfjson.ResourceChange{}
	for _, c := range p.ResourceChanges {
		changes[c.Address] = c
	}
	return changes
}

func actionNames(actions tfjson.Actions) []string {
	var out []string
	for _, a := range actions {
		out = append(out, string(a))
	}
	return out
}
