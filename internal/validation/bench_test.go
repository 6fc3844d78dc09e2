package validation

import (
	"fmt"
	"testing"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/celcompile"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/celcompile/celtest"
)

func configWith(webhooks int, distinct bool) *mwc {
	o := valid()
	h := o.Webhooks[0]
	o.Webhooks = nil
	for i := range webhooks {
		h.Name = fmt.Sprintf("hook-%d.example.com", i)
		salt := 0
		if distinct {
			salt = i
		}
		h.MatchConditions = celtest.RealisticConditions(maxMatchConditions, salt)
		o.Webhooks = append(o.Webhooks, *h.DeepCopy())
	}
	return o
}

func benchValidate(b *testing.B, o *mwc, cold bool) {
	celcompile.Compiler(newExpressionsEnv(Assumed)) // built once per process; not what is measured
	if errs := Validate(o); len(errs) != 0 {
		b.Fatalf("unexpected errors:\n%s", dump(errs))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if cold {
			b.StopTimer()
			celtest.ResetCache()
			b.StartTimer()
		}
		Validate(o)
	}
}

// BenchmarkCompile64MatchConditions validates one webhook with 64 distinct conditions. "cold"
// compiles all 64 every time (first plan of a new configuration); "cached" is a later call with
// the same expressions (validate, plan and apply of one run).
func BenchmarkCompile64MatchConditions(b *testing.B) {
	o := configWith(1, true)
	b.Run("cold", func(b *testing.B) { benchValidate(b, o, true) })
	b.Run("cached", func(b *testing.B) { benchValidate(b, o, false) })
}

// BenchmarkValidateLargest validates 20 webhooks × 64 conditions, the largest configuration a
// user is likely to write. "distinct" has 1280 different expressions, "shared" the same 64 in every
// webhook (the usual case: one set of exclusions repeated).
func BenchmarkValidateLargest(b *testing.B) {
	for _, distinct := range []bool{true, false} {
		o := configWith(20, distinct)
		name := map[bool]string{true: "distinct", false: "shared"}[distinct]
		b.Run(name+"/cold", func(b *testing.B) { benchValidate(b, o, true) })
		b.Run(name+"/cached", func(b *testing.B) { benchValidate(b, o, false) })
	}
}

// BenchmarkValidateUnshaped is BenchmarkValidateLargest/distinct with conditions that share no
// shape, so that each is parsed and checked once: the cost when every condition is different.
func BenchmarkValidateUnshaped(b *testing.B) {
	o := configWith(20, true)
	for i := range o.Webhooks {
		o.Webhooks[i].MatchConditions = celtest.UnshapedConditions(maxMatchConditions, i)
	}
	b.Run("cold", func(b *testing.B) { benchValidate(b, o, true) })
}
