package benchmark

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/provider"
)

// Terraform starts the provider from the dev_overrides directory, where the
// harness puts itself under the provider's name. Started so, it runs the
// real provider binary as its child, passing stdio, environment and signals
// through, and when the child ends appends a line of its resource usage
// (wait4: peak RSS, CPU) to the file named by envRSSLog. The measured
// process is the release build of the provider; the wrapper only waits.
//
// With envPprofDir set instead, it serves the provider in its own process
// (the same code as main.go) and writes into that directory a CPU profile
// and a profile of all allocations when Terraform stops it, and a profile of
// the heap in use at its largest (heap-peak-PID.pprof): the provider binary
// has no profiling flags, and Terraform starts it itself.

// ProviderBinaryName is the file name Terraform runs from a dev_overrides
// directory.
const ProviderBinaryName = "terraform-provider-admission"

const (
	envProvider = "ADMISSION_BENCH_PROVIDER"
	envRSSLog   = "ADMISSION_BENCH_RSS_LOG"
	envPprofDir = "ADMISSION_BENCH_PPROF_DIR"
	// envCountLog makes the wrapper count what the provider writes to
	// stderr (its logs, which Terraform reads and parses) instead of
	// handing it the stderr of Terraform directly.
	envCountLog  = "ADMISSION_BENCH_COUNT_LOG"
	providerAddr = "registry.terraform.io/" + ProviderSource
)

// IsProviderWrapper reports whether the process was started by Terraform as
// the provider (or as hashicorp/kubernetes, which it runs and measures the
// same way).
func IsProviderWrapper() bool {
	switch filepath.Base(os.Args[0]) {
	case ProviderBinaryName:
		return os.Getenv(envProvider) != "" || os.Getenv(envPprofDir) != ""
	case PeerBinaryName:
		return os.Getenv(envProvider) != ""
	}
	return false
}

// RunProviderWrapper is the main function of the wrapper; it returns the
// exit status.
func RunProviderWrapper() int {
	if dir := os.Getenv(envPprofDir); dir != "" {
		return serveProfiled(dir)
	}
	start := time.Now()
	cmd := exec.Command(os.Getenv(envProvider), os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	var logBytes, logLines int64
	var logDone chan struct{}
	var logPipe *os.File // the provider's stderr, when its log is counted
	if os.Getenv(envCountLog) != "" {
		pr, pw, err := os.Pipe()
		if err != nil {
			fmt.Fprintf(os.Stderr, "admission-bench wrapper: %v\n", err)
			return 1
		}
		cmd.Stderr, logPipe = pw, pw
		logDone = make(chan struct{})
		go func() {
			defer close(logDone)
			buf := make([]byte, 64<<10)
			for {
				n, err := pr.Read(buf)
				if n > 0 {
					logBytes += int64(n)
					logLines += int64(bytes.Count(buf[:n], []byte{'\n'}))
					_, _ = os.Stderr.Write(buf[:n])
				}
				if err != nil {
					return
				}
			}
		}()
		defer func() { _ = pw.Close() }()
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "admission-bench wrapper: %v\n", err)
		return 1
	}
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	_ = cmd.Wait()
	if logDone != nil {
		_ = logPipe.Close()
		<-logDone
	}
	st := cmd.ProcessState
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		line := fmt.Sprintf("%d %d %d %d %d %d %d\n", cmd.Process.Pid, ru.Maxrss,
			time.Duration(ru.Utime.Nano()).Microseconds(), time.Duration(ru.Stime.Nano()).Microseconds(),
			time.Since(start).Milliseconds(), logBytes, logLines)
		if f, err := os.OpenFile(os.Getenv(envRSSLog), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
			_, _ = f.WriteString(line)
			_ = f.Close()
		}
	}
	if code := st.ExitCode(); code >= 0 {
		return code
	}
	return 1
}

func serveProfiled(dir string) int {
	pid := os.Getpid()
	// As main.go serves it: the SDK's own logs off when Terraform logs
	// nothing from providers (main.quietSDKLogs), and the garbage
	// collector's settings (main.limitMemory).
	if os.Getenv("TF_LOG") == "" && os.Getenv("TF_LOG_PROVIDER") == "" {
		for _, name := range []string{"TF_LOG_SDK", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_SDK_PROTO"} {
			if _, set := os.LookupEnv(name); !set {
				_ = os.Setenv(name, "OFF")
			}
		}
	}
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(400)
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(112 << 20)
	}
	cpu, err := os.Create(filepath.Join(dir, fmt.Sprintf("cpu-%d.pprof", pid)))
	if err != nil {
		fmt.Fprintf(os.Stderr, "admission-bench: %v\n", err)
		return 1
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		fmt.Fprintf(os.Stderr, "admission-bench: %v\n", err)
		return 1
	}
	write := func() {
		pprof.StopCPUProfile()
		_ = cpu.Close()
		runtime.GC()
		if f, err := os.Create(filepath.Join(dir, fmt.Sprintf("heap-%d.pprof", pid))); err == nil {
			_ = pprof.Lookup("allocs").WriteTo(f, 0)
			_ = f.Close()
		}
	}
	// The heap at its largest: a profile of what is in use then, written
	// each time the heap in use grows 10% past its last high (checked every
	// second). A heap profile shows what the last garbage collection found
	// live, so it lags the high by at most one cycle. The file is replaced
	// whole, so a provider killed while writing leaves the previous one.
	stopWatch := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		var peak uint64
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-stopWatch:
				return
			case <-t.C:
			}
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse <= peak+peak/10 {
				continue
			}
			peak = ms.HeapInuse
			name := filepath.Join(dir, fmt.Sprintf("heap-peak-%d.pprof", pid))
			if f, err := os.Create(name + ".tmp"); err == nil {
				err = pprof.Lookup("heap").WriteTo(f, 0)
				if cerr := f.Close(); err == nil && cerr == nil {
					_ = os.Rename(name+".tmp", name)
				}
			}
		}
	}()
	defer func() {
		close(stopWatch)
		<-watched
	}()
	// Terraform stops a provider with a gRPC Shutdown, after which Serve
	// returns, or with a signal.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	done := make(chan error, 1)
	go func() {
		// The server main.go serves (provider.NewServer: internal/protocol
		// answers most calls before the framework's walks), not the
		// framework's alone.
		done <- tf6server.Serve(providerAddr, provider.NewServer("bench-pprof"))
	}()
	select {
	case err = <-done:
	case <-ctx.Done():
	}
	write()
	if err != nil {
		fmt.Fprintf(os.Stderr, "admission-bench: %v\n", err)
		return 1
	}
	return 0
}
