package validation

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/cel-go/cel"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/version"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/syncmap"
)

// maxMatchConditions is the server's limit on matchConditions per webhook (validateMatchConditions).
const maxMatchConditions = 64

// celEnv is one CEL environment a server compiles expressions in: k8s.io/apiserver's base
// environment at a compatibility version (pkg/cel/environment MustBaseEnvSet), in its
// NewExpressions variant, or, when stored is set, its StoredExpressions one.
type celEnv struct {
	compat int  // the compatibility version, 1.compat
	stored bool // the StoredExpressions variant
}

// newExpressionsEnv is the environment a server of version v compiles new or changed
// expressions in: the NewExpressions environment of its minimum compatibility version, one
// release before its own (k8s.io/apiserver pkg/cel/environment DefaultCompatibilityVersion;
// k8s.io/component-base compatibility, MinCompatibilityVersion), so that a new expression
// still compiles on the release before, should the cluster be rolled back.
func newExpressionsEnv(v Version) celEnv { return celEnv{compat: v.minor - 1} }

// storedExpressionsEnv is the environment a server of version v compiles the expressions it
// has stored in, when an update keeps them: its StoredExpressions environment, every option its
// release knows and has not removed. For a release whose libraries are linked in (up to
// librariesMinor), that is exactly the NewExpressions environment at its own version: the
// options introduced by then and not removed by then. A later release knows at least the
// StoredExpressions environment of the libraries linked in, and maybe more.
func storedExpressionsEnv(v Version) celEnv {
	if v.minor <= librariesMinor {
		return celEnv{compat: v.minor}
	}
	return celEnv{compat: librariesMinor, stored: true}
}

func (e celEnv) envType() environment.Type {
	if e.stored {
		return environment.StoredExpressions
	}
	return environment.NewExpressions
}

// baseSet is the base environment set of e's compatibility version (cached by k8s.io/apiserver).
func (e celEnv) baseSet() *environment.EnvSet {
	return environment.MustBaseEnvSet(version.MajorMinor(1, uint(e.compat)))
}

// compilers are the stateless compilers (plugincel.NewCompiler over a base set), one per
// compatibility version, built on first use: building the CEL environments is far more
// expensive than compiling an expression with them.
var compilers syncmap.Map[int, plugincel.Compiler] // by compatibility version

// celCompiler returns the stateless compiler of e's compatibility version, as the server's
// getStrictStatelessCELCompiler.
func celCompiler(e celEnv) plugincel.Compiler {
	if c, ok := compilers.Load(e.compat); ok {
		return c
	}
	return compilers.LoadOrStore(e.compat, plugincel.NewCompiler(e.baseSet()))
}

// matchConditionVars are the variables a webhook's match conditions see at validation time
// (validateMatchConditionsExpression): object, oldObject, request, namespaceObject, authorizer; never params.
var matchConditionVars = plugincel.OptionalVariableDeclarations{HasParams: false, HasAuthorizer: true}

// validateMatchConditions checks webhooks[i].matchConditions (the server's validateMatchConditions),
// each expression compiled in the environment o gives it.
func validateMatchConditions(o *options, conditions []admissionregistrationv1.MatchCondition, fldPath *field.Path) field.ErrorList {
	compile := func(expr string, p *field.Path) *field.Error {
		return compileMatchCondition(o.matchConditionEnv(expr), expr, p)
	}
	return validateMatchConditionsWith(conditions, compile, fldPath)
}

// validateMatchConditionsWith checks match conditions (validateMatchConditions), compiling each
// trimmed expression with compile, which returns the field error of an expression that does not
// compile: webhooks and policies differ only there.
func validateMatchConditionsWith(conditions []admissionregistrationv1.MatchCondition, compile func(expr string, fldPath *field.Path) *field.Error, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(conditions) > maxMatchConditions {
		errs = append(errs, field.TooMany(fldPath, len(conditions), maxMatchConditions))
	}
	seen := make(map[string]struct{}, len(conditions))
	for j, mc := range conditions {
		p := fldPath.Index(j)
		errs = append(errs, validateMatchCondition(mc, compile, p)...)
		if mc.Name != "" {
			if _, dup := seen[mc.Name]; dup {
				errs = append(errs, field.Duplicate(p.Child("name"), mc.Name))
			} else {
				seen[mc.Name] = struct{}{}
			}
		}
	}
	return errs
}

// validateMatchCondition checks one match condition: its trimmed expression compiles to a bool,
// and its name is a qualified name (validateMatchCondition).
func validateMatchCondition(mc admissionregistrationv1.MatchCondition, compile func(string, *field.Path) *field.Error, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	expr := strings.TrimSpace(mc.Expression)
	if expr == "" {
		errs = append(errs, field.Required(fldPath.Child("expression"), ""))
	} else if err := compile(expr, fldPath.Child("expression")); err != nil {
		errs = append(errs, err)
	}
	if mc.Name == "" {
		errs = append(errs, field.Required(fldPath.Child("name"), ""))
	} else {
		errs = append(errs, qualifiedName(mc.Name, fldPath.Child("name"))...)
	}
	return errs
}

// compileMatchCondition compiles expr in env and turns a failure into the field error the
// server would return (validateMatchConditionsExpression, convertCELErrorToValidationError).
func compileMatchCondition(env celEnv, expr string, fldPath *field.Path) *field.Error {
	celErr := compileCached(env, expr)
	if celErr == nil {
		return nil
	}
	switch celErr.Type {
	case apiservercel.ErrorTypeRequired:
		return field.Required(fldPath, celErr.Detail)
	case apiservercel.ErrorTypeInvalid:
		return field.Invalid(fldPath, expr, celErr.Detail)
	default:
		return field.InternalError(fldPath, celErr)
	}
}

// compile returns what k8s.io/apiserver's compiler returns for one trimmed expression. Two
// shortcuts answer "valid" for less work where that answer is certain: an expression of a shape
// already found valid (celshape.go), and an expression that parses and checks with nothing in it
// that could make building its program fail (celfast.go). Any other answer, and every error
// message, is the compiler's own.
func compile(env celEnv, expr string) (result *apiservercel.Error) {
	defer recoverCompilerPanic(&result)
	if !shortcuts {
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

// shortcuts turns the shortcuts of compile and precompile off when false, for the benchmarks
// that measure them beside the plain compiler.
var shortcuts = true

// parallel turns the parallel precompile off when false, for the same benchmarks.
var parallel = true

// fullCompile runs k8s.io/apiserver's compiler on one trimmed expression, with the variables of
// a webhook match condition, in env. The compiler also requires the result type to be exactly
// bool.
func fullCompile(env celEnv, expr string) (result *apiservercel.Error) {
	defer recoverCompilerPanic(&result)
	accessor := &matchconditions.MatchCondition{Expression: expr}
	return celCompiler(env).CompileCELExpression(accessor, matchConditionVars, env.envType()).Error
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

// Compiling one expression costs up to a few hundred microseconds, and Terraform validates the
// same configuration several times per run (validate, plan, apply), so results are kept in one
// cache (celCache, policy_cel.go) by environment and expression, and all else a result depends
// on (compileKey). compileCacheSize bounds it.
const compileCacheSize = 4096

// matchConditionKey is the key of a webhook's match condition: the accessor and variables of
// matchconditions.MatchCondition.
func matchConditionKey(env celEnv, expr string) compileKey {
	return compileKey{env: env, kind: exprMatchCondition, decls: matchConditionVars, expr: expr}
}

// resetCompileCache empties the cache; benchmarks use it to measure cold compiles, as in a new
// provider process.
func resetCompileCache() { celCache.reset() }

func compileCached(env celEnv, expr string) *apiservercel.Error {
	key := matchConditionKey(env, expr)
	if c, ok := celCache.get(key); ok {
		return c.err
	}
	err := compile(env, expr)
	celCache.put(key, matchConditionResult(err))
	return err
}

// matchConditionResult is the cached result of a match condition: its type is bool when it
// compiles.
func matchConditionResult(err *apiservercel.Error) compiled {
	if err != nil {
		return compiled{err: err}
	}
	return compiled{outputType: cel.BoolType}
}

// precompile compiles, in parallel over the available CPUs, every distinct match-condition
// expression of obj that is not cached yet, in the environment o gives it, so that the
// in-order validation pass that follows finds them all in the cache. It changes no result,
// only the time taken.
func precompile(o *options, obj *admissionregistrationv1.MutatingWebhookConfiguration) {
	type envExpr struct {
		env  celEnv
		expr string
	}
	var todo []compileKey
	seen := map[envExpr]bool{}
	for i := range obj.Webhooks {
		for _, mc := range obj.Webhooks[i].MatchConditions {
			expr := strings.TrimSpace(mc.Expression)
			env := o.matchConditionEnv(expr)
			if expr == "" || seen[envExpr{env, expr}] {
				continue
			}
			seen[envExpr{env, expr}] = true
			if k := matchConditionKey(env, expr); !celCache.has(k) {
				todo = append(todo, k)
			}
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(todo))
	if !shortcuts || !parallel {
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
				celCache.put(todo[k], matchConditionResult(compile(todo[k].env, todo[k].expr)))
			}
		})
	}
	wg.Wait()
}
