package webhook_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
)

// lastRelease is the last commit of the provider before the webhook core
// served two kinds; the state it writes must be read by this code with an
// empty plan.
const lastRelease = "9d82331"

// TestAccStateOfTheLastReleaseNeedsNoChange applies a configuration that
// sets every attribute with the provider built at lastRelease, then plans it
// with this code: the plan must be empty. Both run as the same provider
// address through dev_overrides.
func TestAccStateOfTheLastReleaseNeedsNoChange(t *testing.T) {
	acctest.Cluster(t) // skips outside acceptance runs
	tf := terraformCLI(t)
	root := repositoryRoot(t)
	work := t.TempDir()
	oldSrc := filepath.Join(work, "old-src")
	run(t, root, "", "sh", "-c", fmt.Sprintf("mkdir -p %q && git archive %s | tar -x -C %q", oldSrc, lastRelease, oldSrc))
	oldRC := devOverrides(t, buildProvider(t, oldSrc))
	newRC := devOverrides(t, buildProvider(t, root))

	name := randomName()
	cfg := strings.Replace(fullConfig(t, name, "5", "Ignore"), `finalizers  = ["example.com/keep"]`, "", 1) // lets the destroy below finish at once
	module := writeModule(t, cfg)
	t.Cleanup(func() { run(t, module, oldRC, tf, "destroy", "-auto-approve", "-input=false", "-no-color") })

	run(t, module, oldRC, tf, "apply", "-auto-approve", "-input=false", "-no-color")
	out, code := runStatus(t, module, newRC, tf, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	if code != 0 {
		t.Fatalf("the plan of the state written by %s with this code is not empty (exit %d):\n%s", lastRelease, code, out)
	}
}

// The helpers below run the Terraform CLI on a module, with the provider
// served from a binary through dev_overrides, as a user's machine would.

func terraformCLI(t *testing.T) string {
	tf := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if tf == "" {
		t.Fatal("TF_ACC_TERRAFORM_PATH is not set (make test sets it)")
	}
	return tf
}

func repositoryRoot(t *testing.T) string {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// buildProvider builds the provider of the source tree src into a new
// directory and returns that directory.
func buildProvider(t *testing.T, src string) string {
	dir := t.TempDir()
	run(t, src, "", "go", "build", "-o", filepath.Join(dir, "terraform-provider-admission"), ".")
	return dir
}

// devOverrides writes a CLI configuration that serves the provider from
// dir, and returns its path.
func devOverrides(t *testing.T, dir string) string {
	f := filepath.Join(t.TempDir(), "terraformrc")
	rc := fmt.Sprintf(`provider_installation {
  dev_overrides {
    "registry.terraform.io/seed-a73d233f/admission" = %q
    "registry.opentofu.org/seed-a73d233f/admission" = %q
  }
  direct {}
}
`, dir, dir)
	if err := os.WriteFile(f, []byte(rc), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// writeModule writes cfg, with the provider's source declared, as the
// main.tf of a new module directory.
func writeModule(t *testing.T, cfg string) string {
	dir := t.TempDir()
	cfg = `terraform {
  required_providers {
    admission = { source = "seed-a73d233f/admission" }
  }
}
` + cfg
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// run and runStatus run a command with a CLI configuration
// (acctest.MustRun, acctest.Run).
var (
	run       = acctest.MustRun
	runStatus = acctest.Run
)
