package benchmark

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest/controlplane"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest/faultproxy"
)

// Tools compared.
const (
	Terraform = "terraform"
	Kubectl   = "kubectl"
	// PeerTool is terraform with hashicorp/kubernetes (Config.Peer).
	PeerTool = "kubernetes"
)

// ToolName is how the report names a tool.
func ToolName(tool string) string {
	switch tool {
	case Terraform:
		return "terraform + admission"
	case PeerTool:
		return "terraform + hashicorp/kubernetes"
	}
	return tool
}

// usesTerraform reports whether the tool is terraform with a provider.
func usesTerraform(tool string) bool { return tool == Terraform || tool == PeerTool }

// Phases, in the order they run.
const (
	PhaseCreate = "create"  // from empty: terraform apply / kubectl apply --server-side
	PhaseNoop   = "noop"    // nothing changed: terraform plan / kubectl diff --server-side
	PhaseChange = "change"  // one field of every object: terraform apply / kubectl apply --server-side
	PhaseDelete = "destroy" // terraform destroy / kubectl delete
)

// Phases lists the phases in order.
var Phases = []string{PhaseCreate, PhaseNoop, PhaseChange, PhaseDelete}

// Config is what a run needs.
type Config struct {
	Terraform string // terraform CLI
	Kubectl   string // kubectl CLI
	// Provider is the provider binary that Terraform runs (through the
	// wrapper, Wrapper, which records its resource usage); Peer is
	// hashicorp/kubernetes' (tool PeerTool), run through the same wrapper.
	Provider, Wrapper, Peer string
	// Pin runs the API server and etcd (and the latency proxy, which is
	// this process) on CPU 0 and the tool (terraform with its provider,
	// or kubectl) on CPU 1, with taskset: the two sides then do not take
	// each other's CPU, and the machine's other load is what is left to
	// share. Round numbers the repetition, for the report.
	Pin   bool
	Round int
	// PprofDir, when set, makes the wrapper serve the provider in-process
	// with CPU and heap profiles written there (timings are then not those
	// of the release binary).
	PprofDir string
	// CountLog makes the wrapper count the provider's log output.
	CountLog bool
	// Env is added to the environment of terraform (and so of the
	// provider), as KEY=VALUE.
	Env []string
	// Parallelism is terraform's -parallelism; 0 leaves its default (10).
	Parallelism int
	// Phases, when set, are the phases to run, a prefix of Phases (each
	// phase starts from where the one before it left the objects); nil
	// runs them all.
	Phases []string
	// Conditions is the number of match conditions per webhook in the
	// objects (hashicorp/kubernetes has no match_conditions: 0 compares
	// with it).
	Conditions int
	// Latency, when set, puts a proxy in front of the API server that
	// delays every request by this long (the fault proxy of the acceptance
	// tests), as a cluster across a network would: both tools reach the
	// server through it.
	Latency time.Duration
	// WorkDir holds each run's directory (configuration, logs, audit log).
	WorkDir string
	// Log receives progress lines.
	Log io.Writer
}

// Result is one phase of one tool at one size.
type Result struct {
	N     int
	Tool  string
	Phase string
	// Latency added to every request (0: loopback), and match conditions
	// per webhook of the objects.
	Latency    time.Duration
	Conditions int
	// Pinned: the control plane on CPU 0, the tool on CPU 1 (Config.Pin);
	// Round: which repetition.
	Pinned bool
	Round  int
	Cmd    string
	Wall   time.Duration
	Exit   int
	// OK is false when the phase did not do what it should (Check says why).
	OK    bool
	Check string
	// Requests of the tool (the provider for terraform) at the API server.
	Requests Requests
	// Peak RSS (KiB) and CPU of the provider processes started in the
	// phase (terraform only), and their number.
	ProviderPeakRSS int64
	ProviderCPU     time.Duration
	ProviderProcs   int
	// Log output of the provider processes (with Config.CountLog).
	ProviderLogBytes, ProviderLogLines int64
	// Peak RSS (KiB) and CPU of the CLI process, as wait4 reports them:
	// CPU includes the processes it waited for (terraform: the providers),
	// peak RSS is the largest of them.
	CLIPeakRSS int64
	CLICPU     time.Duration
	// Load average (1 min) when the phase started and ended.
	LoadStart, LoadEnd float64
}

// Ratio is this phase's wall time over base's.
func (r Result) Ratio(base Result) float64 {
	if base.Wall == 0 {
		return 0
	}
	return float64(r.Wall) / float64(base.Wall)
}

func (c *Config) logf(format string, args ...any) {
	if c.Log != nil {
		_, _ = fmt.Fprintf(c.Log, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
	}
}

// Run measures the four phases of tool on n objects, on a fresh control
// plane.
func (c *Config) Run(ctx context.Context, tool string, n int) ([]Result, error) {
	dir := filepath.Join(c.WorkDir, fmt.Sprintf("%s-%d-%s-pin%t-round%d", tool, n, c.Latency, c.Pin, c.Round))
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	policy, auditPath := filepath.Join(dir, "audit-policy.yaml"), filepath.Join(dir, "audit.log")
	if err := WriteAuditPolicy(policy); err != nil {
		return nil, err
	}
	c.logf("%s N=%d: starting a control plane", tool, n)
	cp, err := controlplane.Start(ctx, controlplane.Options{ExtraAPIServerFlags: AuditFlags(policy, auditPath), NoBuild: true})
	if err != nil {
		return nil, err
	}
	defer func() { _ = cp.Stop() }()
	if c.Pin {
		restore, err := pinControlPlane(cp)
		if err != nil {
			return nil, err
		}
		defer restore()
	}
	kubeconfig := cp.KubeconfigPath
	if c.Latency > 0 {
		p, path, err := latencyProxy(cp, c.Latency, dir)
		if err != nil {
			return nil, err
		}
		defer func() { _ = p.Close() }()
		kubeconfig = path
		c.logf("%s N=%d: every request through a proxy that adds %s", tool, n, c.Latency)
	}
	cfg := cp.RESTConfig()
	cfg.UserAgent = "admission-bench"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	audit, err := NewAuditLog(auditPath)
	if err != nil {
		return nil, err
	}
	r := &run{Config: c, tool: tool, n: n, dir: dir, cp: cp, cs: cs, audit: audit, kubeconfig: kubeconfig}
	if err := r.prepare(); err != nil {
		return nil, err
	}
	// Everything before the first phase (start-up, preparation) is not
	// counted.
	if _, err := r.mark(ctx); err != nil {
		return nil, err
	}
	var results []Result
	for _, phase := range c.phases() {
		res, err := r.phase(ctx, phase)
		if err != nil {
			return results, err
		}
		c.logf("%s N=%d +%s pinned=%t round %d %-7s %8.2fs  exit %d  %s  provider RSS %d MiB CPU %.1fs log %d lines %d KiB  CLI CPU %.1fs  load %.1f  %s",
			tool, n, c.Latency, c.Pin, c.Round, phase, res.Wall.Seconds(), res.Exit, res.Requests.PerObject(n), res.ProviderPeakRSS>>10,
			res.ProviderCPU.Seconds(), res.ProviderLogLines, res.ProviderLogBytes>>10, (res.CLICPU - res.ProviderCPU).Seconds(), res.LoadStart, res.Check)
		results = append(results, res)
		if !res.OK {
			return results, fmt.Errorf("%s N=%d %s: %s (see %s)", tool, n, phase, res.Check, dir)
		}
	}
	return results, nil
}

// phases are the phases Run measures, in order.
func (c *Config) phases() []string {
	if c.Phases == nil {
		return Phases
	}
	return c.Phases
}

// ParsePhases reads a comma-separated list of phases, which must be a
// prefix of Phases ("create,noop" measures the apply from empty and the
// no-change plan, and leaves the change and the destroy out).
func ParsePhases(s string) ([]string, error) {
	var out []string
	for i, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if i >= len(Phases) || p != Phases[i] {
			return nil, fmt.Errorf("phases %q: want a prefix of %s (each phase starts where the one before left the objects)", s, strings.Join(Phases, ","))
		}
		out = append(out, p)
	}
	return out, nil
}

type run struct {
	*Config
	tool    string
	n       int
	dir     string
	cp      *controlplane.ControlPlane
	cs      kubernetes.Interface
	audit   *AuditLog
	markers int
	rssLog  string
	// kubeconfig is what the tools reach the API server with (through
	// the latency proxy, if any).
	kubeconfig string
}

func (r *run) prepare() error {
	before, after := ObjectsWith(r.n, r.Conditions, false), ObjectsWith(r.n, r.Conditions, true)
	switch r.tool {
	case Kubectl:
		for name, objs := range map[string][]*admissionMWC{"objects.yaml": before, "objects-changed.yaml": after} {
			data, err := YAML(objs)
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(r.dir, name), data, 0o600); err != nil {
				return err
			}
		}
	case Terraform, PeerTool:
		plugins := filepath.Join(r.dir, "plugins")
		if err := os.MkdirAll(plugins, 0o755); err != nil {
			return err
		}
		binName, source, hcl, hclChanged := ProviderBinaryName, ProviderSource, HCL(before), HCL(after)
		if r.tool == PeerTool {
			if r.Peer == "" {
				return fmt.Errorf("no hashicorp/kubernetes binary (ADMISSION_BENCH_PEER)")
			}
			var err error
			if hcl, err = PeerHCL(before); err != nil {
				return err
			}
			if hclChanged, err = PeerHCL(after); err != nil {
				return err
			}
			binName, source = PeerBinaryName, peerSource
		}
		if err := os.Symlink(r.Wrapper, filepath.Join(plugins, binName)); err != nil {
			return err
		}
		// The address of a source without a host is the registry's of the
		// CLI: OpenTofu's differs from Terraform's.
		rc := fmt.Sprintf(`provider_installation {
  dev_overrides {
    %q = %q
    %q = %q
  }
  direct {}
}
`, "registry.terraform.io/"+source, plugins, "registry.opentofu.org/"+source, plugins)
		if err := os.WriteFile(filepath.Join(r.dir, "terraformrc"), []byte(rc), 0o600); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(r.dir, "tf"), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(r.dir, "tf", "main.tf"), hcl, 0o600); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(r.dir, "main.tf.changed"), hclChanged, 0o600); err != nil {
			return err
		}
		r.rssLog = filepath.Join(r.dir, "provider-rusage.log")
	default:
		return fmt.Errorf("unknown tool %q", r.tool)
	}
	return nil
}

// mark makes a request that the audit log shows after everything before it,
// and returns the requests counted since the last mark.
func (r *run) mark(ctx context.Context) (map[string]Requests, error) {
	r.markers++
	name := fmt.Sprintf("zz-bench-marker-%d", r.markers)
	if _, err := r.cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("marker request: %v", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		counts, found, err := r.audit.ReadUntil(name, agentOf)
		if err != nil || found {
			return counts, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("marker %s not in the audit log after 30s", name)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// agentOf tells the providers and kubectl apart; terraform itself makes no
// request to the API server. hashicorp/kubernetes sends "HashiCorp/1.0
// Terraform/VERSION" (kubernetes.(*kubeClientsets) in its provider.go).
func agentOf(ua string) string {
	switch {
	case strings.HasPrefix(ua, "terraform-provider-admission"):
		return Terraform
	case strings.HasPrefix(ua, "kubectl"):
		return Kubectl
	case strings.HasPrefix(ua, "HashiCorp/"):
		return PeerTool
	}
	return ""
}

func (r *run) command(phase string) []string {
	argv := r.toolCommand(phase)
	if r.Pin {
		argv = append([]string{"taskset", "-c", strconv.Itoa(toolCPU)}, argv...)
	}
	return argv
}

func (r *run) toolCommand(phase string) []string {
	kc := []string{"--kubeconfig=" + r.kubeconfig, "--cache-dir=" + filepath.Join(r.dir, "kubectl-cache")}
	switch r.tool {
	case Kubectl:
		yaml := filepath.Join(r.dir, "objects.yaml")
		changed := filepath.Join(r.dir, "objects-changed.yaml")
		switch phase {
		case PhaseCreate:
			return append([]string{r.Kubectl, "apply", "--server-side", "-f", yaml}, kc...)
		case PhaseNoop:
			return append([]string{r.Kubectl, "diff", "--server-side", "-f", yaml}, kc...)
		case PhaseChange:
			return append([]string{r.Kubectl, "apply", "--server-side", "-f", changed}, kc...)
		case PhaseDelete:
			return append([]string{r.Kubectl, "delete", "-f", changed}, kc...)
		}
	case Terraform, PeerTool:
		common := []string{"-input=false", "-no-color", "-compact-warnings"}
		if r.Parallelism > 0 {
			common = append(common, "-parallelism="+strconv.Itoa(r.Parallelism))
		}
		switch phase {
		case PhaseCreate, PhaseChange:
			return append([]string{r.Terraform, "apply", "-auto-approve"}, common...)
		case PhaseNoop:
			return append([]string{r.Terraform, "plan", "-detailed-exitcode"}, common...)
		case PhaseDelete:
			return append([]string{r.Terraform, "destroy", "-auto-approve"}, common...)
		}
	}
	panic("no command for " + r.tool + " " + phase)
}

func (r *run) env(phase string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "KUBE") || strings.HasPrefix(k, "TF_") || strings.HasPrefix(k, "ADMISSION_BENCH") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "KUBECONFIG="+r.kubeconfig, "CHECKPOINT_DISABLE=1")
	if usesTerraform(r.tool) {
		env = append(env,
			"KUBE_CONFIG_PATH="+r.kubeconfig,
			"TF_CLI_CONFIG_FILE="+filepath.Join(r.dir, "terraformrc"),
			"TF_IN_AUTOMATION=1",
			envRSSLog+"="+r.rssLog,
			// The benchmark's webhooks call services that no server backs: the proof at
			// apply (prove_webhooks) would wait for each, and the peer makes no such proof.
			"ADMISSION_PROVE_WEBHOOKS=false",
		)
		if r.CountLog {
			env = append(env, envCountLog+"=1")
		}
		env = append(env, r.Env...)
		switch {
		case r.tool == PeerTool:
			env = append(env, envProvider+"="+r.Peer)
		case r.PprofDir != "":
			// One directory per phase, so that each phase's profiles can be
			// read apart.
			dir := filepath.Join(r.PprofDir, fmt.Sprintf("%d-%s-pin%t-round%d", r.n, phase, r.Pin, r.Round))
			_ = os.MkdirAll(dir, 0o755)
			env = append(env, envPprofDir+"="+dir)
		default:
			env = append(env, envProvider+"="+r.Provider)
		}
	}
	return env
}

func (r *run) phase(ctx context.Context, phase string) (Result, error) {
	res := Result{N: r.n, Tool: r.tool, Phase: phase, Latency: r.Latency, Conditions: r.Conditions, Pinned: r.Pin, Round: r.Round}
	if usesTerraform(r.tool) && phase == PhaseChange {
		data, err := os.ReadFile(filepath.Join(r.dir, "main.tf.changed"))
		if err != nil {
			return res, err
		}
		if err := os.WriteFile(filepath.Join(r.dir, "tf", "main.tf"), data, 0o600); err != nil {
			return res, err
		}
	}
	argv := r.command(phase)
	shown := r.toolCommand(phase)
	res.Cmd = strings.Join(append([]string{filepath.Base(shown[0])}, shown[1:]...), " ")
	if r.Pin {
		res.Cmd = fmt.Sprintf("taskset -c %d %s", toolCPU, res.Cmd)
	}
	logFile, err := os.Create(filepath.Join(r.dir, phase+".log"))
	if err != nil {
		return res, err
	}
	defer func() { _ = logFile.Close() }()
	rssBefore := rusageLines(r.rssLog)

	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = filepath.Join(r.dir, "tf")
	if r.tool == Kubectl {
		cmd.Dir = r.dir
	}
	cmd.Env = r.env(phase)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	res.LoadStart = load1()
	start := time.Now()
	err = cmd.Run()
	res.Wall = time.Since(start)
	res.LoadEnd = load1()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return res, err
	}
	res.Exit = cmd.ProcessState.ExitCode()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		res.CLIPeakRSS = ru.Maxrss
		res.CLICPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	// The wrapper of the last provider process may still be writing.
	if usesTerraform(r.tool) {
		time.Sleep(200 * time.Millisecond)
	}
	for _, l := range rusageLines(r.rssLog)[len(rssBefore):] {
		res.ProviderProcs++
		res.ProviderPeakRSS = max(res.ProviderPeakRSS, l.maxRSS)
		res.ProviderCPU += l.cpu
		res.ProviderLogBytes += l.logBytes
		res.ProviderLogLines += l.logLines
	}

	counts, err := r.mark(ctx)
	if err != nil {
		return res, err
	}
	res.Requests = counts[r.tool]
	if res.Requests == nil {
		res.Requests = Requests{}
	}
	res.OK, res.Check = r.check(ctx, phase, res.Exit)
	return res, nil
}

// check verifies that the phase did its work, reading the objects back.
func (r *run) check(ctx context.Context, phase string, exit int) (bool, string) {
	wantExit := 0
	if exit != wantExit {
		return false, fmt.Sprintf("exit status %d, want %d", exit, wantExit)
	}
	list, err := r.cs.AdmissionregistrationV1().MutatingWebhookConfigurations().List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/managed-by=bench"})
	if err != nil {
		return false, err.Error()
	}
	want, timeout := r.n, int32(timeoutBefore)
	switch phase {
	case PhaseChange:
		timeout = timeoutAfter
	case PhaseDelete:
		want = 0
	}
	if len(list.Items) != want {
		return false, fmt.Sprintf("%d objects in the cluster, want %d", len(list.Items), want)
	}
	for _, o := range list.Items {
		if len(o.Webhooks) != WebhooksPerObject || o.Webhooks[0].TimeoutSeconds == nil || *o.Webhooks[0].TimeoutSeconds != timeout {
			return false, fmt.Sprintf("%s: webhooks not as applied", o.Name)
		}
	}
	return true, fmt.Sprintf("ok: %d objects", want)
}

type rusageLine struct {
	maxRSS             int64
	cpu                time.Duration
	logBytes, logLines int64
}

func rusageLines(path string) []rusageLine {
	if path == "" {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer func() { _ = f.Close() }()
	var out []rusageLine
	s := bufio.NewScanner(f)
	for s.Scan() {
		var pid, rss, ut, st, wall, lb, ll int64
		if _, err := fmt.Sscan(s.Text(), &pid, &rss, &ut, &st, &wall, &lb, &ll); err == nil {
			out = append(out, rusageLine{maxRSS: rss, cpu: time.Duration(ut+st) * time.Microsecond, logBytes: lb, logLines: ll})
		}
	}
	return out
}

// load1 is the 1-minute load average.
func load1() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return -1
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// LoadAvg is /proc/loadavg's three load averages.
func LoadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// latencyProxy starts the fault proxy of the acceptance tests in front of
// the control plane, delaying every request by latency, and writes a
// kubeconfig that reaches the server through it (admin token, the proxy's
// CA).
func latencyProxy(cp *controlplane.ControlPlane, latency time.Duration, dir string) (*faultproxy.Proxy, string, error) {
	p, err := faultproxy.New(faultproxy.Options{
		Upstream:      cp.Host,
		UpstreamCAPEM: cp.CAPEM,
		ClientCertPEM: cp.AdminCertPEM,
		ClientKeyPEM:  cp.AdminKeyPEM,
		MaxLifetime:   3 * time.Hour,
	})
	if err != nil {
		return nil, "", err
	}
	p.Inject(faultproxy.Fault{Action: faultproxy.Delay, Delay: latency})
	kc := clientcmdapi.NewConfig()
	kc.Clusters["proxy"] = &clientcmdapi.Cluster{Server: p.URL, CertificateAuthorityData: p.CAPEM}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: cp.AdminToken}
	kc.Contexts["proxy"] = &clientcmdapi.Context{Cluster: "proxy", AuthInfo: "admin"}
	kc.CurrentContext = "proxy"
	path := filepath.Join(dir, "kubeconfig-latency")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		_ = p.Close()
		return nil, "", err
	}
	return p, path, nil
}

// The CPUs of a pinned run: the control plane (and this process, which
// holds the latency proxy) on one, the tool on the other.
const (
	controlPlaneCPU = 0
	toolCPU         = 1
)

// pinControlPlane pins etcd, kube-apiserver and this process (every thread,
// taskset -a) to controlPlaneCPU; restore gives this process its CPUs back.
// The control plane writes the PIDs of its processes into its directory.
func pinControlPlane(cp *controlplane.ControlPlane) (restore func(), err error) {
	if runtime.NumCPU() < 2 {
		return nil, fmt.Errorf("pinning needs 2 CPUs, this machine has %d", runtime.NumCPU())
	}
	self := strconv.Itoa(os.Getpid())
	out, err := exec.Command("taskset", "-c", "-p", self).Output()
	if err != nil {
		return nil, fmt.Errorf("taskset (util-linux) -p %s: %w", self, err)
	}
	_, mask, ok := strings.Cut(strings.TrimSpace(string(out)), ": ")
	if !ok {
		return nil, fmt.Errorf("taskset -c -p %s: unexpected output %q", self, out)
	}
	pids := []string{self}
	for _, name := range []string{"etcd", "kube-apiserver"} {
		data, err := os.ReadFile(filepath.Join(cp.Dir, name+".pid"))
		if err != nil {
			return nil, err
		}
		pids = append(pids, strings.TrimSpace(string(data)))
	}
	for _, pid := range pids {
		if out, err := exec.Command("taskset", "-a", "-c", "-p", strconv.Itoa(controlPlaneCPU), pid).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("taskset -a -c -p %d %s: %v: %s", controlPlaneCPU, pid, err, out)
		}
	}
	return func() { _ = exec.Command("taskset", "-a", "-c", "-p", mask, self).Run() }, nil
}
