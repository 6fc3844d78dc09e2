package validation

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/version"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

// CELCompatibilityVersion is the CEL environment version that new or changed matchCondition
// expressions are checked against (validateMatchConditionsExpression; k8s.io/apiserver
// pkg/cel/environment MustBaseEnvSet, DefaultCompatibilityVersion). A 1.37 server uses its
// minimum compatibility version, 1.36, for the NewExpressions environment. Set it before the
// first call to Validate; the compiler is built once, on first use, from the value it has then.
var CELCompatibilityVersion = version.MajorMinor(1, 36)

// maxMatchConditions is the server's limit on matchConditions per webhook (validateMatchConditions).
const maxMatchConditions = 64

var (
	compilerOnce sync.Once
	compiler     plugincel.Compiler
)

// celCompiler returns the matchConditions compiler, built once: building the CEL
// environments is far more expensive than compiling an expression with them.
func celCompiler() plugincel.Compiler {
	compilerOnce.Do(func() {
		compiler = plugincel.NewCompiler(environment.MustBaseEnvSet(CELCompatibilityVersion))
	})
	return compiler
}

// matchConditionVars are the variables a webhook's match conditions see at validation time
// (validateMatchConditionsExpression): object, oldObject, request, namespaceObject, authorizer; never params.
var matchConditionVars = plugincel.OptionalVariableDeclarations{HasParams: false, HasAuthorizer: true}

// validateMatchConditions checks webhooks[i].matchConditions (the server's validateMatchConditions).
func validateMatchConditions(conditions []admissionregistrationv1.MatchCondition, fldPath *field.Path) field.ErrorList {
	return validateMatchConditionsWith(conditions, compileMatchCondition, fldPath)
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

// compileMatchCondition compiles expr in the NewExpressions environment, as the server does on
// create, and turns a failure into the field error the server would return
// (validateMatchConditionsExpression, convertCELErrorToValidationError).
func compileMatchCondition(expr string, fldPath *field.Path) *field.Error {
	celErr := compileCached(expr)
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
func compile(expr string) (result *apiservercel.Error) {
	defer recoverCompilerPanic(&result)
	if shape, placeholders, ok := shapeOf(expr); ok && validShape(shape, placeholders) {
		return nil
	}
	if quickValid(expr) {
		return nil
	}
	return fullCompile(expr)
}

// fullCompile runs k8s.io/apiserver's compiler on one trimmed expression, with the variables of
// a webhook match condition, in the NewExpressions environment (a create has no stored
// expressions). The compiler also requires the result type to be exactly bool.
func fullCompile(expr string) (result *apiservercel.Error) {
	defer recoverCompilerPanic(&result)
	accessor := &matchconditions.MatchCondition{Expression: expr}
	return celCompiler().CompileCELExpression(accessor, matchConditionVars, environment.NewExpressions).Error
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
// same configuration several times per run (validate, plan, apply), so results are kept by
// expression. The result of a compile depends on the expression only.
const compileCacheSize = 4096

var compileCache = struct {
	sync.Mutex
	m map[string]*apiservercel.Error // nil value: compiled fine
}{m: map[string]*apiservercel.Error{}}

func cachedResult(expr string) (*apiservercel.Error, bool) {
	compileCache.Lock()
	defer compileCache.Unlock()
	err, ok := compileCache.m[expr]
	return err, ok
}

func storeResult(expr string, err *apiservercel.Error) {
	compileCache.Lock()
	defer compileCache.Unlock()
	if len(compileCache.m) >= compileCacheSize {
		clear(compileCache.m)
	}
	compileCache.m[expr] = err
}

// resetCompileCache empties the caches of results and of shapes; benchmarks use it to measure
// cold compiles, as in a new provider process.
func resetCompileCache() {
	resetShapeCache()
	policyCache.reset()
	storedOnlyCache.reset()
	compileCache.Lock()
	defer compileCache.Unlock()
	clear(compileCache.m)
}

func compileCached(expr string) *apiservercel.Error {
	if err, ok := cachedResult(expr); ok {
		return err
	}
	err := compile(expr)
	storeResult(expr, err)
	return err
}

// precompile compiles, in parallel over the available CPUs, every distinct match-condition
// expression of obj that is not cached yet, so that the in-order validation pass that follows
// finds them all in the cache. It changes no result, only the time taken.
func precompile(obj *admissionregistrationv1.MutatingWebhookConfiguration) {
	var todo []string
	seen := map[string]bool{}
	for i := range obj.Webhooks {
		for _, mc := range obj.Webhooks[i].MatchConditions {
			expr := strings.TrimSpace(mc.Expression)
			if expr == "" || seen[expr] {
				continue
			}
			seen[expr] = true
			if _, ok := cachedResult(expr); !ok {
				todo = append(todo, expr)
			}
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(todo))
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
				storeResult(todo[k], compile(todo[k]))
			}
		})
	}
	wg.Wait()
}
