package functions_test

import (
	"testing"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
)

func TestMain(m *testing.M) { acctest.Main(m) }
