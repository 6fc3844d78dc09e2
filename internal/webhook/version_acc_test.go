package webhook_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
)

// The checks at plan follow the version of the API server: kubernetes_version, else what the
// server reports, else a warning that names the version assumed. The local control plane is
// kube-apiserver 1.37; with kubernetes_version set to another release, the dry run (which asks
// the 1.37 server) is off, so that the plan shows the offline checks of that release alone.

// versionedConfig is a webhook configuration named name whose match condition is expr.
func versionedConfig(providerBlock, name, expr string) string {
	return providerBlock + fmt.Sprintf(`
resource "admission_validating_webhook_configuration" "test" {
  metadata {
    name = %q
  }
  webhook {
    name                      = "check.versions.example.com"
    admission_review_versions = ["v1"]
    side_effects              = "None"
    failure_policy            = "Ignore"
    client_config {
      url = "https://webhook.example.com/check"
    }
    rule {
      operations   = ["CREATE"]
      api_groups   = [""]
      api_versions = ["v1"]
      resources    = ["configmaps"]
    }
    match_conditions {
      name       = "versioned"
      expression = %q
    }
  }
}
`, name, expr)
}

// providerFor is a provider block for the local control plane that checks for version (none:
// ask the server), with or without the dry run.
func providerFor(t *testing.T, version string, dryRun bool) string {
	var extra []string
	if version != "" {
		extra = append(extra, fmt.Sprintf("kubernetes_version = %q", version))
	}
	// The webhooks' URLs name hosts that are not there: the check of their certificates is not
	// what these tests are about.
	extra = append(extra, "webhook_tls_check_on_plan = false")
	return acctest.ProviderBlock(t, append(extra, fmt.Sprintf("dry_run_on_plan = %v", dryRun))...)
}

// planOutcome is what a plan says about one attribute: its errors and its warnings.
type planOutcome struct {
	ok                 bool
	errors, warnings   []acctest.Diagnostic
	everything         string
	errorText, warning string
}

func planFor(t *testing.T, cfg string) planOutcome {
	t.Helper()
	diags, ok := acctest.Plan(t, cfg)
	out := planOutcome{ok: ok}
	var all []string
	for _, d := range diags {
		all = append(all, d.Severity+": "+d.Summary+": "+d.Detail)
		switch d.Severity {
		case "error":
			out.errors = append(out.errors, d)
			out.errorText += d.Summary + " " + d.Detail + "\n"
		case "warning":
			out.warnings = append(out.warnings, d)
			out.warning += d.Summary + " " + d.Detail + "\n"
		}
	}
	out.everything = strings.Join(all, "\n")
	return out
}

// oneWord turns Terraform's wrapped diagnostic text back into one line.
func oneWord(s string) string { return strings.Join(strings.Fields(s), " ") }

func TestAccVersionedMatchConditions(t *testing.T) {
	t.Parallel() // plans only, on objects of its own
	cases := []struct {
		name, expr, version string
		dryRun              bool
		wantError           string // "" for a plan that succeeds
		wantWarning         string // "" for no warning of the versions
	}{
		// includes() is in the CEL environment of new expressions from 1.38 (k8s Lists v1,
		// introduced 1.37).
		{"includes on 1.38", "[1, 2].includes(1)", "1.38", false, "", ""},
		{"includes on 1.37", "[1, 2].includes(1)", "1.37", false, "undeclared reference to 'includes'", ""},
		{"includes on the live 1.37 server", "[1, 2].includes(1)", "", true, "undeclared reference to 'includes'", ""},
		// isSemver() from 1.34 (Semver, introduced 1.33); 1.31 to 1.33 reject it.
		{"isSemver on 1.32", "isSemver('1.2.3')", "1.32", false, "undeclared reference to 'isSemver'", ""},
		{"isSemver on 1.34", "isSemver('1.2.3')", "1.34", false, "", ""},
		{"isSemver on the live server", "isSemver('1.2.3')", "", true, "", ""},
		// Two-variable comprehensions from 1.33 (introduced 1.32).
		{"two-variable all on 1.31", "{'a': 1}.all(k, v, v > 0)", "1.31", false, "all", ""},
		{"two-variable all on 1.33", "{'a': 1}.all(k, v, v > 0)", "1.33", false, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := planFor(t, versionedConfig(providerFor(t, c.version, c.dryRun), randomName(), c.expr))
			switch {
			case c.wantError == "" && (!got.ok || len(got.errors) > 0):
				t.Fatalf("want a plan that succeeds, got:\n%s", got.everything)
			case c.wantError != "" && (got.ok || !strings.Contains(oneWord(got.errorText), c.wantError)):
				t.Fatalf("want an error with %q, got:\n%s", c.wantError, got.everything)
			}
			if strings.Contains(got.warning, "on some Kubernetes versions") {
				t.Errorf("a warning of the versions with a known version:\n%s", got.everything)
			}
		})
	}
}

// With no version at all (no kubernetes_version, no cluster), a check that depends on the
// version is a warning that names the versions that reject and the version assumed; a
// configuration some supported server accepts is never an error.
func TestAccVersionUnknownIsWarning(t *testing.T) {
	t.Parallel() // plans only, on objects of its own
	cases := []struct{ expr, rejecting string }{
		{"[1, 2].includes(1)", "Kubernetes 1.31 to 1.37 reject this; 1.38 accept it."},
		{"isSemver('1.2.3')", "Kubernetes 1.31 to 1.33 reject this; 1.34 to 1.38 accept it."},
		{"{'a': 1}.all(k, v, v > 0)", "Kubernetes 1.31 to 1.32 reject this; 1.33 to 1.38 accept it."},
	}
	for _, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			got := planFor(t, versionedConfig(offlineProvider, randomName(), c.expr))
			if !got.ok || len(got.errors) > 0 {
				t.Fatalf("want a plan that succeeds, got:\n%s", got.everything)
			}
			w := oneWord(got.warning)
			if !strings.Contains(w, "on some Kubernetes versions") || !strings.Contains(w, c.rejecting) || !strings.Contains(w, "the checks assumed 1.37") {
				t.Errorf("want a warning that says %q and names the version assumed, got:\n%s", c.rejecting, got.everything)
			}
		})
	}
	// A configuration every supported server rejects is an error all the same.
	if got := planFor(t, versionedConfig(offlineProvider, randomName(), "1 +")); got.ok {
		t.Errorf("a syntax error passed:\n%s", got.everything)
	}
}

// The reserved suffix .static.k8s.io: refused on create from 1.37, a warning of the server in
// 1.36, an ordinary name before; without a version, a warning.
func TestAccVersionedReservedSuffix(t *testing.T) {
	t.Parallel() // plans only, on objects of its own
	name := randomName() + ".static.k8s.io"
	const valid = "request.namespace != 'kube-system'"
	const reserved = "names ending with \".static.k8s.io\" are reserved"
	t.Run("1.37", func(t *testing.T) {
		got := planFor(t, versionedConfig(providerFor(t, "1.37", false), name, valid))
		if got.ok || !strings.Contains(oneWord(got.errorText), reserved) {
			t.Fatalf("want the reserved suffix refused, got:\n%s", got.everything)
		}
	})
	t.Run("live 1.37 server", func(t *testing.T) {
		got := planFor(t, versionedConfig(providerFor(t, "", true), name, valid))
		if got.ok || !strings.Contains(oneWord(got.errorText), reserved) {
			t.Fatalf("want the reserved suffix refused, got:\n%s", got.everything)
		}
	})
	t.Run("1.36", func(t *testing.T) {
		got := planFor(t, versionedConfig(providerFor(t, "1.36", false), name, valid))
		if !got.ok || !strings.Contains(oneWord(got.warning), reserved) {
			t.Fatalf("want the server's warning, got:\n%s", got.everything)
		}
	})
	t.Run("1.35", func(t *testing.T) {
		got := planFor(t, versionedConfig(providerFor(t, "1.35", false), name, valid))
		if !got.ok || len(got.warnings) > 0 {
			t.Fatalf("want a clean plan, got:\n%s", got.everything)
		}
	})
	t.Run("unknown", func(t *testing.T) {
		got := planFor(t, versionedConfig(offlineProvider, name, valid))
		if !got.ok || !strings.Contains(oneWord(got.warning), "Kubernetes 1.37 to 1.38 reject this") {
			t.Fatalf("want a warning of the versions, got:\n%s", got.everything)
		}
	})
}
