package typecheck_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest/controlplane"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/builtinapi/snapshot"
)

// cluster is the local control plane of the acceptance tests (TF_ACC set), started as the
// snapshot's generator starts it: with every built-in group version served.
var cluster *controlplane.ControlPlane

func TestMain(m *testing.M) {
	if os.Getenv("TF_ACC") == "" {
		if os.Getenv("CI") != "" {
			fmt.Fprintln(os.Stderr, "typecheck: CI is set but TF_ACC is not: acceptance tests must run in CI (use make check)")
			os.Exit(1)
		}
		os.Exit(m.Run())
	}
	cp, err := controlplane.Start(context.Background(), controlplane.Options{ExtraAPIServerFlags: snapshot.APIServerFlags})
	if err != nil {
		fmt.Fprintf(os.Stderr, "typecheck: cannot start the local control plane: %v\n", err)
		os.Exit(1)
	}
	cluster = cp
	code := m.Run()
	if err := cp.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "typecheck: stopping the control plane: %v\n", err)
	}
	os.Exit(code)
}

// liveCluster is the running control plane; outside acceptance runs it skips the test.
func liveCluster(t testing.TB) *controlplane.ControlPlane {
	t.Helper()
	if cluster == nil {
		t.Skip("acceptance test: set TF_ACC=1 (make test does) to run it against a local kube-apiserver")
	}
	return cluster
}
