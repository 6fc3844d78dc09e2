//go:build pending

// Acceptance tests of reliability behaviour the provider does not have yet.
// They are built only with -tags pending, so the suite never skips them
// silently; each waits for one change:
//
//   - ServerDownLongerThanTheTimeout: Create must keep track of an object whose
//     apply may have reached the server (record state so Terraform taints it).
//   - RetryAfterOutlastsTimeout: requests must go out with client-go's own
//     retries off (MaxRetries(0)), so that a Retry-After wait that outlasts the
//     timeout is reported as "gave up after N attempts ... 429".
//   - DataSourceGivesUpAfterItsTimeout: both data sources need a timeouts
//     block with read.

package mutatingwebhook_test

import (
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest/faultproxy"
)

// The context of a request ends while client-go itself is waiting out a
// Retry-After, or while a request hangs: the error must still say that the
// provider gave up, and on what.
const giveUpOnDeadline = "kube.Client.retry must report a failure that ends with the operation's context " +
	"(an attempt cut by the deadline, or client-go's own Retry-After wait) as a RetryError (\"gave up after N attempts\"), " +
	"with the last transient error seen"

// The server stores the object and goes down before it answers, for longer
// than the create timeout: the apply fails after its timeout, and once the
// server is back the next apply converges, without a duplicate and without
// tripping over the object the first one made.
func TestAccReliabilityServerDownLongerThanTheTimeout(t *testing.T) {
	p := startFaultProxy(t)
	name := randomName()
	removeLeftover(t, name)
	cfg := proxiedConfig(t, p, name, 10, `create = "5s"`)
	var ph *phase
	var started time.Time
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkGone(t, name),
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					started = time.Now()
					p.Inject(faultproxy.Fault{Match: applyOf(name), Action: faultproxy.CutConnection, CutBeforeResponse: true,
						Outage: 12 * time.Second, Times: 1})
				},
				Config:      cfg,
				ExpectError: regexp.MustCompile(`(?s)Cannot create MutatingWebhookConfiguration "` + regexp.QuoteMeta(name) + `".*gave up after \d+ attempts`),
			},
			{
				PreConfig: func() {
					t.Logf("figures: create with the server down 12s after storing: failed after %s", time.Since(started).Round(10*time.Millisecond))
					for p.Mode() != faultproxy.Accept {
						time.Sleep(100 * time.Millisecond)
					}
					ph = beginPhase(t, p, name, "next run after the server came back")
				},
				Config: cfg,
				Check: resource.ComposeAggregateTestCheckFunc(
					func(*terraform.State) error { ph.report(); return nil },
					agree(t, name, 10, 0),
				),
			},
		},
	})
}

// Every read answered 429 with Retry-After, for longer than the read
// timeout.
func TestAccReliabilityRetryAfterOutlastsTimeout(t *testing.T) {
	p := startFaultProxy(t)
	name := randomName()
	removeLeftover(t, name)
	// delete too: if the test fails, its destroy meets the fault.
	cfg := proxiedConfig(t, p, name, 10, "read   = \"5s\"\n    delete = \"5s\"")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkGone(t, name),
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				PreConfig: func() {
					p.Inject(faultproxy.Fault{Match: faultproxy.All(faultproxy.Method(http.MethodGet), faultproxy.PathSuffix(objectPath(name))),
						Action: faultproxy.Respond, Status: 429, RetryAfter: "1"})
				},
				Config:      cfg,
				ExpectError: regexp.MustCompile(`(?s)Cannot read MutatingWebhookConfiguration "` + regexp.QuoteMeta(name) + `".*gave up after \d+ attempts.*(429|TooManyRequests|Too Many Requests)`),
			},
			{PreConfig: p.Clear, Config: cfg, Check: agree(t, name, 10, 1)},
		},
	})
}

// A data source read against a server that stays down must end, as a
// resource read does, with an error after its timeout.
func TestAccReliabilityDataSourceGivesUpAfterItsTimeout(t *testing.T) {
	p := startFaultProxy(t)
	var started time.Time
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					started = time.Now()
					p.SetConnections(faultproxy.Refuse, 30*time.Second)
				},
				Config: proxiedProvider(t, p) + `
data "admission_mutating_webhook_configurations" "all" {
  timeouts {
    read = "5s"
  }
}
`,
				ExpectError: regexp.MustCompile(`(?s)Cannot (read|list) MutatingWebhookConfiguration.*gave up after \d+ attempts`),
			},
			{
				PreConfig: func() {
					t.Logf("figures: %-46s failed after %s", "data source: connections refused", time.Since(started).Round(10*time.Millisecond))
					p.SetConnections(faultproxy.Accept, 0)
				},
				Config: proxiedProvider(t, p) + `
data "admission_mutating_webhook_configurations" "all" {}
`,
			},
		},
	})
}
