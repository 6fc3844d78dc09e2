package webhook_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest/faultproxy"
)

// These tests put a fault proxy between the provider and the local API
// server, and check that the provider rides out transient failures within
// its timeouts, fails clearly when they last longer, and never leaves state
// and cluster out of step. Each logs its figures (requests seen at the proxy,
// time to converge) as "figures:" lines.

func startFaultProxy(t *testing.T) *faultproxy.Proxy { return acctest.FaultProxy(t) }

// removeLeftover deletes the object when the test ends, if a failed step
// left it in the cluster outside the state, so that it does not outlive
// the test in the shared control plane.
func removeLeftover(t *testing.T, name string) {
	t.Cleanup(func() {
		cs := acctest.Clientset(t)
		err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(context.Background(), name, metav1.DeleteOptions{})
		if err == nil {
			t.Logf("deleted %s, left in the cluster by the test", name)
		}
	})
}

// proxiedProvider reaches the API server through the proxy with the admin
// token, trusting the proxy's CA.
func proxiedProvider(t *testing.T, p *faultproxy.Proxy, extra ...string) string {
	return acctest.ProxiedProvider(t, p, extra...)
}

// proxiedConfig is minimalConfig through the proxy, with the webhook's
// timeoutSeconds (changing it makes an update) and a timeouts block.
func proxiedConfig(t *testing.T, p *faultproxy.Proxy, name string, timeoutSeconds int, timeouts string) string {
	t.Helper()
	return proxiedProvider(t, p) + resourceBlock(t, name, timeoutSeconds, timeouts)
}

// resourceBlock is the resource of minimalConfig, without a provider block,
// with the webhook's timeoutSeconds and a timeouts block.
func resourceBlock(t *testing.T, name string, timeoutSeconds int, timeouts string) string {
	t.Helper()
	res := strings.TrimPrefix(minimalConfig(t, name), acctest.ProviderBlock(t))
	res = replaceOnce(res, `side_effects              = "None"`, fmt.Sprintf("side_effects              = \"None\"\n    timeout_seconds           = %d", timeoutSeconds))
	if timeouts != "" {
		res = replaceOnce(res, "  webhook {", "  timeouts {\n    "+timeouts+"\n  }\n  webhook {")
	}
	return res
}

func objectPath(name string) string { return "/mutatingwebhookconfigurations/" + name }

// applyOf matches the server-side apply that writes the object (not the
// dry run at plan).
func applyOf(name string) faultproxy.Match {
	return faultproxy.All(faultproxy.Method(http.MethodPatch), faultproxy.PathSuffix(objectPath(name)), faultproxy.NotDryRun)
}

func isApply(name string) func(faultproxy.Record) bool {
	return func(r faultproxy.Record) bool {
		return r.Method == http.MethodPatch && strings.HasSuffix(r.Path, objectPath(name)) && !strings.Contains(r.Query, "dryRun")
	}
}

// phase measures one fault, from its injection to the apply that got through.
type phase struct {
	t     *testing.T
	p     *faultproxy.Proxy
	name  string
	what  string
	start time.Time
	conns faultproxy.ConnStats
}

func beginPhase(t *testing.T, p *faultproxy.Proxy, name, what string) *phase {
	p.ResetRecords()
	return &phase{t: t, p: p, name: name, what: what, start: time.Now(), conns: p.Connections()}
}

// report logs the figures of the phase and returns the apply requests seen
// and those that reached the server.
func (ph *phase) report() (applies, forwarded int) {
	var firstOK time.Time
	var statuses []string
	for _, r := range ph.p.Records() {
		if !isApply(ph.name)(r) {
			continue
		}
		applies++
		if r.Forwarded {
			forwarded++
		}
		s := fmt.Sprint(r.Status)
		if r.Fault != "" {
			s = r.Fault + ":" + s
		}
		statuses = append(statuses, s)
		if r.Forwarded && r.Status/100 == 2 && firstOK.IsZero() && (r.Fault == "" || r.Fault == "delay") {
			firstOK = r.Done
		}
	}
	c := ph.p.Connections()
	converge := "no successful apply"
	if !firstOK.IsZero() {
		converge = firstOK.Sub(ph.start).Round(10 * time.Millisecond).String()
	}
	ph.t.Logf("figures: %-46s apply requests %d %v; GETs %d; dry runs %d; connections reset %d, dropped %d, held %d; fault start to successful apply answered %s; step %s",
		ph.what, applies, statuses,
		ph.p.CountWhere(func(r faultproxy.Record) bool {
			return r.Method == http.MethodGet && strings.HasSuffix(r.Path, objectPath(ph.name))
		}),
		ph.p.CountWhere(func(r faultproxy.Record) bool { return strings.Contains(r.Query, "dryRun") }),
		c.Reset-ph.conns.Reset, c.Dropped-ph.conns.Dropped, c.Blackholed-ph.conns.Blackholed,
		converge, time.Since(ph.start).Round(10*time.Millisecond))
	return applies, forwarded
}

// agree checks that the server stores the configured timeoutSeconds, that
// the object was written by our field manager alone, and that the state
// says the same.
func agree(t *testing.T, name string, timeoutSeconds int, generation int64) resource.TestCheckFunc {
	return resource.ComposeAggregateTestCheckFunc(
		checkServer(t, name, func(o *admissionregistrationv1.MutatingWebhookConfiguration) error {
			if got := *o.Webhooks[0].TimeoutSeconds; got != int32(timeoutSeconds) {
				return fmt.Errorf("server has timeoutSeconds %d, want %d", got, timeoutSeconds)
			}
			if generation > 0 && o.Generation != generation {
				return fmt.Errorf("generation = %d, want %d: the object was written more than once", o.Generation, generation)
			}
			for _, m := range o.ManagedFields {
				if m.Manager != "terraform-provider-admission" {
					return fmt.Errorf("field manager %q also wrote the object", m.Manager)
				}
			}
			return nil
		}),
		resource.TestCheckResourceAttr(resourceAddr, "webhook.0.timeout_seconds", fmt.Sprint(timeoutSeconds)),
		func(s *terraform.State) error {
			rs := s.RootModule().Resources[resourceAddr]
			if rs == nil {
				return fmt.Errorf("%s is not in the state", resourceAddr)
			}
			obj := get(t, acctest.Clientset(t), name)
			if rs.Primary.Attributes["metadata.0.resource_version"] != obj.ResourceVersion || rs.Primary.Attributes["metadata.0.uid"] != string(obj.UID) {
				return fmt.Errorf("state has uid %s resourceVersion %s; server has %s %s",
					rs.Primary.Attributes["metadata.0.uid"], rs.Primary.Attributes["metadata.0.resource_version"], obj.UID, obj.ResourceVersion)
			}
			return nil
		},
	)
}

// Transient failures of every kind, one per step: each apply converges
// without help, and state and cluster agree after it.
func TestAccReliabilityTransientFaultsConverge(t *testing.T) {
	t.Parallel() // faults at a proxy of its own, on an object of its own
	p := startFaultProxy(t)
	name := randomName()
	removeLeftover(t, name)
	object := faultproxy.PathSuffix(objectPath(name))

	type faultStep struct {
		what   string
		inject func() []*faultproxy.Injected
		// minApplies is the least number of apply requests the proxy
		// must see: the faulted ones and the one that got through.
		minApplies int
	}
	respond := func(m faultproxy.Match, status int, retryAfter string, times int) func() []*faultproxy.Injected {
		return func() []*faultproxy.Injected {
			return []*faultproxy.Injected{p.Inject(faultproxy.Fault{Match: m, Action: faultproxy.Respond, Status: status, RetryAfter: retryAfter, Times: times})}
		}
	}
	conns := func(mode faultproxy.ConnMode, d time.Duration) func() []*faultproxy.Injected {
		return func() []*faultproxy.Injected { p.SetConnections(mode, d); return nil }
	}
	faults := []faultStep{
		{"create: 429 Retry-After 1s x3 on the apply", respond(applyOf(name), 429, "1", 3), 4},
		{"update: 429 without Retry-After x3 on the apply", respond(applyOf(name), 429, "", 3), 4},
		{"update: 503 x4 on every request of the object", respond(object, 503, "", 4), 1},
		{"update: 503 Retry-After 1s x2 on the apply", respond(applyOf(name), 503, "1", 2), 3},
		{"update: 500 x2 then 504 x2 on the apply", func() []*faultproxy.Injected {
			return append(respond(applyOf(name), 500, "", 2)(), respond(applyOf(name), 504, "", 2)()...)
		}, 5},
		{"update: 429 Retry-After 1s for 4s on the apply", func() []*faultproxy.Injected {
			return []*faultproxy.Injected{p.Inject(faultproxy.Fault{Match: applyOf(name), Action: faultproxy.Respond, Status: 429, RetryAfter: "1", For: 4 * time.Second})}
		}, 2},
		{"update: connections dropped for 3s", conns(faultproxy.Drop, 3*time.Second), 1},
		{"update: connections reset for 3s", conns(faultproxy.Reset, 3*time.Second), 1},
		{"update: connections refused for 5s", conns(faultproxy.Refuse, 5*time.Second), 1},
		{"update: connections unanswered for 4s", conns(faultproxy.Blackhole, 4*time.Second), 1},
		{"update: apply delayed 4s", func() []*faultproxy.Injected {
			return []*faultproxy.Injected{p.Inject(faultproxy.Fault{Match: applyOf(name), Action: faultproxy.Delay, Delay: 4 * time.Second, Times: 1})}
		}, 1},
	}

	var steps []resource.TestStep
	for i, f := range faults {
		var ph *phase
		var injected []*faultproxy.Injected
		timeoutSeconds := 11 + i
		steps = append(steps, resource.TestStep{
			PreConfig: func() {
				p.Clear()
				ph = beginPhase(t, p, name, f.what)
				injected = f.inject()
			},
			Config: proxiedConfig(t, p, name, timeoutSeconds, ""),
			Check: resource.ComposeAggregateTestCheckFunc(
				func(*terraform.State) error {
					applies, _ := ph.report()
					for _, in := range injected {
						if in.Hits() == 0 {
							return fmt.Errorf("%s: the fault never hit", f.what)
						}
					}
					if applies < f.minApplies {
						return fmt.Errorf("%s: %d apply requests, want at least %d (the faulted ones and a retry)", f.what, applies, f.minApplies)
					}
					return nil
				},
				agree(t, name, timeoutSeconds, int64(i+1)),
			),
		})
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkGone(t, name),
		Steps:                    steps,
	})
}

// The connection is cut in the middle of the apply, after the server has
// stored the object: the provider must find out what happened and end with
// state and cluster in step, in this apply or the next, with the object
// written once and never taken over as "already exists".
func TestAccReliabilityApplyCutMidway(t *testing.T) {
	t.Parallel() // faults at a proxy of its own, on an object of its own
	for _, tc := range []struct {
		what  string
		fault faultproxy.Fault
	}{
		{"connection closed in the middle of the answer", faultproxy.Fault{Action: faultproxy.CutConnection}},
		{"connection closed before any answer", faultproxy.Fault{Action: faultproxy.CutConnection, CutBeforeResponse: true}},
		{"HTTP/2 stream reset in the middle of the answer", faultproxy.Fault{Action: faultproxy.ResetStream}},
		{"HTTP/2 stream reset before any answer", faultproxy.Fault{Action: faultproxy.ResetStream, CutBeforeResponse: true}},
	} {
		t.Run(strings.ReplaceAll(tc.what, " ", "_"), func(t *testing.T) {
			t.Parallel() // a proxy of its own
			p := startFaultProxy(t)
			name := randomName()
			removeLeftover(t, name)
			var ph *phase
			var cut *faultproxy.Injected
			cfg := proxiedConfig(t, p, name, 10, "")
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				CheckDestroy:             checkGone(t, name),
				Steps: []resource.TestStep{
					{
						PreConfig: func() {
							ph = beginPhase(t, p, name, "create: "+tc.what)
							f := tc.fault
							f.Match, f.Times = applyOf(name), 1
							cut = p.Inject(f)
						},
						Config: cfg,
						Check: resource.ComposeAggregateTestCheckFunc(
							func(*terraform.State) error {
								applies, forwarded := ph.report()
								if cut.Hits() != 1 || forwarded < 2 {
									return fmt.Errorf("want the cut apply and a retry to reach the server; got %d applies, %d forwarded", applies, forwarded)
								}
								return nil
							},
							agree(t, name, 10, 1),
						),
					},
					{
						// The update is cut the same way.
						PreConfig: func() {
							ph = beginPhase(t, p, name, "update: "+tc.what)
							f := tc.fault
							f.Match, f.Times = applyOf(name), 1
							cut = p.Inject(f)
						},
						Config: proxiedConfig(t, p, name, 12, ""),
						Check: resource.ComposeAggregateTestCheckFunc(
							func(*terraform.State) error { ph.report(); return nil },
							agree(t, name, 12, 2),
						),
					},
					{
						// And the deletion, at the end of the test: a cut
						// DELETE is repeated and finds the object gone.
						PreConfig: func() {
							f := tc.fault
							f.Match, f.Times = faultproxy.All(faultproxy.Method(http.MethodDelete), faultproxy.PathSuffix(objectPath(name))), 1
							cut = p.Inject(f)
						},
						Config:  proxiedConfig(t, p, name, 12, ""),
						Destroy: true,
						Check: func(*terraform.State) error {
							if cut.Hits() != 1 {
								return fmt.Errorf("the DELETE was not cut")
							}
							return nil
						},
					},
				},
			})
		})
	}
}

// The server goes down right after storing the apply and comes back within
// the create timeout: the same apply converges.
func TestAccReliabilityServerDownDuringApply(t *testing.T) {
	t.Parallel() // faults at a proxy of its own, on an object of its own
	p := startFaultProxy(t)
	name := randomName()
	removeLeftover(t, name)
	var ph *phase
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkGone(t, name),
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					ph = beginPhase(t, p, name, "create: server down 8s after storing")
					p.Inject(faultproxy.Fault{Match: applyOf(name), Action: faultproxy.CutConnection, CutBeforeResponse: true,
						Outage: 8 * time.Second, Times: 1})
				},
				Config: proxiedConfig(t, p, name, 10, ""),
				Check: resource.ComposeAggregateTestCheckFunc(
					func(*terraform.State) error {
						if applies, forwarded := ph.report(); forwarded != 2 {
							return fmt.Errorf("want the cut apply and one retry after the outage, got %d applies, %d forwarded", applies, forwarded)
						}
						return nil
					},
					agree(t, name, 10, 1),
				),
			},
			{
				PreConfig: func() {
					ph = beginPhase(t, p, name, "update: server down 8s before the apply")
					p.Inject(faultproxy.Fault{Match: applyOf(name), Action: faultproxy.CutConnection, NoForward: true,
						Outage: 8 * time.Second, Times: 1})
				},
				Config: proxiedConfig(t, p, name, 11, ""),
				Check: resource.ComposeAggregateTestCheckFunc(
					func(*terraform.State) error { ph.report(); return nil },
					agree(t, name, 11, 2),
				),
			},
		},
	})
}

// A fault that outlasts the operation's timeout gives an error that names
// the operation and the object and says it gave up; the state stays as it
// was, and once the fault ends the next run converges.
func TestAccReliabilityFaultOutlastsTimeout(t *testing.T) {
	t.Parallel() // faults at a proxy of its own, on an object of its own
	p := startFaultProxy(t)
	name := randomName()
	removeLeftover(t, name)
	timeouts := `create = "5s"
    read   = "5s"
    update = "5s"
    delete = "5s"`
	cfg := func(timeoutSeconds int) string { return proxiedConfig(t, p, name, timeoutSeconds, timeouts) }
	gaveUp := func(op string) *regexp.Regexp {
		return regexp.MustCompile(`(?s)Cannot ` + op + ` MutatingWebhookConfiguration "` + regexp.QuoteMeta(name) + `".*gave up after \d+ attempts`)
	}
	var started time.Time
	var fault *faultproxy.Injected
	inject := func(f faultproxy.Fault) func() {
		return func() {
			p.Clear()
			started = time.Now()
			fault = p.Inject(f)
		}
	}
	took := func(what string) func() {
		return func() {
			t.Logf("figures: %-46s failed after %s, %d requests answered by the fault", what, time.Since(started).Round(10*time.Millisecond), fault.Hits())
			p.Clear()
		}
	}
	unchanged := func(timeoutSeconds int) resource.TestCheckFunc { return agree(t, name, timeoutSeconds, 0) }
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkGone(t, name),
		Steps: []resource.TestStep{
			{
				PreConfig:   inject(faultproxy.Fault{Match: applyOf(name), Action: faultproxy.Respond, Status: 503}),
				Config:      cfg(10),
				ExpectError: gaveUp("create"),
			},
			{
				PreConfig: took("create: 503 on every apply"),
				Config:    cfg(10),
				Check: resource.ComposeAggregateTestCheckFunc(
					checkServer(t, name, func(*admissionregistrationv1.MutatingWebhookConfiguration) error { return nil }),
					unchanged(10),
				),
			},
			{
				PreConfig:   inject(faultproxy.Fault{Match: faultproxy.All(faultproxy.Method(http.MethodGet), faultproxy.PathSuffix(objectPath(name))), Action: faultproxy.Respond, Status: 503}),
				Config:      cfg(10),
				ExpectError: gaveUp("read"),
			},
			{
				PreConfig: took("refresh: 503 on every read"),
				Config:    cfg(10),
				Check:     unchanged(10),
			},
			{
				PreConfig:   inject(faultproxy.Fault{Match: applyOf(name), Action: faultproxy.Respond, Status: 504}),
				Config:      cfg(20),
				ExpectError: gaveUp("update"),
			},
			{
				// The failed update left state and cluster as they were.
				PreConfig: took("update: 504 on every apply"),
				Config:    cfg(10),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(resourceAddr, webhookPath(0, "timeout_seconds"), knownvalue.Int64Exact(10)),
				},
				Check: unchanged(10),
			},
			{
				PreConfig: inject(faultproxy.Fault{Match: faultproxy.All(faultproxy.Method(http.MethodDelete), faultproxy.PathSuffix(objectPath(name))),
					Action: faultproxy.Respond, Status: 503}),
				Config:      proxiedProvider(t, p),
				ExpectError: gaveUp("delete"),
			},
			{
				PreConfig: took("delete: 503 on every delete"),
				Config:    cfg(10),
				Check:     unchanged(10),
			},
		},
	})
}

// A server that accepts connections and never answers, for longer than the
// update timeout: the error names the operation and the object.
func TestAccReliabilityUnansweredConnectionsOutlastTimeout(t *testing.T) {
	t.Parallel() // faults at a proxy of its own, on an object of its own
	p := startFaultProxy(t)
	name := randomName()
	removeLeftover(t, name)
	expect := `(?s)Cannot read MutatingWebhookConfiguration "` + regexp.QuoteMeta(name) + `"`
	expect += `.*gave up after \d+ attempts`
	timeouts := `read   = "5s"
    update = "5s"
    delete = "5s"`
	var started time.Time
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkGone(t, name),
		Steps: []resource.TestStep{
			{Config: proxiedConfig(t, p, name, 10, timeouts)},
			{
				// Held from the refresh on: the read times out first.
				PreConfig: func() {
					started = time.Now()
					p.SetConnections(faultproxy.Blackhole, 0)
				},
				Config:      proxiedConfig(t, p, name, 11, timeouts),
				ExpectError: regexp.MustCompile(expect),
			},
			{
				PreConfig: func() {
					t.Logf("figures: %-46s failed after %s", "refresh: connections never answered", time.Since(started).Round(10*time.Millisecond))
					p.SetConnections(faultproxy.Accept, 0)
				},
				Config: proxiedConfig(t, p, name, 10, timeouts),
				Check:  agree(t, name, 10, 1),
			},
		},
	})
}

// A data source retries what the server answers while it is unwell (503
// Service Unavailable here), within its read timeout, and reads once the
// server is well again.
func TestAccReliabilityDataSourceRetriesTheServersAnswers(t *testing.T) {
	t.Parallel() // faults at a proxy of its own, on an object of its own
	p := startFaultProxy(t)
	var started time.Time
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			PreConfig: func() {
				started = time.Now()
				p.Inject(faultproxy.Fault{Action: faultproxy.Respond, Status: http.StatusServiceUnavailable, For: 5 * time.Second})
			},
			Config: proxiedProvider(t, p) + `
data "admission_mutating_webhook_configurations" "all" {}
`,
			Check: func(*terraform.State) error {
				took := time.Since(started)
				t.Logf("figures: %-46s read succeeded after %s", "data source: 503 for 5s", took.Round(10*time.Millisecond))
				if took < 5*time.Second {
					return fmt.Errorf("read in %s, before the server was well again", took)
				}
				return nil
			},
		}},
	})
}

// A tainted object (as a create whose outcome was unknown leaves it, or
// terraform taint, or -replace) is deleted and created again.
func TestAccReliabilityTaintedObjectIsReplaced(t *testing.T) {
	t.Parallel() // faults at a proxy of its own, on an object of its own
	name := randomName()
	removeLeftover(t, name)
	var uid string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkGone(t, name),
		Steps: []resource.TestStep{
			{
				Config: minimalConfig(t, name),
				Check:  func(*terraform.State) error { uid = string(get(t, acctest.Clientset(t), name).UID); return nil },
			},
			{
				Taint:  []string{resourceAddr},
				Config: minimalConfig(t, name),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(resourceAddr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				Check: func(*terraform.State) error {
					if got := string(get(t, acctest.Clientset(t), name).UID); got == uid {
						return fmt.Errorf("the tainted object %s (uid %s) was not replaced", name, uid)
					}
					return nil
				},
			},
		},
	})
}

// The server stores the object and goes down before it answers, for longer
// than the create timeout: the apply fails after its timeout, and once the
// server is back the next apply converges, without a duplicate and without
// tripping over the object the first one made.
func TestAccReliabilityServerDownLongerThanTheTimeout(t *testing.T) {
	t.Parallel() // faults at a proxy of its own, on an object of its own
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
				// The failed create was recorded as tainted: the object it
				// may have made is replaced, not left unmanaged.
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(resourceAddr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
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
	t.Parallel() // faults at a proxy of its own, on an object of its own
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

// A data source read against a server that refuses connections gives up
// at once, as the checks at plan do, rather than holding the plan for its
// read timeout; it reads again once the server is back.
func TestAccReliabilityDataSourceFailsFastWhenRefused(t *testing.T) {
	t.Parallel() // faults at a proxy of its own, on an object of its own
	p := startFaultProxy(t)
	var started time.Time
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					started = time.Now()
					p.SetConnections(faultproxy.Refuse, 60*time.Second)
				},
				Config: proxiedProvider(t, p) + `
data "admission_mutating_webhook_configurations" "all" {}
`,
				ExpectError: regexp.MustCompile(`(?s)Cannot list MutatingWebhookConfigurations.*connection refused`),
			},
			{
				PreConfig: func() {
					took := time.Since(started)
					t.Logf("figures: %-46s failed after %s", "data source: connections refused", took.Round(10*time.Millisecond))
					if took > 20*time.Second {
						t.Errorf("the data source waited %s for a server that refuses connections", took)
					}
					p.SetConnections(faultproxy.Accept, 0)
				},
				Config: proxiedProvider(t, p) + `
data "admission_mutating_webhook_configurations" "all" {}
`,
			},
		},
	})
}
