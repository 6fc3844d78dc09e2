// Package switches is what internal/celcompile's benchmarks and tests may change in it, none of
// which changes a result: the shortcuts of the compile and the parallel Precompile turned off,
// to measure them beside k8s.io/apiserver's compiler alone, and the cache of results emptied,
// to measure cold compiles as in a new provider process.
//
// It is a package apart so that celcompile exports no hook for tests: Go's rule for internal
// packages lets only celcompile and its subpackages import it; celcompile only reads it, and
// the setters are in internal/celcompile/celtest, which only tests import. The zero values are
// the provider's settings.
package switches

import "sync/atomic"

// NoShortcuts turns off the shortcuts of the compile (shapes, programs skipped), and with them
// the parallel Precompile; NoParallel only the parallel Precompile.
var NoShortcuts, NoParallel atomic.Bool

// CacheGeneration is raised to empty celcompile's cache of results: the cache forgets what it
// holds when it finds the generation changed.
var CacheGeneration atomic.Uint64
