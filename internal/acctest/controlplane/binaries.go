package controlplane

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// ErrBinariesMissing is returned by Start when Options.NoBuild is set and
// kube-apiserver or etcd has not been built yet.
var ErrBinariesMissing = errors.New("control plane binaries not built yet (run `make tools`, or set ADMISSION_KUBE_APISERVER and ADMISSION_ETCD)")

// binaries returns the paths of kube-apiserver and etcd: those of the options,
// else of the environment, else those built by tools/bin.sh.
func (o *Options) binaries(ctx context.Context, log io.Writer) (kubeAPIServer, etcd string, err error) {
	kubeAPIServer = firstNonEmpty(o.KubeAPIServer, os.Getenv("ADMISSION_KUBE_APISERVER"))
	etcd = firstNonEmpty(o.Etcd, os.Getenv("ADMISSION_ETCD"))
	if kubeAPIServer == "" {
		if kubeAPIServer, err = toolBinary(ctx, "kube-apiserver", !o.NoBuild, log); err != nil {
			return "", "", err
		}
	}
	if etcd == "" {
		if etcd, err = toolBinary(ctx, "etcd", !o.NoBuild, log); err != nil {
			return "", "", err
		}
	}
	for _, bin := range []string{kubeAPIServer, etcd} {
		fi, err := os.Stat(bin)
		if err != nil {
			return "", "", fmt.Errorf("control plane binary: %w", err)
		}
		if fi.IsDir() || fi.Mode()&0o111 == 0 {
			return "", "", fmt.Errorf("control plane binary %s is not an executable file", bin)
		}
	}
	return kubeAPIServer, etcd, nil
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// toolBinary runs tools/bin.sh NAME, which prints the path of the binary and
// builds it first if needed. Without build, a missing binary is
// ErrBinariesMissing.
func toolBinary(ctx context.Context, name string, build bool, log io.Writer) (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	args := []string{filepath.Join(root, "tools", "bin.sh")}
	if !build {
		args = append(args, "--cached")
	}
	args = append(args, name)
	cmd := exec.CommandContext(ctx, "bash", args...)
	cmd.Dir = root
	var stderr bytes.Buffer
	if log != nil {
		cmd.Stderr = io.MultiWriter(&stderr, log)
	} else {
		cmd.Stderr = io.MultiWriter(&stderr, os.Stderr)
	}
	out, err := cmd.Output()
	if err != nil {
		var exit *exec.ExitError
		if !build && errors.As(err, &exit) && exit.ExitCode() == 3 {
			return "", ErrBinariesMissing
		}
		return "", fmt.Errorf("tools/bin.sh %s: %w\n%s", name, err, strings.TrimSpace(stderr.String()))
	}
	path := strings.TrimSpace(string(out))
	if path == "" {
		return "", fmt.Errorf("tools/bin.sh %s printed no path", name)
	}
	return path, nil
}

// RepoRoot returns the root of this repository: found from the location of
// this source file, or else by walking up from the working directory to the
// directory that holds tools/bin.sh.
func RepoRoot() (string, error) {
	isRoot := func(dir string) bool {
		_, err1 := os.Stat(filepath.Join(dir, "tools", "bin.sh"))
		_, err2 := os.Stat(filepath.Join(dir, "go.mod"))
		return err1 == nil && err2 == nil
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		root := filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", ".."))
		if isRoot(root) {
			return root, nil
		}
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if isRoot(dir) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("cannot find the repository root (a directory with go.mod and tools/bin.sh); set ADMISSION_KUBE_APISERVER and ADMISSION_ETCD")
		}
		dir = parent
	}
}
