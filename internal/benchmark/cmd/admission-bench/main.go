// Command admission-bench compares the provider with hashicorp/kubernetes
// and kubectl on N MutatingWebhookConfigurations against a local control
// plane, and writes the figures with a description of the machine to
// bench/results-DATE.md (and the raw figures to .json beside it). `make
// bench` runs it:
//
//	go run ./internal/benchmark/cmd/admission-bench -n 200,1000 -conditions 0 -latency 0,50ms -pin both -rounds 2 -gobench
//
// -conditions sets the match conditions per webhook (4 by default; 0 is the
// workload hashicorp/kubernetes can write too), -latency runs every size
// again with that much added to every request (a proxy in front of the
// server), -pin on runs the control plane on one CPU and the tool on the
// other (both: pinned, then unpinned), and -rounds repeats every
// measurement, the tools one after the other in each round. The tool
// "kubernetes" is terraform with hashicorp/kubernetes, whose binary
// ADMISSION_BENCH_PEER names (ADMISSION_BENCH_PEER_ABOUT says in words what
// it was built from); without it, the report says why it was not measured.
//
// While developing, a small run is enough, written nowhere:
//
//	go run ./internal/benchmark/cmd/admission-bench -n 50 -out ""
//
// To find where time goes: -pprof DIR writes, for every provider process
// Terraform starts, a CPU profile, an allocation profile and a profile of the
// heap at its largest (cpu-PID, heap-PID and heap-peak-PID.pprof, in a
// directory per size and phase);
// -phases create,noop measures only the apply from empty and the no-change
// plan (for a large N, where the change and the destroy take longest);
// -count-log counts the provider's log output; -tfenv KEY=VALUE sets the
// environment of terraform and the provider; -provider-src DIR measures a
// changed copy of the provider and -provider-rev REV a clean export of a
// revision (the working tree is shared and may hold unfinished changes).
//
// It needs kube-apiserver and etcd (ADMISSION_KUBE_APISERVER and
// ADMISSION_ETCD, else built by tools/bin.sh), terraform (-terraform, else
// TF_ACC_TERRAFORM_PATH, else tools/bin.sh terraform) and kubectl (-kubectl,
// else ADMISSION_KUBECTL, else tools/bin.sh kubectl, which builds the kubectl
// of the kube-apiserver's version; kubectl on PATH only if that fails). All
// traffic stays on 127.0.0.1.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/benchmark"
)

func main() {
	// Started by Terraform as the provider (see benchmark.RunProviderWrapper).
	if benchmark.IsProviderWrapper() {
		os.Exit(benchmark.RunProviderWrapper())
	}
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "admission-bench: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	sizesFlag := flag.String("n", "50", "comma-separated numbers of objects")
	toolsFlag := flag.String("tools", "terraform,kubernetes,kubectl", "tools to measure, in order (kubernetes: terraform with hashicorp/kubernetes)")
	out := flag.String("out", "bench", `directory of the results file results-DATE.md ("" to write none)`)
	kubectl := flag.String("kubectl", os.Getenv("ADMISSION_KUBECTL"), "kubectl binary (default: tools/bin.sh kubectl, the server's version)")
	terraform := flag.String("terraform", os.Getenv("TF_ACC_TERRAFORM_PATH"), "terraform binary (default: tools/bin.sh terraform)")
	gobench := flag.Bool("gobench", false, "also run the Go benchmarks of conversion and validation and put their output in the results")
	pprofDir := flag.String("pprof", "", "serve the provider in-process with CPU and heap profiles written to this directory (timings then differ from the release binary's)")
	parallelism := flag.Int("parallelism", 0, "terraform -parallelism (0: terraform's default, 10)")
	conditions := flag.Int("conditions", 4, "match conditions per webhook (0: the workload hashicorp/kubernetes can write too)")
	latencies := flag.String("latency", "0", "comma-separated latencies added to every request, such as 0,50ms (0: loopback)")
	pinFlag := flag.String("pin", "off", "on: the control plane on CPU 0 and the tool on CPU 1 (taskset); off; both: pinned, then unpinned")
	roundsFlag := flag.Int("rounds", 1, "rounds of every measurement, the tools one after the other in each")
	keep := flag.Bool("keep", false, "keep the work directory (configurations, logs, audit logs)")
	providerRev := flag.String("provider-rev", "", "build the provider from this git revision (a clean export, e.g. HEAD) instead of the working tree")
	providerSrc := flag.String("provider-src", "", "build the provider from this source tree instead of the module's (to measure a change)")
	countLog := flag.Bool("count-log", false, "count the provider's log output (passed through a pipe by the wrapper)")
	var env multiFlag
	flag.Var(&env, "tfenv", "KEY=VALUE added to the environment of terraform and the provider (repeatable), for experiments")
	notes := flag.String("notes", "", "file of notes (Markdown) to append to the results")
	phasesFlag := flag.String("phases", strings.Join(benchmark.Phases, ","), "phases to measure, a prefix of create,noop,change,destroy (create,noop for a shorter run at a large N)")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	root, err := moduleRoot()
	if err != nil {
		return err
	}
	var sizes []int
	for _, s := range strings.Split(*sizesFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			return fmt.Errorf("-n: bad size %q", s)
		}
		sizes = append(sizes, n)
	}
	phases, err := benchmark.ParsePhases(*phasesFlag)
	if err != nil {
		return fmt.Errorf("-phases: %w", err)
	}
	var lats []time.Duration
	for _, s := range strings.Split(*latencies, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil || d < 0 {
			return fmt.Errorf("-latency: bad duration %q", s)
		}
		lats = append(lats, d)
	}
	measuresKubectl := slices.Contains(strings.Split(strings.ReplaceAll(*toolsFlag, " ", ""), ","), benchmark.Kubectl)
	if *kubectl == "" && measuresKubectl {
		// kubectl of the server's version, built once: the one on PATH
		// may be of any version, or a dispatcher that picks one. Built
		// only when kubectl is measured: its first build takes minutes.
		var buildErr error
		if *kubectl, buildErr = tool(root, "kubectl"); buildErr != nil {
			if *kubectl, err = exec.LookPath("kubectl"); err != nil {
				return fmt.Errorf("no kubectl: %v, and none on PATH; set -kubectl or ADMISSION_KUBECTL", buildErr)
			}
			fmt.Fprintf(os.Stderr, "admission-bench: %v; using %s from PATH, whose version may not match the server's\n", buildErr, *kubectl)
		}
	}
	if *terraform == "" {
		if *terraform, err = tool(root, "terraform"); err != nil {
			return err
		}
	}
	apiserver, etcd := os.Getenv("ADMISSION_KUBE_APISERVER"), os.Getenv("ADMISSION_ETCD")
	if apiserver == "" {
		if apiserver, err = tool(root, "kube-apiserver"); err != nil {
			return err
		}
	}
	if etcd == "" {
		if etcd, err = tool(root, "etcd"); err != nil {
			return err
		}
	}
	_ = os.Setenv("ADMISSION_KUBE_APISERVER", apiserver)
	_ = os.Setenv("ADMISSION_ETCD", etcd)

	work, err := os.MkdirTemp("", "admission-bench.")
	if err != nil {
		return err
	}
	if *keep {
		fmt.Fprintf(os.Stderr, "work directory: %s\n", work)
	} else {
		defer func() { _ = os.RemoveAll(work) }()
	}
	wrapper, err := os.Executable()
	if err != nil {
		return err
	}
	source, srcDesc := root, "working tree"
	switch {
	case *providerSrc != "" && *providerRev != "":
		return fmt.Errorf("-provider-src and -provider-rev exclude each other")
	case *providerSrc != "":
		source, srcDesc = *providerSrc, "source tree "+*providerSrc
	case *providerRev != "":
		source = filepath.Join(work, "src")
		if err := os.MkdirAll(source, 0o755); err != nil {
			return err
		}
		export := exec.CommandContext(ctx, "bash", "-c", `git archive --format=tar "$1" | tar -x -C "$2"`, "export", *providerRev, source)
		export.Dir, export.Stderr = root, os.Stderr
		if err := export.Run(); err != nil {
			return fmt.Errorf("exporting %s: %w", *providerRev, err)
		}
		rev, err := exec.Command("git", "-C", root, "rev-parse", "--short", *providerRev).Output()
		if err != nil {
			return err
		}
		srcDesc = "git " + strings.TrimSpace(string(rev)) + " (clean export)"
	}
	provider := filepath.Join(work, "bin", benchmark.ProviderBinaryName)
	build := exec.CommandContext(ctx, "go", "build", "-ldflags", "-X main.version=bench", "-o", provider, ".")
	build.Dir, build.Stdout, build.Stderr = source, os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building the provider: %w", err)
	}
	if *pprofDir != "" {
		if *pprofDir, err = filepath.Abs(*pprofDir); err != nil {
			return err
		}
		if err := os.MkdirAll(*pprofDir, 0o755); err != nil {
			return err
		}
		// The profiled provider is served by the wrapper itself: to
		// profile the provider of another source, the wrapper must be
		// built from it too.
		if source != root {
			wrapper = filepath.Join(work, "bin", "admission-bench")
			build := exec.CommandContext(ctx, "go", "build", "-o", wrapper, "./internal/benchmark/cmd/admission-bench")
			build.Dir, build.Stdout, build.Stderr = source, os.Stderr, os.Stderr
			if err := build.Run(); err != nil {
				return fmt.Errorf("building the profiling wrapper from %s (it needs internal/benchmark): %w", srcDesc, err)
			}
		}
	}

	machine := benchmark.DescribeMachine(*terraform, *kubectl, apiserver, etcd)
	machine.Provider = srcDesc
	cfg := &benchmark.Config{
		Terraform: *terraform, Kubectl: *kubectl,
		Provider: provider, Wrapper: wrapper, PprofDir: *pprofDir,
		Parallelism: *parallelism, WorkDir: work, Log: os.Stderr,
		CountLog: *countLog, Env: env, Conditions: *conditions, Phases: phases,
	}
	var tools []string
	peer := benchmark.PeerFromEnv()
	for _, t := range strings.Split(*toolsFlag, ",") {
		t = strings.TrimSpace(t)
		switch t {
		case benchmark.Terraform, benchmark.Kubectl:
		case benchmark.PeerTool:
			if peer.Binary == "" {
				fmt.Fprintf(os.Stderr, "admission-bench: hashicorp/kubernetes not measured: %s\n", peer.Reason)
				continue
			}
			if *conditions != 0 {
				peer = benchmark.Peer{Reason: "it has no match_conditions, and this run has -conditions " + strconv.Itoa(*conditions)}
				fmt.Fprintf(os.Stderr, "admission-bench: hashicorp/kubernetes not measured: %s\n", peer.Reason)
				continue
			}
			cfg.Peer = peer.Binary
		default:
			return fmt.Errorf("-tools: unknown tool %q", t)
		}
		tools = append(tools, t)
	}
	machine.Peer = peer.About
	if peer.Binary == "" {
		machine.Peer = "not measured"
	}
	var pins []bool
	switch *pinFlag {
	case "on":
		pins = []bool{true}
	case "off":
		pins = []bool{false}
	case "both":
		pins = []bool{true, false}
	default:
		return fmt.Errorf("-pin: want on, off or both, not %q", *pinFlag)
	}
	if *roundsFlag < 1 {
		return fmt.Errorf("-rounds: want at least 1")
	}
	fmt.Fprintf(os.Stderr, "load average %s; terraform %s, kubectl %s, %s\n", machine.LoadStart, machine.Terraform, machine.Kubectl, machine.KubeAPIServer)

	var results []benchmark.Result
	var runErr error
sizes:
	// Round by round, so that a run stopped early has every setting of the
	// rounds it finished.
	for round := 1; round <= *roundsFlag; round++ {
		cfg.Round = round
		for _, lat := range lats {
			cfg.Latency = lat
			for _, n := range sizes {
				for _, pin := range pins {
					cfg.Pin = pin
					for _, t := range tools {
						res, err := cfg.Run(ctx, t, n)
						results = append(results, res...)
						if err != nil {
							runErr = err
							break sizes
						}
					}
				}
			}
		}
	}

	var goBench string
	if *gobench && runErr == nil {
		fmt.Fprintf(os.Stderr, "Go benchmarks (load average %s)\n", benchmark.LoadAvg())
		cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-bench", ".", "-benchmem", "-count", "3",
			"./internal/webhook", "./internal/validation", "./internal/benchmark", "./internal/impact")
		// The same source as the provider measured.
		cmd.Dir, cmd.Stderr = source, os.Stderr
		outb, err := cmd.Output()
		goBench = fmt.Sprintf("load average before: %s\n\n%s", benchmark.LoadAvg(), outb)
		_, _ = os.Stderr.Write(outb)
		if err != nil {
			runErr = fmt.Errorf("go test -bench: %w", err)
		}
	}
	machine.LoadEnd = benchmark.LoadAvg()

	var notesText string
	if *notes != "" {
		data, err := os.ReadFile(*notes)
		if err != nil {
			return err
		}
		notesText = string(data)
	}
	cmdline := "go run ./internal/benchmark/cmd/admission-bench " + strings.Join(os.Args[1:], " ")
	md := benchmark.Markdown(machine, strings.TrimSpace(cmdline), results, peer, goBench, notesText)
	fmt.Println(md)
	if *out != "" && len(results) > 0 {
		dir := *out
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(root, dir)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		base := filepath.Join(dir, "results-"+time.Now().Format("2006-01-02"))
		if err := os.WriteFile(base+".md", []byte(md), 0o644); err != nil {
			return err
		}
		raw, err := json.MarshalIndent(struct {
			Machine benchmark.Machine
			Results []benchmark.Result
		}{machine, results}, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(base+".json", append(raw, '\n'), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "wrote %s.md and .json\n", base)
	}
	return runErr
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("run from inside the module")
	}
	return filepath.Dir(mod), nil
}

// tool is tools/bin.sh NAME: the path of a tool, built on first use.
func tool(root, name string) (string, error) {
	cmd := exec.Command("bash", filepath.Join(root, "tools", "bin.sh"), name)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("tools/bin.sh %s: %w", name, err)
	}
	return strings.TrimSpace(string(out)), nil
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
