package protocol_test

import (
	"testing"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
)

// TestMain starts the local control plane for the acceptance smoke run both ways
// (TestAccProtocolBothWays); the other tests use the stand-in API server.
func TestMain(m *testing.M) { acctest.Main(m) }
