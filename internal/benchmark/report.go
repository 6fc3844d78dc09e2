package benchmark

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"time"
)

// Machine describes where the figures were taken.
type Machine struct {
	Date, OS, Kernel, CPU  string
	NumCPU                 int
	Memory                 string
	Go, Terraform, Kubectl string
	KubeAPIServer, Etcd    string
	Commit                 string
	// Provider says what the measured provider was built from, Peer what
	// hashicorp/kubernetes was (or why it was not measured).
	Provider, Peer     string
	LoadStart, LoadEnd string
}

// DescribeMachine fills in the machine and tool versions.
func DescribeMachine(terraform, kubectl, kubeAPIServer, etcd string) Machine {
	m := Machine{
		Date:      time.Now().Format("2006-01-02 15:04 MST"),
		NumCPU:    runtime.NumCPU(),
		LoadStart: LoadAvg(),
	}
	m.Kernel = firstLine(output("uname", "-srm"))
	m.OS = "unknown"
	if data, err := os.ReadFile("/etc/os-release"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(l, "PRETTY_NAME="); ok {
				m.OS = strings.Trim(v, `"'`)
			}
		}
	}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(l, "MemTotal:") {
				var kib int64
				_, _ = fmt.Sscan(strings.TrimPrefix(l, "MemTotal:"), &kib)
				m.Memory = fmt.Sprintf("%.1f GiB", float64(kib)/(1<<20))
			}
		}
	}
	m.Go = firstLine(output("go", "version"))
	var tf struct {
		Version string `json:"terraform_version"`
	}
	if json.Unmarshal([]byte(output(terraform, "version", "-json")), &tf) == nil && tf.Version != "" {
		m.Terraform = tf.Version
	} else {
		m.Terraform = firstLine(output(terraform, "version"))
	}
	var kc struct {
		ClientVersion struct {
			GitVersion string `json:"gitVersion"`
		} `json:"clientVersion"`
	}
	if kubectl == "" {
		m.Kubectl = "not measured"
	} else {
		if json.Unmarshal([]byte(output(kubectl, "version", "--client", "-o", "json")), &kc) == nil {
			m.Kubectl = kc.ClientVersion.GitVersion
		}
		m.Kubectl += " (" + kubectl + ")"
	}
	m.KubeAPIServer = firstLine(output(kubeAPIServer, "--version"))
	m.Etcd = firstLine(output(etcd, "--version"))
	m.Commit = strings.TrimSpace(output("git", "describe", "--always", "--dirty", "--exclude=*"))
	return m
}

func output(name string, args ...string) string {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1", "TF_CLI_CONFIG_FILE=/dev/null")
	out, err := cmd.Output()
	if err != nil && len(out) == 0 {
		return "unknown (" + err.Error() + ")"
	}
	return string(out)
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

// Target is one goal and how the figures measure against it.
type Target struct {
	// Name says what is judged, Goal the figure wanted, Figure the one
	// measured; Status is "pass" or "miss".
	Name, Goal, Figure, Status string
}

// find returns the result of tool/phase at n.
func find(results []Result, n int, tool, phase string) (Result, bool) {
	for _, r := range results {
		if r.N == n && r.Tool == tool && r.Phase == phase {
			return r, true
		}
	}
	return Result{}, false
}

func sizes(results []Result) []int {
	seen := map[int]bool{}
	var out []int
	for _, r := range results {
		if !seen[r.N] {
			seen[r.N] = true
			out = append(out, r.N)
		}
	}
	sort.Ints(out)
	return out
}

func status(ok bool) string {
	if ok {
		return "pass"
	}
	return "miss"
}

// Sizes at which the goals are set; the others are judged at every size
// measured, and so are these (as a trend), marked "at N=…" in the name.
const (
	targetNoopN = 200
	targetRSSN  = 1000
	targetPeerN = 200
)

// Targets judges the results against the goals:
//   - a refresh costs exactly one GET per object, and a no-change plan
//     nothing more;
//   - an apply one write per object, plus one dry run per object for each
//     plan of it (terraform apply plans every change twice: the plan, and
//     again just before applying it); creating costs no GET: the dry run of
//     the plan just before it shows that no object has the name (the
//     provider refuses to take over an existing object);
//   - no discovery or /version request per object (at most one per
//     provider process);
//   - a no-change plan of 200 objects within 1.5x the wall time of kubectl
//     diff --server-side, and an apply from empty within 2x of kubectl
//     apply --server-side;
//   - the provider's peak RSS under 150 MiB at N=1000.
//   - every phase, pinned, at N=200, on loopback and with 50 ms per
//     request, at or below hashicorp/kubernetes' wall time (the median of
//     the rounds' ratios; at other sizes and unpinned, as a trend).
//
// The counts and the ratios to kubectl are judged on the first round of
// the runs without added latency (the unpinned ones, when there are both).
func Targets(all []Result) []Target {
	var out []Target
	add := func(name, goal, figure string, ok bool) {
		out = append(out, Target{Name: name, Goal: goal, Figure: figure, Status: status(ok)})
	}
	for _, set := range runSets(all) {
		in := set.of(all)
		for _, ph := range Phases {
			ratios := PeerRatios(in, set.N, ph)
			if len(ratios) == 0 {
				continue
			}
			where := "loopback"
			if set.Latency > 0 {
				where = "+" + set.Latency.String()
			}
			pin := "pinned"
			if !set.Pinned {
				pin = "unpinned"
			}
			name := fmt.Sprintf("N=%d %s %s %s vs hashicorp/kubernetes", set.N, where, pin, ph)
			if set.N != targetPeerN || !set.Pinned {
				name += fmt.Sprintf(" (goal set at N=%d pinned)", targetPeerN)
			}
			figs := make([]string, len(ratios))
			for i, r := range ratios {
				figs[i] = fmt.Sprintf("%.2fx", r)
			}
			m := median(ratios)
			add(name, "≤ 1.0x (median of rounds)", fmt.Sprintf("%.2fx (rounds: %s; CPU of terraform and provider: %.2fx)",
				m, strings.Join(figs, ", "), median(peerCPURatios(in, set.N, ph))), m <= 1.0)
		}
	}
	var results []Result
	firstRound, pinned := 0, true
	for _, r := range all {
		if r.Latency == 0 && (firstRound == 0 || r.Round < firstRound) {
			firstRound = r.Round
		}
		if r.Latency == 0 && !r.Pinned {
			pinned = false
		}
	}
	for _, r := range all {
		if r.Latency == 0 && r.Round == firstRound && r.Pinned == pinned {
			results = append(results, r)
		}
	}
	perObj := func(r Result, k string, n int) float64 { return float64(r.Requests[k]) / float64(n) }
	for _, n := range sizes(results) {
		f := float64(n)
		if p, ok := find(results, n, Terraform, PhaseNoop); ok {
			get := perObj(p, "get", n)
			others := float64(p.Requests.Object()-p.Requests["get"]) / f
			add(fmt.Sprintf("N=%d refresh (terraform plan)", n), "GET 1 per object", fmt.Sprintf("GET %.2f per object", get), get == 1)
			add(fmt.Sprintf("N=%d no-change plan: no request but the refresh", n), "0 per object",
				fmt.Sprintf("%.2f per object (%s)", others, p.Requests.PerObject(n)), others == 0)
		}
		for _, ph := range []string{PhaseCreate, PhaseChange} {
			p, ok := find(results, n, Terraform, ph)
			if !ok {
				continue
			}
			writes, dry, gets := float64(p.Requests.Writes())/f, float64(p.Requests.DryRuns())/f, perObj(p, "get", n)
			wantGet, why := 1.0, "refresh"
			if ph == PhaseCreate {
				// The dry run of the plan just before the create shows
				// that the name is free; a GET checks only when it
				// could not.
				wantGet, why = 0, "the dry run of the plan shows that the name is free"
			}
			add(fmt.Sprintf("N=%d %s (terraform apply): writes", n, ph), "1 per object", fmt.Sprintf("%.2f per object", writes), writes == 1)
			add(fmt.Sprintf("N=%d %s (terraform apply): dry runs", n, ph), "1 per object per plan (2 plans in an apply)",
				fmt.Sprintf("%.2f per object", dry), dry <= 2)
			add(fmt.Sprintf("N=%d %s (terraform apply): GETs", n, ph), fmt.Sprintf("%.0f per object (%s)", wantGet, why),
				fmt.Sprintf("%.2f per object", gets), gets <= wantGet)
		}
		maxMeta, procs, phases := 0, 0, 0
		for _, ph := range Phases {
			if p, ok := find(results, n, Terraform, ph); ok {
				maxMeta = max(maxMeta, p.Requests.Meta())
				procs = max(procs, p.ProviderProcs)
				phases++
			}
		}
		if phases > 0 {
			add(fmt.Sprintf("N=%d discovery and /version requests", n), "none per object (at most 1 per provider process)",
				fmt.Sprintf("at most %d in a phase, %d provider processes", maxMeta, procs), maxMeta <= procs)
		}
		if tp, ok := find(results, n, Terraform, PhaseNoop); ok {
			if kp, ok := find(results, n, Kubectl, PhaseNoop); ok {
				r := tp.Ratio(kp)
				name := fmt.Sprintf("N=%d no-change plan vs kubectl diff --server-side", n)
				if n != targetNoopN {
					name += fmt.Sprintf(" (goal set at N=%d)", targetNoopN)
				}
				add(name, "≤ 1.5x", fmt.Sprintf("%.2fs vs %.2fs: %.2fx", tp.Wall.Seconds(), kp.Wall.Seconds(), r), r <= 1.5)
			}
		}
		if tp, ok := find(results, n, Terraform, PhaseCreate); ok {
			if kp, ok := find(results, n, Kubectl, PhaseCreate); ok {
				r := tp.Ratio(kp)
				add(fmt.Sprintf("N=%d apply from empty vs kubectl apply --server-side", n), "≤ 2x",
					fmt.Sprintf("%.2fs vs %.2fs: %.2fx", tp.Wall.Seconds(), kp.Wall.Seconds(), r), r <= 2)
			}
		}
		var peak int64
		for _, ph := range Phases {
			if p, ok := find(results, n, Terraform, ph); ok {
				peak = max(peak, p.ProviderPeakRSS)
			}
		}
		if peak > 0 {
			name := fmt.Sprintf("N=%d provider peak RSS", n)
			if n != targetRSSN {
				name += fmt.Sprintf(" (goal set at N=%d)", targetRSSN)
			}
			add(name, "< 150 MiB", fmt.Sprintf("%.1f MiB", float64(peak)/1024), peak < 150<<10)
		}
	}
	return out
}

// Markdown renders the results file.
func Markdown(m Machine, cmdline string, results []Result, peer Peer, goBench string, notes string) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	p("# Benchmark: terraform-provider-admission vs hashicorp/kubernetes and kubectl")
	p("")
	p("Generated by `%s`.", cmdline)
	p("")
	p("## Machine")
	p("")
	p("| | |")
	p("|---|---|")
	p("| date | %s |", m.Date)
	p("| repository | %s |", m.Commit)
	p("| provider built from | %s |", m.Provider)
	p("| OS | %s |", m.OS)
	p("| kernel | %s |", m.Kernel)
	p("| CPU | %s, %d logical CPUs (nproc) |", m.CPU, m.NumCPU)
	p("| memory | %s |", m.Memory)
	p("| Go | %s |", m.Go)
	p("| terraform | %s |", m.Terraform)
	p("| kubectl | %s |", m.Kubectl)
	p("| kube-apiserver | %s (local, loopback, audit log at level Metadata) |", m.KubeAPIServer)
	p("| etcd | %s |", m.Etcd)
	p("| hashicorp/kubernetes | %s |", m.Peer)
	p("| load average (1, 5, 15 min) | %s at the start, %s at the end |", m.LoadStart, m.LoadEnd)
	p("")
	p("The machine is shared: the 1-minute load average at the start and the end of each phase is in the tables.")
	p("")
	p("## Workload")
	p("")
	p("N MutatingWebhookConfigurations, each with %d webhooks; each webhook has %d rules, a namespace selector (one match expression),", WebhooksPerObject, rulesPerWebhook)
	p("an object selector (one label), match conditions (CEL, distinct in every object; how many per webhook is in each table's title),")
	p("a service client config and a timeout.")
	p("Terraform: one configuration with N `admission_mutating_webhook_configuration` blocks, default `-parallelism` (10), the provider")
	p("built with `go build` and run through `dev_overrides`. kubectl: one multi-document YAML file of the same objects.")
	p("hashicorp/kubernetes: the same configuration with the resource type `kubernetes_mutating_webhook_configuration_v1`, run the same way.")
	p("Each tool at each N starts on its own fresh control plane (etcd + kube-apiserver on 127.0.0.1). With added latency, every tool")
	p("reaches it through a proxy on loopback (the fault proxy of the acceptance tests) that delays every request by that long before")
	p("forwarding it, as a cluster across a network would. Pinned (`taskset`): etcd, kube-apiserver and the harness (which holds the")
	p("proxy) on CPU %d, the tool (terraform with its provider, or kubectl) on CPU %d; unpinned, the scheduler places them. Rounds run", controlPlaneCPU, toolCPU)
	p("the tools one after the other (this provider, hashicorp/kubernetes, kubectl), so that a ratio compares runs of the same moment.")
	p("")
	p("| phase | terraform | kubectl |")
	p("|---|---|---|")
	p("| create | `terraform apply` from empty | `kubectl apply --server-side -f` |")
	p("| noop | `terraform plan -detailed-exitcode` (refresh, no change) | `kubectl diff --server-side -f` |")
	p("| change | `terraform apply` after webhook[0].timeout_seconds 5→7 in every object | `kubectl apply --server-side -f` of the changed objects |")
	p("| destroy | `terraform destroy` | `kubectl delete -f` |")
	p("")
	p("Requests are counted at the API server from its audit log, by User-Agent (each provider's, or kubectl's), between two marker")
	p("requests. Per object: requests on mutatingwebhookconfigurations divided by N (`patch (dry-run)` is a dry-run server-side apply).")
	p("After `·`: totals of discovery (`/api`, `/apis/...`), `/version` and `/openapi` calls in the phase.")
	p("Provider RSS is the peak RSS (wait4 ru_maxrss) of the provider processes Terraform started in the phase (count after /),")
	p("CPU is their user+system time; terraform CPU is that of terraform itself, without the provider's.")
	p("")
	p("### hashicorp/kubernetes")
	p("")
	p("%s", peer.Note())
	for _, set := range runSets(results) {
		in := set.of(results)
		n := set.N
		p("")
		p("### %s", set)
		p("")
		hasPeer := false
		for _, r := range in {
			hasPeer = hasPeer || r.Tool == PeerTool
		}
		if hasPeer {
			p("Ratios are this provider's wall time over hashicorp/kubernetes' in the same round (the two ran one after the other); the CPU ratio")
			p("is that of terraform and its provider together (wait4 of the terraform process), which the load of the machine disturbs less.")
			p("")
			p("| phase | round | admission s | hashicorp/kubernetes s | admission / hashicorp | kubectl s | admission requests / object | hashicorp requests / object | provider CPU s (admission / hashicorp) | terraform CPU s (admission / hashicorp) | CPU s, terraform + provider (admission / hashicorp) | CPU ratio | provider peak RSS MiB (procs) (admission / hashicorp) | load1 (admission / hashicorp) |")
			p("|---|---:|---:|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---|")
		} else {
			p("| phase | round | terraform s | kubectl s | ratio | terraform requests / object | kubectl requests / object | provider peak RSS MiB / procs | provider CPU s | terraform CPU s | kubectl CPU s | load1 tf | load1 kubectl |")
			p("|---|---:|---:|---:|---:|---|---|---:|---:|---:|---:|---|---|")
		}
		for _, ph := range Phases {
			for _, round := range rounds(in) {
				t, tok := findRound(in, n, Terraform, ph, round)
				k, kok := findRound(in, n, Kubectl, ph, round)
				h, hok := findRound(in, n, PeerTool, ph, round)
				cell := func(ok bool, f func() string) string {
					if !ok {
						return "–"
					}
					return f()
				}
				wall := func(r Result) func() string { return func() string { return fmt.Sprintf("%.2f", r.Wall.Seconds()) } }
				rss := func(r Result) string {
					return fmt.Sprintf("%.1f (%d)", float64(r.ProviderPeakRSS)/1024, r.ProviderProcs)
				}
				pcpu := func(r Result) string { return fmt.Sprintf("%.2f", r.ProviderCPU.Seconds()) }
				tcpu := func(r Result) string { return fmt.Sprintf("%.2f", (r.CLICPU - r.ProviderCPU).Seconds()) }
				load := func(r Result) string { return fmt.Sprintf("%.2f→%.2f", r.LoadStart, r.LoadEnd) }
				pair := func(f func(Result) string) string {
					return cell(tok, func() string { return f(t) }) + " / " + cell(hok, func() string { return f(h) })
				}
				if hasPeer {
					ratio := "–"
					if tok && hok {
						ratio = fmt.Sprintf("%.2fx", t.Ratio(h))
					}
					cpuRatio := "–"
					if tok && hok && h.CLICPU > 0 {
						cpuRatio = fmt.Sprintf("%.2fx", float64(t.CLICPU)/float64(h.CLICPU))
					}
					p("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |", ph, round,
						cell(tok, wall(t)), cell(hok, wall(h)), ratio, cell(kok, wall(k)),
						cell(tok, func() string { return t.Requests.PerObject(n) }),
						cell(hok, func() string { return h.Requests.PerObject(n) }),
						pair(pcpu), pair(tcpu), pair(func(r Result) string { return fmt.Sprintf("%.2f", r.CLICPU.Seconds()) }), cpuRatio,
						pair(rss), pair(load))
					continue
				}
				ratio := "–"
				if tok && kok {
					ratio = fmt.Sprintf("%.2fx", t.Ratio(k))
				}
				p("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |", ph, round,
					cell(tok, wall(t)), cell(kok, wall(k)), ratio,
					cell(tok, func() string { return t.Requests.PerObject(n) }),
					cell(kok, func() string { return k.Requests.PerObject(n) }),
					cell(tok, func() string { return rss(t) }),
					cell(tok, func() string { return pcpu(t) }),
					cell(tok, func() string { return tcpu(t) }),
					cell(kok, func() string { return fmt.Sprintf("%.2f", k.CLICPU.Seconds()) }),
					cell(tok, func() string { return load(t) }),
					cell(kok, func() string { return load(k) }),
				)
			}
		}
	}
	p("")
	p("## Targets")
	p("")
	p("Request counts are the provider's at the API server, per object. An apply plans every object twice (the plan, then")
	p("again just before applying it), so one dry run per plan is two per object. Creating needs no GET: the provider refuses to")
	p("take over an object that already exists, and the dry run of the plan just before the create shows that the name is free.")
	p("The targets are judged on the runs without added latency.")
	p("")
	p("| target | goal | measured | status |")
	p("|---|---|---|---|")
	for _, t := range Targets(results) {
		p("| %s | %s | %s | %s |", t.Name, t.Goal, t.Figure, t.Status)
	}
	if notes != "" {
		p("")
		p("%s", strings.TrimSpace(notes))
	}
	if goBench != "" {
		p("")
		p("## Go benchmarks")
		p("")
		p("```")
		p("%s", strings.TrimSpace(goBench))
		p("```")
	}
	return b.String()
}

// runSet is the results of one size, added latency and number of match
// conditions.
type runSet struct {
	N          int
	Latency    time.Duration
	Conditions int
	Pinned     bool
}

func (s runSet) String() string {
	where := "loopback"
	if s.Latency > 0 {
		where = fmt.Sprintf("+%s per request", s.Latency)
	}
	pin := "unpinned"
	if s.Pinned {
		pin = fmt.Sprintf("pinned (API server and etcd on CPU %d, the tool on CPU %d)", controlPlaneCPU, toolCPU)
	}
	return fmt.Sprintf("N = %d, %s, %d match conditions per webhook, %s", s.N, where, s.Conditions, pin)
}

func (s runSet) of(results []Result) []Result {
	var out []Result
	for _, r := range results {
		if r.N == s.N && r.Latency == s.Latency && r.Conditions == s.Conditions && r.Pinned == s.Pinned {
			out = append(out, r)
		}
	}
	return out
}

// runSets lists the sets of results in the order they ran.
func runSets(results []Result) []runSet {
	var out []runSet
	seen := map[runSet]bool{}
	for _, r := range results {
		s := runSet{r.N, r.Latency, r.Conditions, r.Pinned}
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// rounds lists the rounds of results, in order.
func rounds(results []Result) []int {
	seen := map[int]bool{}
	var out []int
	for _, r := range results {
		if !seen[r.Round] {
			seen[r.Round] = true
			out = append(out, r.Round)
		}
	}
	sort.Ints(out)
	return out
}

// findRound returns the result of tool/phase at n in round.
func findRound(results []Result, n int, tool, phase string, round int) (Result, bool) {
	for _, r := range results {
		if r.N == n && r.Tool == tool && r.Phase == phase && r.Round == round {
			return r, true
		}
	}
	return Result{}, false
}

// PeerRatios are, per set of results and phase, this provider's wall time
// over hashicorp/kubernetes' in each round where both ran.
func PeerRatios(set []Result, n int, phase string) []float64 {
	var out []float64
	for _, round := range rounds(set) {
		t, tok := findRound(set, n, Terraform, phase, round)
		h, hok := findRound(set, n, PeerTool, phase, round)
		if tok && hok && h.Wall > 0 {
			out = append(out, t.Ratio(h))
		}
	}
	return out
}

// peerCPURatios are PeerRatios of the CPU time of terraform with its
// provider.
func peerCPURatios(set []Result, n int, phase string) []float64 {
	var out []float64
	for _, round := range rounds(set) {
		t, tok := findRound(set, n, Terraform, phase, round)
		h, hok := findRound(set, n, PeerTool, phase, round)
		if tok && hok && h.CLICPU > 0 {
			out = append(out, float64(t.CLICPU)/float64(h.CLICPU))
		}
	}
	return out
}

// median of xs (the mean of the middle two for an even count).
func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
