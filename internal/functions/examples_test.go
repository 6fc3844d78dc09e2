package functions_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
)

// The example of examples/testing passes `terraform test` with the provider
// built from this tree (dev_overrides), with no cluster; and the same test
// with one expectation turned around fails, so its assertions can fail.
func TestAccExampleTerraformTest(t *testing.T) {
	t.Parallel() // the CLI on copies of the examples
	tf, rc, root := terraformWithProvider(t)
	if strings.HasPrefix(filepath.Base(tf), "tofu") {
		t.Log("running the example with OpenTofu")
	}
	run := func(t *testing.T, module string) (string, error) {
		return terraform(module, tf, rc, "test", "-no-color")
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

// The examples of the functions' pages plan with no cluster, as their pages
// say, with the provider built from this tree, and their outputs hold what
// their comments show.
func TestAccFunctionExamplesPlanOffline(t *testing.T) {
	t.Parallel() // the CLI on copies of the examples
	tf, rc, root := terraformWithProvider(t)
	cases := []struct {
		dir    string
		output string
		check  func(v any) error
	}{
		{"webhooks", "kube_system_pod", func(v any) error {
			m, _ := v.(map[string]any)
			skipped, _ := m["skipped"].([]any)
			if len(m) != 3 || fmt.Sprint(m["called"]) != "[]" || m["rejected"] != "" || len(skipped) != 1 {
				return fmt.Errorf("want called = [], rejected = \"\" and one skipped webhook, got %v", v)
			}
			s, _ := skipped[0].(map[string]any)
			if s["reason"] != "namespace_selector" || s["detail"] != "kubernetes.io/metadata.name notin (injector,kube-system)" {
				return fmt.Errorf("want the webhook skipped by its namespace_selector, got %v", s)
			}
			return nil
		}},
		{"validate", "six_replicas", func(v any) error {
			m, _ := v.(map[string]any)
			for _, k := range []string{"matched", "allowed", "message", "reason", "code", "warnings", "audit_annotations"} {
				if _, ok := m[k]; !ok {
					return fmt.Errorf("no %s in %v", k, v)
				}
			}
			if len(m) != 7 || m["matched"] != true || m["allowed"] != false || m["reason"] != "Invalid" {
				return fmt.Errorf("want the seven attributes, matched and denied (Invalid), got %v", v)
			}
			return nil
		}},
		{"mutate", "labels", func(v any) error {
			if fmt.Sprint(v) != "map[app:web team:platform]" {
				return fmt.Errorf("want { app = \"web\", team = \"platform\" }, got %v", v)
			}
			return nil
		}},
	}
	for _, c := range cases {
		t.Run(c.dir, func(t *testing.T) {
			module := copyModule(t, filepath.Join(root, "examples", "functions", c.dir))
			out, err := terraform(module, tf, rc, "plan", "-no-color", "-input=false", "-out=plan")
			if err != nil {
				t.Fatalf("terraform plan: %v\n%s", err, out)
			}
			if n := strings.Count(out, "Warning:"); n > 1 || n == 1 && !strings.Contains(out, "Provider development overrides are in effect") {
				t.Errorf("the plan warns:\n%s", out)
			}
			js, err := terraform(module, tf, rc, "show", "-json", "plan")
			if err != nil {
				t.Fatalf("terraform show: %v\n%s", err, js)
			}
			var plan struct {
				PlannedValues struct {
					Outputs map[string]struct {
						Value any `json:"value"`
					} `json:"outputs"`
				} `json:"planned_values"`
			}
			if err := json.Unmarshal([]byte(js), &plan); err != nil {
				t.Fatalf("terraform show -json: %v\n%s", err, js)
			}
			o, ok := plan.PlannedValues.Outputs[c.output]
			if !ok {
				t.Fatalf("no output %s in the plan: %s", c.output, js)
			}
			if err := c.check(o.Value); err != nil {
				t.Errorf("output %s: %v", c.output, err)
			}
		})
	}
}

// The example of examples/testing, planned against a live cluster, draws no
// warning about its policies: its bindings name their policies by the policy
// resources' id, as the provider's warning about a binding to a policy that
// does not exist asks, so the plan waits for the policies instead of finding
// none. Its one warning is true of the test cluster, which runs no sidecar
// injector: the fail-closed injector's service does not exist.
func TestAccTestingExamplePlansOnACluster(t *testing.T) {
	t.Parallel() // the CLI on copies of the examples
	tf, rc, root := terraformWithProvider(t)
	module := copyModule(t, filepath.Join(root, "examples", "testing"))
	main := filepath.Join(module, "main.tf")
	data, err := os.ReadFile(main)
	if err != nil {
		t.Fatal(err)
	}
	const block = `provider "admission" {}`
	if !strings.Contains(string(data), block) {
		t.Fatalf("examples/testing/main.tf has no %s to point at the test cluster", block)
	}
	config := strings.Replace(string(data), block, fmt.Sprintf("provider \"admission\" {\n  config_path = %q\n}", acctest.Cluster(t).KubeconfigPath), 1)
	if err := os.WriteFile(main, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := terraform(module, tf, rc, "plan", "-no-color", "-input=false")
	if err != nil {
		t.Fatalf("terraform plan: %v\n%s", err, out)
	}
	if !strings.Contains(out, "Plan: 7 to add, 0 to change, 0 to destroy.") {
		t.Errorf("the plan does not create the seven objects:\n%s", out)
	}
	const noService = "Warning: Webhook's service does not exist"
	if n := strings.Count(out, "Warning:"); n != 2 || !strings.Contains(out, "Provider development overrides are in effect") || !strings.Contains(out, noService) {
		t.Errorf("want only the warnings of the development overrides and %q:\n%s", noService, out)
	}
}

// terraformWithProvider is the terraform CLI of the acceptance tests, a CLI
// configuration whose dev_overrides serve the provider built from this
// tree, and the repository's root; it skips without TF_ACC.
func terraformWithProvider(t *testing.T) (tf, rc, root string) {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("runs the terraform CLI: set TF_ACC=1 (make test does)")
	}
	tf = os.Getenv("TF_ACC_TERRAFORM_PATH")
	if tf == "" {
		var err error
		if tf, err = exec.LookPath("terraform"); err != nil {
			t.Fatal("TF_ACC_TERRAFORM_PATH is not set and there is no terraform on PATH (make test sets it)")
		}
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
	rc = filepath.Join(bin, "cli.tfrc")
	source := "seed-a73d233f/admission"
	if h := os.Getenv("TF_ACC_PROVIDER_HOST"); h != "" {
		source = h + "/" + source
	}
	if err := os.WriteFile(rc, fmt.Appendf(nil, "provider_installation {\n  dev_overrides {\n    %q = %q\n  }\n  direct {}\n}\n", source, bin), 0o600); err != nil {
		t.Fatal(err)
	}
	return tf, rc, root
}

// terraform runs the CLI in module with the CLI configuration rc and no
// cluster in the environment.
func terraform(module, tf, rc string, args ...string) (string, error) {
	cmd := exec.Command(tf, args...)
	cmd.Dir = module
	cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "CHECKPOINT_DISABLE=1", "KUBE_CONFIG_PATH=", "KUBE_CONFIG_PATHS=", "KUBE_HOST=")
	out, err := cmd.CombinedOutput()
	return string(out), err
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
