package typecheck_test

import (
	"os"
	"testing"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest/controlplane"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/builtinapi/snapshot"
)

// cluster is the local control plane of the acceptance tests (TF_ACC set), started as the
// snapshot's generator starts it: with every built-in group version served.
var cluster *controlplane.ControlPlane

func TestMain(m *testing.M) {
	os.Exit(controlplane.RunTests(m, "typecheck", controlplane.Options{ExtraAPIServerFlags: snapshot.APIServerFlags}, &cluster))
}

// liveCluster is the running control plane; outside acceptance runs it skips the test.
func liveCluster(t testing.TB) *controlplane.ControlPlane {
	t.Helper()
	return controlplane.Require(t, cluster)
}
