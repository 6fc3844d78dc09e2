package celtest

import "github.com/seed-a73d233f/terraform-provider-admission/internal/celcompile/internal/switches"

// SetShortcuts turns the shortcuts of the CEL compile (shapes, programs skipped) and its
// parallel Precompile on or off, for the benchmarks that measure them beside
// k8s.io/apiserver's compiler alone; both are on unless a benchmark says otherwise. It changes
// no result. The switches live in internal/celcompile/internal/switches, which celcompile
// reads, so that celcompile itself exports no such hook.
func SetShortcuts(on, parallelPrecompile bool) {
	switches.NoShortcuts.Store(!on)
	switches.NoParallel.Store(!parallelPrecompile)
}

// ResetCache empties the cache of compile results of internal/celcompile, to measure cold
// compiles as in a new provider process, or to make a test compile what an earlier one cached.
func ResetCache() { switches.CacheGeneration.Add(1) }
