// Package acctest runs acceptance tests against a real local control plane:
// one etcd and kube-apiserver per test binary, shared by its tests.
package acctest

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"k8s.io/client-go/kubernetes"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest/controlplane"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/provider"
)

// ProviderFactories serve the provider in-process to the Terraform CLI.
var ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"admission": func() (tfprotov6.ProviderServer, error) { return provider.NewServer("test")(), nil },
}

var cluster *controlplane.ControlPlane

// ProveWebhooksEnv is the environment variable of the provider's prove_webhooks setting.
const ProveWebhooksEnv = "ADMISSION_PROVE_WEBHOOKS"

// Main runs a package's tests. With TF_ACC set it first starts the local
// control plane, and stops it when the tests are done.
func Main(m *testing.M) { MainWith(m, controlplane.Options{}) }

// MainWith is Main with a control plane started with opts (extra flags of kube-apiserver, such
// as an audit log).
func MainWith(m *testing.M, opts controlplane.Options) {
	if os.Getenv("TF_ACC") != "" && os.Getenv(ProveWebhooksEnv) == "" {
		// The suite's webhooks call hosts that do not exist (webhooks.example.com): the proof
		// at apply that the API server can call them, on by default, would fail every apply
		// of a fail-closed one. The tests of the proof ask for it in their provider block
		// (prove_webhooks = true), which wins over the environment.
		_ = os.Setenv(ProveWebhooksEnv, "false")
	}
	os.Exit(controlplane.RunTests(m, "acctest", opts, &cluster))
}

// Cluster is the running control plane. Outside acceptance runs (TF_ACC
// unset) it skips the test, saying why.
func Cluster(t testing.TB) *controlplane.ControlPlane {
	t.Helper()
	return controlplane.Require(t, cluster)
}

// Clientset is an admin client of the control plane, for checks and for
// changes made "outside Terraform".
func Clientset(t testing.TB) kubernetes.Interface {
	t.Helper()
	cs, err := kubernetes.NewForConfig(Cluster(t).RESTConfig())
	if err != nil {
		t.Fatalf("clientset: %v", err)
	}
	return cs
}

// ProviderBlock is a provider block that reaches the control plane through
// its kubeconfig, with extra settings appended.
func ProviderBlock(t testing.TB, extra ...string) string {
	t.Helper()
	return fmt.Sprintf("provider \"admission\" {\n  config_path = %q\n  %s\n}\n", Cluster(t).KubeconfigPath, strings.Join(extra, "\n  "))
}
