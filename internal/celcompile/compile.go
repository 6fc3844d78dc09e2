package celcompile

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/google/cel-go/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	apiservercel "k8s.io/apiserver/pkg/cel"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/celcompile/internal/switches"
)

// CompileMatchCondition returns what k8s.io/apiserver's compiler returns for a webhook's match
// condition, the trimmed expression expr in env, from the cache when it has it.
func CompileMatchCondition(env Env, expr string) *apiservercel.Error {
	key := matchConditionKey(env, expr)
	if c, ok := cache.get(key); ok {
		return c.err
	}
	err := compile(env, expr)
	cache.put(key, matchConditionResult(err))
	return err
}

// compile returns what k8s.io/apiserver's compiler returns for one trimmed expression. Two
// shortcuts answer "valid" for less work where that answer is certain: an expression of a shape
// already found valid (shape.go), and an expression that parses and checks with nothing in it
// that could make building its program fail (fast.go). Any other answer, and every error
// message, is the compiler's own.
func compile(env Env, expr string) (result *apiservercel.Error) {
	defer recoverCompilerPanic(&result)
	if switches.NoShortcuts.Load() { // only benchmarks turn them off (celtest.SetShortcuts)
		return fullCompile(env, expr)
	}
	if shape, placeholders, ok := shapeOf(expr); ok && validShape(env, shape, placeholders) {
		return nil
	}
	if quickValid(env, expr) {
		return nil
	}
	return fullCompile(env, expr)
}

// fullCompile runs k8s.io/apiserver's compiler on one trimmed expression, with the variables of
// a webhook match condition, in env. The compiler also requires the result type to be exactly
// bool.
func fullCompile(env Env, expr string) (result *apiservercel.Error) {
	defer recoverCompilerPanic(&result)
	accessor := &matchconditions.MatchCondition{Expression: expr}
	return Compiler(env).CompileCELExpression(accessor, MatchConditionVars, env.envType()).Error
}

// recoverCompilerPanic turns a panic of the compiler into an internal error. cel-go panics on a
// few expressions (a map literal with a bytes key: "hash of unhashable type"); the API server
// then resets the request and stores nothing, so the configuration is rejected there too, and
// the provider must not crash instead.
func recoverCompilerPanic(result **apiservercel.Error) {
	if r := recover(); r != nil {
		*result = &apiservercel.Error{
			Type:   apiservercel.ErrorTypeInternal,
			Detail: fmt.Sprintf("the CEL compiler panics on this expression (the API server resets the request): %v", r),
		}
	}
}

// matchConditionKey is the key of a webhook's match condition: the accessor and variables of
// matchconditions.MatchCondition.
func matchConditionKey(env Env, expr string) compileKey {
	return compileKey{env: env, kind: KindMatchCondition, decls: MatchConditionVars, expr: expr}
}

// matchConditionResult is the cached result of a match condition: its type is bool when it
// compiles.
func matchConditionResult(err *apiservercel.Error) compiled {
	if err != nil {
		return compiled{err: err}
	}
	return compiled{outputType: cel.BoolType}
}

// Pending is a match condition to compile ahead: its trimmed expression, in its environment.
type Pending struct {
	Env  Env
	Expr string
}

// Precompile compiles, in parallel over the available CPUs, every match condition of pending
// that is not cached yet, so that the in-order validation pass that follows finds them all in
// the cache. It changes no result, only the time taken.
func Precompile(pending []Pending) {
	var todo []compileKey
	seen := map[Pending]bool{}
	for _, p := range pending {
		if p.Expr == "" || seen[p] {
			continue
		}
		seen[p] = true
		if k := matchConditionKey(p.Env, p.Expr); !cache.has(k) {
			todo = append(todo, k)
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(todo))
	if switches.NoShortcuts.Load() || switches.NoParallel.Load() {
		workers = 0
	}
	if workers < 2 {
		return // the validation pass compiles it, no need for goroutines
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				k := int(next.Add(1)) - 1
				if k >= len(todo) {
					return
				}
				cache.put(todo[k], matchConditionResult(compile(todo[k].env, todo[k].expr)))
			}
		})
	}
	wg.Wait()
}

// Compiling one expression costs up to a few hundred microseconds, and Terraform validates the
// same configuration several times per run (validate, plan, apply), so results are kept in one
// cache (cache, policy.go) by environment and expression, and all else a result depends on
// (compileKey). compileCacheSize bounds it.
const compileCacheSize = 4096
