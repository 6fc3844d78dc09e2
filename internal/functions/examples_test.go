package functions_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The example of examples/testing passes `terraform test` with the provider
// built from this tree (dev_overrides), with no cluster; and the same test
// with one expectation turned around fails, so its assertions can fail.
func TestAccExampleTerraformTest(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("runs the terraform CLI: set TF_ACC=1 (make test does)")
	}
	tf := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if tf == "" {
		var err error
		if tf, err = exec.LookPath("terraform"); err != nil {
			t.Fatal("TF_ACC_TERRAFORM_PATH is not set and there is no terraform on PATH (make test sets it)")
		}
	}
	if strings.HasPrefix(filepath.Base(tf), "tofu") {
		t.Log("running the example with OpenTofu")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "terraform-provider-admission"), ".")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	rc := filepath.Join(bin, "cli.tfrc")
	source := "seed-a73d233f/admission"
	if h := os.Getenv("TF_ACC_PROVIDER_HOST"); h != "" {
		source = h + "/" + source
	}
	if err := os.WriteFile(rc, fmt.Appendf(nil, "provider_installation {\n  dev_overrides {\n    %q = %q\n  }\n  direct {}\n}\n", source, bin), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, module string) (string, error) {
		cmd := exec.Command(tf, "test", "-no-color")
		cmd.Dir = module
		cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "CHECKPOINT_DISABLE=1", "KUBE_CONFIG_PATH=", "KUBE_CONFIG_PATHS=", "KUBE_HOST=")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	t.Run("passes", func(t *testing.T) {
		module := copyModule(t, filepath.Join(root, "examples", "testing"))
		out, err := run(t, module)
		if err != nil || !strings.Contains(out, "4 passed, 0 failed") {
			t.Fatalf("terraform test: %v\n%s", err, out)
		}
	})
	// Each expectation turned around must fail: a denial expected admitted, and the whole
	// chain's admission expected denied.
	for _, c := range []struct{ from, to, message string }{
		{"condition = !provider::admission::validate(", "condition = provider::admission::validate(", "A Deployment of 6 replicas must be denied."},
		{"condition = provider::admission::admit(", "condition = !provider::admission::admit(", "A new Deployment without a team must be labelled, then admitted."},
	} {
		t.Run("can fail: "+c.message, func(t *testing.T) {
			module := copyModule(t, filepath.Join(root, "examples", "testing"))
			test := filepath.Join(module, "tests", "admission.tftest.hcl")
			data, err := os.ReadFile(test)
			if err != nil {
				t.Fatal(err)
			}
			changed := strings.Replace(string(data), c.from, c.to, 1)
			if changed == string(data) {
				t.Fatalf("the example has no %q to turn around", c.from)
			}
			if err := os.WriteFile(test, []byte(changed), 0o600); err != nil {
				t.Fatal(err)
			}
			out, err := run(t, module)
			if err == nil || !strings.Contains(out, c.message) {
				t.Fatalf("terraform test passed with a wrong expectation: %v\n%s", err, out)
			}
		})
	}
}

// copyModule copies the example's files (not what a run leaves behind) to
// a temporary directory.
func copyModule(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if strings.HasPrefix(d.Name(), ".terraform") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !strings.HasSuffix(path, ".tf") && !strings.HasSuffix(path, ".hcl") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}
