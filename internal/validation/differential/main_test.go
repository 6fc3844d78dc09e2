package differential

import (
	"flag"
	"os"
	"testing"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
)

// TestMain starts the local control plane when TF_ACC is set (see
// acctest.Main). The version matrix (-matrix) needs none: each release's
// validation runs in its oracle process.
func TestMain(m *testing.M) {
	flag.Parse()
	if *runMatrix && os.Getenv("TF_ACC") == "" {
		os.Exit(m.Run())
	}
	acctest.Main(m)
}
