// Package adoption_test tests adopting admission objects that other tools
// made: kubectl (client-side and server-side apply, create), Helm 3, Argo CD,
// Flux and controllers that annotate objects later. Each test makes objects
// of the six kinds from real manifests (testdata) the way each tool does,
// with its field manager, operation and bookkeeping keys, and imports them.
package adoption_test

import (
	"testing"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
)

func TestMain(m *testing.M) { acctest.Main(m) }
