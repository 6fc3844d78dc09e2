package acctest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The tests of `terraform query -generate-config-out` run the real CLI with
// the provider built from the tree, as a user would: the CLI has no test
// mode for it.

// DevProvider builds the provider from the tree and returns a Terraform CLI
// configuration file whose dev_overrides use that build.
func DevProvider(t *testing.T) string {
	t.Helper()
	return DevProviderWith(t, nil)
}

// DevProviderWith is DevProvider with more dev_overrides: the directory of
// each other provider's binary, by source address.
func DevProviderWith(t *testing.T, others map[string]string) string {
	t.Helper()
	Cluster(t) // skips outside acceptance runs
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	work := t.TempDir()
	bin := filepath.Join(work, "bin")
	cmd := exec.Command("go", "build", "-o", filepath.Join(bin, "terraform-provider-admission"), ".")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the provider: %v\n%s", err, out)
	}
	rc := filepath.Join(work, "dev.tfrc")
	overrides := fmt.Sprintf("    %q = %q\n", "registry.terraform.io/seed-a73d233f/admission", bin)
	for _, address := range slices.Sorted(maps.Keys(others)) {
		overrides += fmt.Sprintf("    %q = %q\n", address, others[address])
	}
	if err := os.WriteFile(rc, fmt.Appendf(nil, "provider_installation {\n  dev_overrides {\n%s  }\n  direct {}\n}\n", overrides), 0o644); err != nil {
		t.Fatal(err)
	}
	return rc
}

// TerraformCLI is the CLI the acceptance tests run (TF_ACC_TERRAFORM_PATH).
// It skips the test, saying why, when that CLI has no `terraform query`
// (OpenTofu, Terraform before 1.14).
func TerraformCLI(t *testing.T) string {
	t.Helper()
	tf := TerraformPath(t)
	out, code := Run(t, "", "", tf, "version", "-json")
	var v struct {
		Version string `json:"terraform_version"`
	}
	if i := strings.Index(out, "{"); code != 0 || i < 0 || json.Unmarshal([]byte(out[i:]), &v) != nil {
		t.Fatalf("%s version -json: exit %d\n%s", tf, code, out)
	}
	var major, minor int
	if _, err := fmt.Sscanf(v.Version, "%d.%d", &major, &minor); err != nil {
		t.Fatalf("%s version -json: version %q: %v", tf, v.Version, err)
	}
	if strings.HasPrefix(filepath.Base(tf), "tofu") || major == 1 && minor < 14 {
		t.Skipf("%s %s: terraform query needs Terraform 1.14 or later", filepath.Base(tf), v.Version)
	}
	return tf
}

// Run runs name with args in dir, with the CLI configuration file
// cliConfig when not empty, and returns its output and exit code.
func Run(t *testing.T, dir, cliConfig, name string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1")
	if cliConfig != "" {
		cmd.Env = append(cmd.Env, "TF_CLI_CONFIG_FILE="+cliConfig)
	}
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return buf.String(), exit.ExitCode()
	case err != nil:
		t.Fatalf("%s: %v", name, err)
	}
	return buf.String(), 0
}

// MustRun is Run, failing the test on an exit code other than 0.
func MustRun(t *testing.T, dir, cliConfig, name string, args ...string) string {
	t.Helper()
	out, code := Run(t, dir, cliConfig, name, args...)
	if code != 0 {
		t.Fatalf("%s %s: exit %d\n%s", name, strings.Join(args, " "), code, out)
	}
	return out
}

// ReadOnlyInGeneratedConfig lists what of the read-only attributes (server
// bookkeeping, status) and of the timeouts block generated shows: a
// configuration written by `terraform query -generate-config-out` is one to
// keep, so it has none.
func ReadOnlyInGeneratedConfig(generated string) []string {
	var found []string
	for _, name := range []string{"uid", "resource_version", "generation", "creation_timestamp", "status", "timeouts", "observed_generation"} {
		for _, line := range strings.Split(generated, "\n") {
			if f := strings.Fields(line); len(f) > 0 && f[0] == name {
				found = append(found, strings.TrimSpace(line))
			}
		}
	}
	return found
}
