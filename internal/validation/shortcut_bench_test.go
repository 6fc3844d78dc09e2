package validation

import (
	"testing"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/celcompile/celtest"
)

// BenchmarkShortcuts measures the shortcuts of the CEL compile (internal/celcompile: shapes,
// programs skipped), with and without the parallel precompile, beside k8s.io/apiserver's compiler alone, on cold compiles of the configurations
// of BenchmarkValidateLargest and BenchmarkValidateUnshaped.
func BenchmarkShortcuts(b *testing.B) {
	unshaped := configWith(20, true)
	for i := range unshaped.Webhooks {
		unshaped.Webhooks[i].MatchConditions = celtest.UnshapedConditions(maxMatchConditions, i)
	}
	configs := []struct {
		name string
		o    *mwc
	}{{"distinct", configWith(20, true)}, {"shared", configWith(20, false)}, {"unshaped", unshaped}, {"one-webhook", configWith(1, true)}}
	for _, c := range configs {
		for _, mode := range []struct {
			name                string
			shortcuts, parallel bool
		}{{"plain", false, false}, {"shortcuts-sequential", true, false}, {"shortcuts", true, true}} {
			b.Run(c.name+"/"+mode.name, func(b *testing.B) {
				defer celtest.SetShortcuts(true, true)
				celtest.SetShortcuts(mode.shortcuts, mode.parallel)
				benchValidate(b, c.o, true)
			})
		}
	}
}
