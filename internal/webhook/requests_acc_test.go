package webhook_test

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest/faultproxy"
)

// The requests each run costs, counted at a proxy in front of the API
// server: a no-change plan only reads the object (no dry run, no write, no
// discovery); a change writes it once, after one dry run per plan
// (terraform apply plans each change once more just before applying it). A
// plan that creates a fail-closed webhook also reads its service; one that
// changes only its timeout does not.
func TestAccRequestBudget(t *testing.T) {
	p := startFaultProxy(t)
	name := randomName()
	removeLeftover(t, name)
	// budget checks what the previous step sent, then starts counting anew.
	budget := func(what string, check func(rs []faultproxy.Record) string) func() {
		return func() {
			rs := p.Records()
			var seen []string
			for _, r := range rs {
				seen = append(seen, r.Method+" "+r.Path+"?"+r.Query)
				// A plan that creates the fail-closed webhook also reads its service
				// (advice.BackendWarnings; minimalConfig's injector in default, absent).
				if what == "create step" && r.Method == "GET" && r.Path == "/api/v1/namespaces/default/services/injector" {
					continue
				}
				if !strings.HasSuffix(r.Path, objectPath(name)) {
					t.Errorf("%s: a request for something other than the object (discovery?): %s %s", what, r.Method, r.Path)
				}
			}
			if msg := check(rs); msg != "" {
				t.Errorf("%s: %s; requests:\n  %s", what, msg, strings.Join(seen, "\n  "))
			}
			t.Logf("figures: %-34s %d requests: %d GET, %d dry runs, %d writes", what, len(rs),
				faultproxy.Count(rs, faultproxy.IsGet), faultproxy.Count(rs, faultproxy.IsDryRun), faultproxy.Count(rs, faultproxy.IsWrite))
			p.ResetRecords()
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkGone(t, name),
		Steps: []resource.TestStep{
			{Config: proxiedConfig(t, p, name, 10, "")},
			{
				PreConfig: budget("create step", func(rs []faultproxy.Record) string {
					if n := faultproxy.Count(rs, faultproxy.IsWrite); n != 1 {
						return "want exactly 1 write"
					}
					return ""
				}),
				Config:   proxiedConfig(t, p, name, 10, ""),
				PlanOnly: true,
			},
			{
				PreConfig: budget("no-change plan step", func(rs []faultproxy.Record) string {
					if len(rs) == 0 || faultproxy.Count(rs, faultproxy.IsGet) != len(rs) {
						return "want GETs of the object and nothing else"
					}
					return ""
				}),
				Config: proxiedConfig(t, p, name, 11, ""),
			},
			{
				PreConfig: budget("update step", func(rs []faultproxy.Record) string {
					if n := faultproxy.Count(rs, faultproxy.IsWrite); n != 1 {
						return "want exactly 1 write"
					}
					if n := faultproxy.Count(rs, faultproxy.IsDryRun); n > 2 {
						return "want at most 2 dry runs (the plan, and the plan terraform apply makes again)"
					}
					return ""
				}),
				Config:   proxiedConfig(t, p, name, 11, ""),
				PlanOnly: true,
			},
		},
	})
}
