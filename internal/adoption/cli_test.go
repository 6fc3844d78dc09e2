package adoption_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
)

// module is a root module run with the Terraform CLI as a person runs it,
// with the provider served from this test process (TF_REATTACH_PROVIDERS):
// unlike resource.Test, its output shows the plan's summary line and every
// warning.
type module struct {
	t   *testing.T
	tf  string
	dir string
	env []string
}

const providerAddress = "registry.terraform.io/seed-a73d233f/admission"

func newModule(t *testing.T) *module {
	t.Helper()
	acctest.Cluster(t) // skips outside acceptance runs
	tf := acctest.TerraformPath(t)
	providers, stop := acctest.ServeProvider(t, providerAddress)
	t.Cleanup(stop)
	m := &module{t: t, tf: tf, dir: t.TempDir()}
	rcFile := filepath.Join(t.TempDir(), "cli.tfrc")
	if err := os.WriteFile(rcFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	m.env = append(os.Environ(), "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1", "TF_CLI_CONFIG_FILE="+rcFile, "TF_REATTACH_PROVIDERS="+providers)
	m.write("versions.tf", acctest.RequiredProviders(providerAddress))
	if out, code := m.run("init", "-input=false"); code != 0 {
		t.Fatalf("terraform init (exit %d):\n%s", code, out)
	}
	return m
}

func (m *module) write(name, content string) {
	m.t.Helper()
	if err := os.WriteFile(filepath.Join(m.dir, name), []byte(content), 0o600); err != nil {
		m.t.Fatal(err)
	}
}

// run runs the CLI with args and returns its output and exit code.
func (m *module) run(args ...string) (string, int) {
	m.t.Helper()
	cmd := exec.Command(m.tf, append(args, "-no-color")...)
	if args[0] == "init" {
		cmd = exec.Command(m.tf, args...)
	}
	cmd.Dir, cmd.Env = m.dir, m.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out.String(), 0
	case errors.As(err, &exit):
		return out.String(), exit.ExitCode()
	}
	m.t.Fatalf("terraform %s: %v", strings.Join(args, " "), err)
	return "", -1
}

// mustRun runs the CLI and fails the test unless it exits 0.
func (m *module) mustRun(args ...string) string {
	m.t.Helper()
	out, code := m.run(args...)
	if code != 0 {
		m.t.Fatalf("terraform %s (exit %d):\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

// plan runs terraform plan and returns its output, failing the test unless
// it has the summary line want ("" for no changes).
func (m *module) plan(want string) string {
	m.t.Helper()
	out, code := m.run("plan", "-input=false", "-detailed-exitcode")
	switch {
	case want == "" && code != 0:
		m.t.Fatalf("the plan is not empty (exit %d):\n%s", code, out)
	case want != "" && (code != 2 || !strings.Contains(out, want)):
		m.t.Fatalf("the plan does not say %q (exit %d):\n%s", want, code, out)
	}
	return out
}

// newWarnings are the warnings of an apply's output that its plan (planned)
// did not give: what the apply itself says about what it did.
func newWarnings(planned, applied string) []string {
	before := map[string]bool{}
	for _, w := range warnings(planned) {
		before[w] = true
	}
	var out []string
	for _, w := range warnings(applied) {
		if !before[w] {
			out = append(out, w)
		}
	}
	return out
}

// warnings are the summaries of the warnings in CLI output.
func warnings(out string) []string {
	var ws []string
	for line := range strings.SplitSeq(out, "\n") {
		line = strings.TrimLeft(line, "│ ")
		if s, ok := strings.CutPrefix(line, "Warning: "); ok {
			ws = append(ws, s)
		}
	}
	return ws
}
