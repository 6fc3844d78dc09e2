package protocol_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	sdkacctest "github.com/hashicorp/terraform-plugin-testing/helper/acctest"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/protocol"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/provider"
)

// TestAccProtocolBothWays runs the same smoke of every resource type
// twice against the local kube-apiserver, once with the provider served
// as main.go serves it (internal/protocol answering the calls it answers)
// and once with TF_ADMISSION_PROTOCOL=framework (every call answered by
// terraform-plugin-framework's own server), and compares what Terraform
// got: the saved plans (terraform show -json), the states after each apply
// and the diagnostics of every plan and apply, warnings included. The
// steps: create, a plan after the apply that must be empty, an update and
// its empty plan, an import (import block, after terraform state rm) and
// its empty plan, and a destroy. Names differ between the two runs (both
// run at once) and are compared as NAME; uid, resource_version and
// creation_timestamp, which the API server chooses, are compared as set or
// not.
func TestAccProtocolBothWays(t *testing.T) {
	acctest.Cluster(t)
	tf := acctest.TerraformPath(t)
	for _, k := range bothWaysKinds {
		t.Run(k.typeName, func(t *testing.T) {
			t.Parallel()
			modes := []protocol.Mode{protocol.Fast, protocol.FrameworkOnly}
			records := make([][]recorded, len(modes))
			t.Run("run", func(t *testing.T) {
				for i, mode := range modes {
					t.Run(mode.String(), func(t *testing.T) {
						t.Parallel()
						start := time.Now()
						records[i] = runSmoke(t, tf, k, mode)
						t.Logf("%s, %s: %d steps in %s", k.typeName, mode, len(records[i]), time.Since(start).Round(time.Millisecond))
					})
				}
			})
			if t.Failed() {
				return
			}
			fast, framework := records[0], records[1]
			if len(fast) != len(framework) {
				t.Fatalf("%d steps with internal/protocol, %d with the framework alone", len(fast), len(framework))
			}
			for i := range fast {
				if fast[i].what != framework[i].what {
					t.Fatalf("step %d: %q with internal/protocol, %q with the framework alone", i, fast[i].what, framework[i].what)
				}
				if diff := cmp.Diff(framework[i].value, fast[i].value); diff != "" {
					t.Errorf("%s: internal/protocol answers otherwise than the framework (-framework +internal/protocol):\n%s", fast[i].what, diff)
				}
			}
		})
	}
}

// bothWaysKind is one resource type's smoke: its address, and its
// configuration at create and at update (a module's resources, without
// provider block) for a name token.
type bothWaysKind struct {
	typeName string
	// config is the module for the object named after token; update
	// changes some of its values.
	config func(token string, update bool) string
}

func (k bothWaysKind) address() string { return k.typeName + ".t" }

func step(update bool, create, changed string) string {
	if update {
		return changed
	}
	return create
}

// webhookConfig matches a resource no API server serves and calls a URL:
// it intercepts nothing of the tests that share the control plane.
func webhookConfig(typeName, extra string) func(string, bool) string {
	return func(token string, update bool) string {
		conditions := ""
		if update {
			conditions = `
    match_conditions {
      name       = "always"
      expression = "true"
    }`
		}
		return fmt.Sprintf(`
resource %[1]q "t" {
  metadata {
    name   = "%[2]s.example.com"
    labels = { step = %[3]q }
  }
  webhook {
    name                      = "a.%[2]s.example.com"
    admission_review_versions = ["v1"]
    side_effects              = "None"
    failure_policy            = "Ignore"
    timeout_seconds           = %[4]s
    %[5]s
    client_config {
      url = "https://%[2]s.example.com/admit"
    }
    rule {
      operations   = ["CREATE"]
      api_groups   = ["example.com"]
      api_versions = ["v1"]
      resources    = ["widgets"]
    }%[6]s
  }
}
`, typeName, token, step(update, "create", "update"), step(update, "5", "7"), extra, conditions)
	}
}

// validatingPolicy is a policy on ConfigMaps that lets every one through.
func validatingPolicy(name, token string, update bool) string {
	return fmt.Sprintf(`
resource "admission_validating_admission_policy" %[1]q {
  metadata {
    name   = "%[2]s.example.com"
    labels = { step = %[3]q }
  }
  spec {
    failure_policy = %[4]q
    match_constraints {
      resource_rules {
        operations   = ["CREATE"]
        api_groups   = [""]
        api_versions = ["v1"]
        resources    = ["configmaps"]
      }
    }
    validations {
      expression = "object.metadata.name != ''"
      message    = %[5]q
    }
  }
}
`, name, token, step(update, "create", "update"), step(update, "Fail", "Ignore"), step(update, "a name", "a name, always"))
}

// mutatingPolicy labels new ConfigMaps.
func mutatingPolicy(name, token string, update bool) string {
	return fmt.Sprintf(`
resource "admission_mutating_admission_policy" %[1]q {
  metadata {
    name   = "%[2]s.example.com"
    labels = { step = %[3]q }
  }
  spec {
    reinvocation_policy = %[4]q
    failure_policy      = "Ignore"
    match_constraints {
      resource_rules {
        operations   = ["CREATE"]
        api_groups   = [""]
        api_versions = ["v1"]
        resources    = ["configmaps"]
      }
    }
    mutations {
      patch_type = "ApplyConfiguration"
      apply_configuration {
        expression = "Object{metadata: Object.metadata{labels: {'%[2]s': '%[3]s'}}}"
      }
    }
  }
}
`, name, token, step(update, "create", "update"), step(update, "Never", "IfNeeded"))
}

// binding binds the policy p to the namespaces labelled with token, which
// none is.
func binding(typeName, policyType, token string, update bool, spec string) string {
	return fmt.Sprintf(`
resource %[1]q "t" {
  metadata {
    name   = "%[3]s.example.com"
    labels = { step = %[4]q }
  }
  spec {
    policy_name = %[2]s.p.id
    %[5]s
    match_resources {
      namespace_selector {
        match_labels = { %[3]q = %[4]q }
      }
    }
  }
}
`, typeName, policyType, token, step(update, "create", "update"), spec)
}

var bothWaysKinds = []bothWaysKind{
	{typeName: "admission_validating_webhook_configuration", config: webhookConfig("admission_validating_webhook_configuration", "")},
	{typeName: "admission_mutating_webhook_configuration", config: func(token string, update bool) string {
		return webhookConfig("admission_mutating_webhook_configuration", fmt.Sprintf("reinvocation_policy = %q", step(update, "Never", "IfNeeded")))(token, update)
	}},
	{typeName: "admission_validating_admission_policy", config: func(token string, update bool) string {
		return validatingPolicy("t", token, update)
	}},
	{typeName: "admission_validating_admission_policy_binding", config: func(token string, update bool) string {
		actions := step(update, `validation_actions = ["Audit"]`, `validation_actions = ["Warn", "Audit"]`)
		return validatingPolicy("p", token+"-p", false) + binding("admission_validating_admission_policy_binding", "admission_validating_admission_policy", token, update, actions)
	}},
	{typeName: "admission_mutating_admission_policy", config: func(token string, update bool) string {
		return mutatingPolicy("t", token, update)
	}},
	{typeName: "admission_mutating_admission_policy_binding", config: func(token string, update bool) string {
		return mutatingPolicy("p", token+"-p", false) + binding("admission_mutating_admission_policy_binding", "admission_mutating_admission_policy", token, update, "")
	}},
}

// recorded is one thing Terraform showed at one step of the smoke,
// normalised for the comparison.
type recorded struct {
	what  string
	value any
}

// smoke is one run's working directory and provider.
type smoke struct {
	t       *testing.T
	tf, dir string
	env     []string
	token   string
	out     []recorded
}

// runSmoke runs k's smoke with the provider served in mode and returns
// what Terraform showed, step by step.
func runSmoke(t *testing.T, tf string, k bothWaysKind, mode protocol.Mode) []recorded {
	address := "registry.terraform.io/seed-a73d233f/admission"
	var served []tfprotov6.ProviderServer
	var servedMu sync.Mutex
	providers, stop := acctest.ServeProviderWith(t, address, func() tfprotov6.ProviderServer {
		srv := provider.NewServerMode("test", mode)()
		servedMu.Lock()
		served = append(served, srv)
		servedMu.Unlock()
		return srv
	})
	defer stop()
	defer checkServed(t, mode, &servedMu, &served)
	s := &smoke{
		t: t, tf: tf, dir: t.TempDir(),
		env:   append(os.Environ(), "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1", "TF_REATTACH_PROVIDERS="+providers, "TF_CLI_CONFIG_FILE="+os.DevNull),
		token: "bw" + sdkacctest.RandStringFromCharSet(10, "abcdefghijklmnopqrstuvwxyz0123456789"),
	}
	module := func(update bool, extra string) string {
		return acctest.RequiredProviders(address) + acctest.ProviderBlock(t) + k.config(s.token, update) + extra
	}
	s.write(module(false, ""))
	if _, code := s.run("init", "-input=false", "-backend=false"); code != 0 {
		t.Fatal("terraform init failed")
	}

	s.planAndApply("create")
	s.expectEmptyPlan("create")

	s.write(module(true, ""))
	s.planAndApply("update")
	s.expectEmptyPlan("update")

	if _, code := s.run("state", "rm", "-lock=false", k.address()); code != 0 {
		t.Fatalf("terraform state rm %s failed", k.address())
	}
	s.write(module(true, fmt.Sprintf("\nimport {\n  to = %s\n  id = \"%s.example.com\"\n}\n", k.address(), s.token)))
	s.planAndApply("import")
	s.expectEmptyPlan("import")

	s.planAndApply("destroy", "-destroy")
	var state struct {
		Values *struct {
			RootModule struct {
				Resources []any `json:"resources"`
			} `json:"root_module"`
		} `json:"values"`
	}
	s.show(&state)
	if state.Values != nil && len(state.Values.RootModule.Resources) > 0 {
		t.Errorf("after the destroy the state holds %d resources", len(state.Values.RootModule.Resources))
	}
	return s.out
}

// checkServed checks that the runs compare what they should: with the
// framework alone, no internal/protocol server answered anything; with
// internal/protocol, it answered validations, refreshes, plans, applies and
// state upgrades itself (else the comparison would compare the framework
// with itself).
func checkServed(t *testing.T, mode protocol.Mode, mu *sync.Mutex, served *[]tfprotov6.ProviderServer) {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if len(*served) == 0 {
		t.Error("no server was made")
	}
	var total protocol.Answered
	for _, srv := range *served {
		fast, isFast := srv.(*protocol.Server)
		if mode == protocol.FrameworkOnly {
			if isFast {
				t.Errorf("framework-only run served by %T", srv)
			}
			continue
		}
		if !isFast {
			t.Fatalf("fast run served by %T", srv)
		}
		a := fast.Answered()
		total.Validations += a.Validations
		total.Reads += a.Reads
		total.Plans += a.Plans
		total.Applies += a.Applies
		total.Upgrades += a.Upgrades
	}
	if mode == protocol.Fast {
		t.Logf("answered by internal/protocol: %+v", total)
		if total.Validations == 0 || total.Reads == 0 || total.Plans == 0 || total.Applies == 0 || total.Upgrades == 0 {
			t.Errorf("internal/protocol left some kind of call to the framework every time: %+v", total)
		}
	}
}

func (s *smoke) write(module string) {
	s.t.Helper()
	if err := os.WriteFile(filepath.Join(s.dir, "main.tf"), []byte(module), 0o600); err != nil {
		s.t.Fatal(err)
	}
}

// run runs terraform with args and returns its standard output and exit
// code; its standard error is logged.
func (s *smoke) run(args ...string) (string, int) {
	s.t.Helper()
	cmd := exec.Command(s.tf, args...)
	cmd.Dir, cmd.Env = s.dir, s.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
	case err != nil:
		s.t.Fatalf("terraform %s: %v", strings.Join(args, " "), err)
	}
	if stderr.Len() > 0 {
		s.t.Logf("terraform %s: %s", strings.Join(args, " "), stderr.String())
	}
	return stdout.String(), cmd.ProcessState.ExitCode()
}

func (s *smoke) record(what string, value any) {
	s.out = append(s.out, recorded{what: what, value: s.normalise("", value)})
}

// diagnostics are the diagnostics of a -json run of terraform, as
// severity, summary, detail and address.
func (s *smoke) diagnostics(what, stdout string) {
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var line struct {
			Type       string `json:"type"`
			Diagnostic *struct {
				Severity string `json:"severity"`
				Summary  string `json:"summary"`
				Detail   string `json:"detail"`
				Address  string `json:"address"`
			} `json:"diagnostic"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Type == "diagnostic" && line.Diagnostic != nil {
			d := line.Diagnostic
			out = append(out, map[string]any{"severity": d.Severity, "summary": d.Summary, "detail": d.Detail, "address": d.Address})
			s.t.Logf("%s: %s: %s: %s", what, d.Severity, d.Summary, d.Detail)
		}
	}
	s.record(what+": diagnostics", out)
}

// planAndApply saves a plan, records it and its diagnostics, applies it
// and records the diagnostics and the state.
func (s *smoke) planAndApply(what string, args ...string) {
	s.t.Helper()
	planFile := what + ".tfplan"
	stdout, code := s.run(append([]string{"plan", "-json", "-input=false", "-lock=false", "-out=" + planFile}, args...)...)
	s.diagnostics(what+": plan", stdout)
	if code != 0 {
		s.t.Fatalf("%s: terraform plan failed:\n%s", what, stdout)
	}
	var plan map[string]any
	s.show(&plan, planFile)
	kept := map[string]any{}
	for _, key := range []string{"planned_values", "resource_changes", "resource_drift", "prior_state", "errored"} {
		kept[key] = plan[key]
	}
	s.record(what+": plan", kept)

	stdout, code = s.run("apply", "-json", "-input=false", "-lock=false", planFile)
	s.diagnostics(what+": apply", stdout)
	if code != 0 {
		s.t.Fatalf("%s: terraform apply failed:\n%s", what, stdout)
	}
	var state map[string]any
	s.show(&state)
	s.record(what+": state", state["values"])
}

// expectEmptyPlan plans again after an apply: nothing to change.
func (s *smoke) expectEmptyPlan(after string) {
	s.t.Helper()
	stdout, code := s.run("plan", "-json", "-input=false", "-lock=false", "-detailed-exitcode")
	s.diagnostics("plan after "+after, stdout)
	if code != 0 {
		s.t.Errorf("plan after %s: exit code %d, want 0 (no changes):\n%s", after, code, stdout)
	}
}

// show decodes terraform show -json of args (a plan file, or the state).
func (s *smoke) show(into any, args ...string) {
	s.t.Helper()
	stdout, code := s.run(append([]string{"show", "-json"}, args...)...)
	if code != 0 {
		s.t.Fatalf("terraform show -json %s failed", strings.Join(args, " "))
	}
	if err := json.Unmarshal([]byte(stdout), into); err != nil {
		s.t.Fatalf("terraform show -json %s: %v", strings.Join(args, " "), err)
	}
}

// serverChosen are the attributes whose value the API server chooses, and
// so differ from run to run: compared as set or not.
var serverChosen = map[string]bool{"uid": true, "resource_version": true, "creation_timestamp": true}

// normalise replaces the run's name token with NAME, the values the API
// server chooses with whether they are set, and leaves Terraform's version
// out.
func (s *smoke) normalise(key string, v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			if k == "terraform_version" {
				continue
			}
			out[strings.ReplaceAll(k, s.token, "NAME")] = s.normalise(k, e)
		}
		return out
	case []map[string]any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = s.normalise("", e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = s.normalise("", e)
		}
		return out
	case string:
		if serverChosen[key] && v != "" {
			return "(set by the server)"
		}
		return strings.ReplaceAll(v, s.token, "NAME")
	}
	return v
}
