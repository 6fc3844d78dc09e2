package controlplane

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// dirPrefix names the temporary directory of every control plane, so that the
// directories of earlier runs whose process died can be found and removed.
const dirPrefix = "admission-controlplane-"

// ownerFile, in a control plane's directory, records the PID and start time of
// the process that owns it.
const ownerFile = "owner"

// process is one child process of a control plane. It runs in its own process
// group, so that it and anything it starts can be stopped together, and it is
// killed by the kernel if the process that started it dies.
type process struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{}
	waitErr error
}

func startProcess(name, bin string, args []string, dir string, extraLog io.Writer) (*process, error) {
	logPath := filepath.Join(dir, name+".log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	var out io.Writer = logFile
	if extraLog != nil {
		out = io.MultiWriter(logFile, &prefixWriter{prefix: "[" + name + "] ", w: extraLog})
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdout = out
	cmd.Stderr = out
	cmd.Env = childEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	_ = os.WriteFile(filepath.Join(dir, name+".pid"), []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o600)
	go func() {
		p.waitErr = cmd.Wait()
		_ = logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// childEnv is this process's environment without the variables that would
// change how etcd or kube-apiserver behave.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "ETCD_") || strings.HasPrefix(kv, "KUBECONFIG=") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

func (p *process) pid() int { return p.cmd.Process.Pid }

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM to the process group, then SIGKILL after grace, and waits
// until the process has exited.
func (p *process) stop(grace time.Duration) {
	pgid := p.pid()
	if !p.exited() {
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(grace):
		}
	}
	// Also reaches anything the process started in its group.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
	}
}

// tail returns the last n lines of the process's log.
func (p *process) tail(n int) string {
	return tailFile(p.logPath, n)
}

func tailFile(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// prefixWriter writes each line to w with a prefix, whole lines at a time.
type prefixWriter struct {
	prefix string
	w      io.Writer
	mu     sync.Mutex
	buf    []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			break
		}
		line := append([]byte(p.prefix), p.buf[:i+1]...)
		p.buf = p.buf[i+1:]
		if _, err := p.w.Write(line); err != nil {
			// The log is a copy; never fail the process because of it.
			break
		}
	}
	return len(b), nil
}

// syncWriter serialises writes of several goroutines to one writer.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

// processStartTime returns the start time of a process in clock ticks since
// boot (field 22 of /proc/PID/stat), which tells a process from a later one
// that reuses its PID.
func processStartTime(pid int) (string, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", false
	}
	// The command name (field 2) is in parentheses and may contain spaces.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "", false
	}
	fields := strings.Fields(s[i+1:])
	// fields[0] is field 3 (state), so field 22 is fields[19].
	if len(fields) < 20 {
		return "", false
	}
	return fields[19], true
}

func writeOwner(dir string) error {
	pid := os.Getpid()
	start, _ := processStartTime(pid)
	return os.WriteFile(filepath.Join(dir, ownerFile), []byte(fmt.Sprintf("%d %s\n", pid, start)), 0o600)
}

// ownerAlive reports whether the process recorded in dir's owner file still runs.
func ownerAlive(dir string) (alive, known bool) {
	data, err := os.ReadFile(filepath.Join(dir, ownerFile))
	if err != nil {
		return false, false
	}
	fields := strings.Fields(string(data))
	if len(fields) == 0 {
		return false, false
	}
	pid, err := strconv.Atoi(fields[0])
	if err != nil || pid <= 0 {
		return false, false
	}
	start, ok := processStartTime(pid)
	if !ok {
		return false, true
	}
	if len(fields) > 1 && fields[1] != "" && fields[1] != start {
		return false, true // the PID now belongs to another process
	}
	return true, true
}

// removeStaleDirs removes the directories of control planes whose owner
// process is dead, after killing any of their processes that still run.
func removeStaleDirs(tmp string) {
	dirs, _ := filepath.Glob(filepath.Join(tmp, dirPrefix+"*"))
	for _, dir := range dirs {
		alive, known := ownerAlive(dir)
		if alive {
			continue
		}
		if !known {
			// No owner yet: it may be being created right now.
			fi, err := os.Stat(dir)
			if err != nil || time.Since(fi.ModTime()) < time.Minute {
				continue
			}
		}
		pidFiles, _ := filepath.Glob(filepath.Join(dir, "*.pid"))
		for _, f := range pidFiles {
			data, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil || pid <= 0 {
				continue
			}
			// Kill it only if it is still the process started for this dir.
			cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			if err == nil && bytes.Contains(cmdline, []byte(dir)) {
				_ = syscall.Kill(-pid, syscall.SIGKILL)
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		_ = os.RemoveAll(dir)
	}
}

// The control planes of this process that are not stopped yet, for StopAll and
// the signal handler.
var (
	runningMu sync.Mutex
	running   = map[*ControlPlane]struct{}{}
	signalsMu sync.Mutex
	signalsOn bool
)

func register(c *ControlPlane) {
	runningMu.Lock()
	defer runningMu.Unlock()
	running[c] = struct{}{}
}

func unregister(c *ControlPlane) {
	runningMu.Lock()
	defer runningMu.Unlock()
	delete(running, c)
}

// StopAll stops every control plane started by this process that is still
// running. It is meant for TestMain and for signal handlers.
func StopAll() error {
	runningMu.Lock()
	cps := make([]*ControlPlane, 0, len(running))
	for c := range running {
		cps = append(cps, c)
	}
	runningMu.Unlock()
	var errs []error
	for _, c := range cps {
		errs = append(errs, c.Stop())
	}
	return errors.Join(errs...)
}

// HandleSignals makes SIGINT and SIGTERM stop every running control plane of
// this process and then end the process, with exit status 128+signal. Start
// calls it unless Options.NoSignalHandler is set; calling it again does
// nothing.
func HandleSignals() {
	signalsMu.Lock()
	defer signalsMu.Unlock()
	if signalsOn {
		return
	}
	signalsOn = true
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		sig := <-ch
		fmt.Fprintf(os.Stderr, "controlplane: %v: stopping local control planes\n", sig)
		_ = StopAll()
		code := 1
		if s, ok := sig.(syscall.Signal); ok {
			code = 128 + int(s)
		}
		os.Exit(code)
	}()
}

// indent indents each line of a log excerpt for an error message.
func indent(s string) string {
	if s == "" {
		return "    (empty)"
	}
	var b strings.Builder
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		b.WriteString("    ")
		b.WriteString(sc.Text())
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}
