package differential

import (
	"testing"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
)

// TestMain starts the local control plane when TF_ACC is set (see acctest.Main).
func TestMain(m *testing.M) { acctest.Main(m) }
