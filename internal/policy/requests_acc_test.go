package policy_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest/faultproxy"
)

// budgetConfig is a policy on deployments (type-checked against a built-in
// schema, so with no request) and its binding, through the proxy. The
// impact on the cluster's objects is off (impact_max_objects = 0): its reads
// are bounded by their own settings and counted by its own tests
// (impact_acc_test.go); this budget is that of the objects' own requests.
func budgetConfig(t *testing.T, p *faultproxy.Proxy, name, message string) string {
	return acctest.ProxiedProvider(t, p, "impact_max_objects = 0") + fmt.Sprintf(`
resource "admission_validating_admission_policy" "p" {
  metadata {
    name = %[1]q
  }
  spec {
    match_constraints {
      resource_rules {
        api_groups   = ["apps"]
        api_versions = ["v1"]
        operations   = ["CREATE", "UPDATE"]
        resources    = ["deployments"]
      }
    }
    validations {
      expression = "object.spec.replicas <= 5"
      message    = %[2]q
    }
  }
}

resource "admission_validating_admission_policy_binding" "b" {
  metadata {
    name = %[1]q
  }
  spec {
    policy_name        = admission_validating_admission_policy.p.id
    validation_actions = ["Deny"]
  }
}
`, name, message)
}

// The requests each run costs, counted at a proxy in front of the API
// server. A create writes each object once and reads neither before (the
// dry run of its plan found no object of that name); a refresh reads each
// object once; a plan without changes sends nothing else (no dry run, no
// type-checking schema, no read of the bound policy); a change writes the
// changed object once, after at most one dry run per plan, and leaves the
// other alone. After it writes, the wait until the server enforces the object
// reads the other half of the pair once: the bindings after a write of the
// policy, the policy after one of the binding.
func TestAccPolicyRequestBudget(t *testing.T) {
	p := acctest.FaultProxy(t)
	name := randomName()
	policyPath := "/validatingadmissionpolicies/" + name
	bindingPath := "/validatingadmissionpolicybindings/" + name
	of := func(path string, match func(faultproxy.Record) bool) func(faultproxy.Record) bool {
		return func(r faultproxy.Record) bool { return strings.HasSuffix(r.Path, path) && match(r) }
	}
	budget := func(what string, check func(rs []faultproxy.Record) string) func() {
		return func() {
			rs := p.Records()
			var seen []string
			lists := 0
			for _, r := range rs {
				seen = append(seen, r.Method+" "+r.Path+"?"+r.Query)
				if r.Method == http.MethodGet && strings.HasSuffix(r.Path, "/validatingadmissionpolicybindings") {
					// The wait after a write of the policy lists the bindings: a policy no
					// binding applies is enforced at once (internal/policy, enforce.go).
					lists++
					continue
				}
				if !strings.HasSuffix(r.Path, policyPath) && !strings.HasSuffix(r.Path, bindingPath) {
					t.Errorf("%s: a request for something other than the two objects: %s %s", what, r.Method, r.Path)
				}
			}
			if writes := faultproxy.Count(rs, of(policyPath, faultproxy.IsWrite)); lists > writes {
				t.Errorf("%s: %d lists of the bindings for %d writes of the policy, want at most one each", what, lists, writes)
			}
			if msg := check(rs); msg != "" {
				t.Errorf("%s: %s; requests:\n  %s", what, msg, strings.Join(seen, "\n  "))
			}
			t.Logf("figures: %-26s %d requests: %d GET, %d dry runs, %d writes", what, len(rs), faultproxy.Count(rs, faultproxy.IsGet), faultproxy.Count(rs, faultproxy.IsDryRun), faultproxy.Count(rs, faultproxy.IsWrite))
			p.ResetRecords()
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             policyGone(t, name),
		Steps: []resource.TestStep{
			{Config: budgetConfig(t, p, name, "too many")},
			{
				PreConfig: budget("create step", func(rs []faultproxy.Record) string {
					if faultproxy.Count(rs, of(policyPath, faultproxy.IsWrite)) != 1 || faultproxy.Count(rs, of(bindingPath, faultproxy.IsWrite)) != 1 {
						return "want exactly 1 write of each object"
					}
					if n := getsBeforeWrite(rs, policyPath); n != 0 {
						return fmt.Sprintf("want no GET of the policy before its create, got %d", n)
					}
					if n := getsBeforeWrite(rs, bindingPath); n != 0 {
						return fmt.Sprintf("want no GET of the binding before its create, got %d", n)
					}
					return ""
				}),
				Config:   budgetConfig(t, p, name, "too many"),
				PlanOnly: true,
			},
			{
				PreConfig: budget("no-change plan step", func(rs []faultproxy.Record) string {
					if len(rs) == 0 || faultproxy.Count(rs, faultproxy.IsGet) != len(rs) {
						return "want GETs of the objects and nothing else"
					}
					if a, b := faultproxy.Count(rs, of(policyPath, faultproxy.IsGet)), faultproxy.Count(rs, of(bindingPath, faultproxy.IsGet)); a != b {
						return fmt.Sprintf("want one GET of each object per refresh, got %d of the policy and %d of the binding", a, b)
					}
					return ""
				}),
				Config: budgetConfig(t, p, name, "far too many"),
			},
			{
				PreConfig: budget("update step", func(rs []faultproxy.Record) string {
					if faultproxy.Count(rs, of(policyPath, faultproxy.IsWrite)) != 1 || faultproxy.Count(rs, of(bindingPath, faultproxy.IsWrite)) != 0 {
						return "want exactly 1 write, of the policy"
					}
					if n := faultproxy.Count(rs, of(policyPath, faultproxy.IsDryRun)); n > 2 {
						return "want at most 2 dry runs (the plan, and the plan terraform apply makes again)"
					}
					if n := faultproxy.Count(rs, of(bindingPath, func(r faultproxy.Record) bool { return r.Method != http.MethodGet })); n != 0 {
						return "want nothing but refreshes of the unchanged binding"
					}
					return ""
				}),
				Config:   budgetConfig(t, p, name, "far too many"),
				PlanOnly: true,
			},
		},
	})
}

// getsBeforeWrite counts the GETs of the object at path before its first
// write (rs are in the order they came).
func getsBeforeWrite(rs []faultproxy.Record, path string) int {
	n := 0
	for _, r := range rs {
		if !strings.HasSuffix(r.Path, path) {
			continue
		}
		if faultproxy.IsWrite(r) {
			return n
		}
		if faultproxy.IsGet(r) {
			n++
		}
	}
	return n
}
