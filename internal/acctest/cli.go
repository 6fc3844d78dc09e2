package acctest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/provider"
)

// Diagnostic is one diagnostic of `terraform plan -json`.
type Diagnostic struct {
	Severity string `json:"severity"`
	Summary  string `json:"summary"`
	Detail   string `json:"detail"`
	Address  string `json:"address"`
	Range    *struct {
		Start struct {
			Line int `json:"line"`
		} `json:"start"`
	} `json:"range"`
	Snippet *struct {
		Code string `json:"code"`
	} `json:"snippet"`
}

// Plan runs `terraform plan -json` on a module made of cfg (a provider block
// and resources, without the terraform block), with the provider served
// from this process, and returns the diagnostics the CLI printed and
// whether the plan succeeded. Unlike resource.Test, it shows warnings.
func Plan(t *testing.T, cfg string) ([]Diagnostic, bool) {
	t.Helper()
	w := NewWorkdir(t)
	return w.Run(cfg, "plan", "-json", "-input=false", "-lock=false", "-refresh=false")
}

// Workdir is a module directory that keeps its state from one run of the CLI to the next, with
// the provider served from this process: for the outcome of applies (their warnings included)
// that resource.Test does not show.
type Workdir struct {
	t           *testing.T
	tf, dir     string
	address     string
	initialized bool
}

// NewWorkdir is a new module directory; the provider it serves stops when the test ends.
func NewWorkdir(t *testing.T) *Workdir {
	t.Helper()
	Cluster(t)
	tf := TerraformPath(t)
	host, namespace := os.Getenv("TF_ACC_PROVIDER_HOST"), os.Getenv("TF_ACC_PROVIDER_NAMESPACE")
	if host == "" {
		host = "registry.terraform.io"
	}
	if namespace == "" {
		namespace = "seed-a73d233f"
	}
	return &Workdir{t: t, tf: tf, dir: t.TempDir(), address: host + "/" + namespace + "/admission"}
}

// Apply runs `terraform apply -json` of cfg (a provider block and resources, without the
// terraform block) and returns the diagnostics the CLI printed and whether it succeeded.
func (w *Workdir) Apply(cfg string) ([]Diagnostic, bool) {
	w.t.Helper()
	return w.Run(cfg, "apply", "-json", "-input=false", "-lock=false", "-auto-approve")
}

// Destroy runs `terraform destroy` of cfg and fails the test when it fails.
func (w *Workdir) Destroy(cfg string) {
	w.t.Helper()
	if diags, ok := w.Run(cfg, "destroy", "-json", "-input=false", "-lock=false", "-auto-approve"); !ok {
		w.t.Errorf("terraform destroy failed: %+v", diags)
	}
}

// Run writes cfg as the module and runs the CLI with args (the first run initializes the
// directory), and returns the diagnostics of its -json output and whether it succeeded.
func (w *Workdir) Run(cfg string, args ...string) ([]Diagnostic, bool) {
	w.t.Helper()
	t := w.t
	providers, stop := ServeProvider(t, w.address)
	defer stop()

	module := RequiredProviders(w.address) + cfg
	if err := os.WriteFile(filepath.Join(w.dir, "main.tf"), []byte(module), 0o600); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1", "TF_REATTACH_PROVIDERS="+providers)
	command := func(args ...string) (string, error) {
		cmd := exec.Command(w.tf, args...)
		cmd.Dir, cmd.Env = w.dir, env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
	if !w.initialized {
		if out, err := command("init", "-input=false", "-backend=false"); err != nil {
			t.Fatalf("terraform init: %v\n%s", err, out)
		}
		w.initialized = true
	}
	out, err := command(args...)
	var diags []Diagnostic
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var line struct {
			Type       string      `json:"type"`
			Diagnostic *Diagnostic `json:"diagnostic"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Type == "diagnostic" && line.Diagnostic != nil {
			diags = append(diags, *line.Diagnostic)
		}
	}
	return diags, err == nil
}

// TerraformPath is the CLI the acceptance tests run (TF_ACC_TERRAFORM_PATH).
// Outside acceptance runs (TF_ACC unset) it skips the test, saying why, as
// Cluster does; in one, the test fails when the CLI is not set.
func TerraformPath(t *testing.T) string {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 (make test does) to run it with the Terraform CLI")
	}
	tf := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if tf == "" {
		t.Fatal("TF_ACC_TERRAFORM_PATH is not set (make test sets it)")
	}
	return tf
}

// ServeProvider serves the provider from this process under address, for
// the CLI to reattach to (tf6server.WithDebug), and returns the value of
// TF_REATTACH_PROVIDERS that points the CLI at it and the function that
// stops it.
func ServeProvider(t *testing.T, address string) (reattachProviders string, stop func()) {
	t.Helper()
	return serveProvider(t, address, provider.NewServer("test"))
}

// ServeProviderWith is ServeProvider with the server that newServer
// makes (provider.NewServerMode, to choose the mode whatever
// TF_ADMISSION_PROTOCOL says).
func ServeProviderWith(t *testing.T, address string, newServer func() tfprotov6.ProviderServer) (reattachProviders string, stop func()) {
	t.Helper()
	return serveProvider(t, address, newServer)
}

func serveProvider(t *testing.T, address string, server func() tfprotov6.ProviderServer) (reattachProviders string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	reattach := make(chan *plugin.ReattachConfig)
	closed := make(chan struct{})
	go func() {
		if err := tf6server.Serve(address, server, tf6server.WithDebug(ctx, reattach, closed), tf6server.WithLoggingSink(t)); err != nil {
			t.Errorf("serve the provider: %v", err)
		}
	}()
	rc := <-reattach
	stop = func() { cancel(); <-closed }
	providers, err := json.Marshal(map[string]any{address: map[string]any{
		"Protocol": "grpc", "ProtocolVersion": 6, "Pid": rc.Pid, "Test": true,
		"Addr": map[string]string{"Network": rc.Addr.Network(), "String": rc.Addr.String()},
	}})
	if err != nil {
		stop()
		t.Fatal(err)
	}
	return string(providers), stop
}

// RequiredProviders is the terraform block of a module that requires the
// provider from address.
func RequiredProviders(address string) string {
	return fmt.Sprintf("terraform {\n  required_providers {\n    admission = { source = %q }\n  }\n}\n", address)
}
