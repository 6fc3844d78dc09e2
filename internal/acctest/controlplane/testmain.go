package controlplane

import (
	"context"
	"fmt"
	"os"
	"testing"
)

// RunTests is the TestMain of a package whose acceptance tests need only a control plane, not
// the provider (internal/acctest imports the provider, so the packages below it cannot use
// it): without TF_ACC it runs the tests, which skip (Require), and refuses to when CI is set;
// with TF_ACC it starts one control plane with opts for the package's tests, sets *cluster,
// and stops it after them. It returns the exit code for os.Exit.
func RunTests(m *testing.M, pkg string, opts Options, cluster **ControlPlane) int {
	if os.Getenv("TF_ACC") == "" {
		if os.Getenv("CI") != "" {
			fmt.Fprintf(os.Stderr, "%s: CI is set but TF_ACC is not: acceptance tests must run in CI (use make test)\n", pkg)
			return 1
		}
		return m.Run()
	}
	cp, err := Start(context.Background(), opts)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: cannot start the local control plane: %v\n", pkg, err)
		return 1
	}
	*cluster = cp
	code := m.Run()
	if err := cp.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: stopping the control plane: %v\n", pkg, err)
	}
	return code
}

// Require is cluster, the control plane RunTests started; outside acceptance runs (nil) it
// skips the test, saying why.
func Require(t testing.TB, cluster *ControlPlane) *ControlPlane {
	t.Helper()
	if cluster == nil {
		t.Skip("acceptance test: set TF_ACC=1 (make test does) to run it against a local kube-apiserver")
	}
	return cluster
}
