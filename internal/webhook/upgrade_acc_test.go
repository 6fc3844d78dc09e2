package webhook_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
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
	tf := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if tf == "" {
		t.Fatal("TF_ACC_TERRAFORM_PATH is not set (make test sets it)")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	oldSrc, oldBin, newBin := filepath.Join(work, "old-src"), filepath.Join(work, "old"), filepath.Join(work, "new")
	run(t, root, "", "sh", "-c", fmt.Sprintf("mkdir -p %q && git archive %s | tar -x -C %q", oldSrc, lastRelease, oldSrc))
	run(t, oldSrc, "", "go", "build", "-o", filepath.Join(oldBin, "terraform-provider-admission"), ".")
	run(t, root, "", "go", "build", "-o", filepath.Join(newBin, "terraform-provider-admission"), ".")

	name := randomName()
	cfg := strings.Replace(fullConfig(t, name, "5", "Ignore"), `provider "admission" {`, `terraform {
  required_providers {
    admission = { source = "seed-a73d233f/admission" }
  }
}

provider "admission" {`, 1)
	cfg = strings.Replace(cfg, `finalizers  = ["example.com/keep"]`, "", 1) // lets the destroy below finish at once
	module := filepath.Join(work, "module")
	if err := os.MkdirAll(module, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(module, "main.tf"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	cliConfig := func(dir string) string {
		f := filepath.Join(work, filepath.Base(dir)+".tfrc")
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
	oldRC, newRC := cliConfig(oldBin), cliConfig(newBin)
	t.Cleanup(func() { run(t, module, oldRC, tf, "destroy", "-auto-approve", "-input=false", "-no-color") })

	run(t, module, oldRC, tf, "apply", "-auto-approve", "-input=false", "-no-color")
	out, code := runStatus(t, module, newRC, tf, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	if code != 0 {
		t.Fatalf("the plan of the state written by %s with this code is not empty (exit %d):\n%s", lastRelease, code, out)
	}
}

func run(t *testing.T, dir, cliConfig string, name string, args ...string) string {
	t.Helper()
	out, code := runStatus(t, dir, cliConfig, name, args...)
	if code != 0 {
		t.Fatalf("%s %s: exit %d\n%s", name, strings.Join(args, " "), code, out)
	}
	return out
}

func runStatus(t *testing.T, dir, cliConfig string, name string, args ...string) (string, int) {
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
