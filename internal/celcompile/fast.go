package celcompile

import (
	"slices"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/overloads"
	"github.com/google/cel-go/common/types"
	"k8s.io/apimachinery/pkg/util/version"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"
)

// The compiler of k8s.io/apiserver (plugincel.Compiler.CompileCELExpression) parses and checks an
// expression, requires a bool result, and then builds an evaluable program. Building the program
// takes about as long as parsing and checking together (it copies every function binding of the
// environment into a new dispatcher), yet it can fail only for a few constructs: a constant regex
// that does not compile, a type conversion of a constant that fails (int('x')), an index that
// is a constant list, map, bytes or null, a constant map with a bytes key (a panic). quickValid parses and checks with the compiler's own
// environment and skips the program when the checked expression contains none of the constructs
// that can make it fail. It only ever answers "valid"; every other case, and every error
// message, comes from the compiler itself.

// quickEnvs are the environments of quickValid, one per CEL environment, built on first use; a
// nil one means the shortcuts are off there and every expression goes to the compiler.
var quickEnvs = lazy[Env, *cel.Env]{build: buildMatchConditionEnv}

// matchConditionEnv returns the environment the compiler checks match conditions in: the base
// environment of e extended exactly as plugincel's createEnvForOpts does for
// MatchConditionVars, in e's variant (NewExpressions or StoredExpressions).
func matchConditionEnv(e Env) *cel.Env { return quickEnvs.get(e) }

func buildMatchConditionEnv(e Env) *cel.Env {
	// If building a program failed for reasons of the environment (options, function
	// bindings, cost tracker), it would fail for every expression: skipping it would hide
	// that. The compiler accepting a trivial expression rules it out once for all.
	// The variables below are those of an environment without patch types.
	if fullCompile(e, "true") != nil || MatchConditionVars.HasPatchTypes {
		return nil
	}
	namespaceType := plugincel.BuildNamespaceType()
	requestType := plugincel.BuildRequestType()
	vars := []cel.EnvOption{
		cel.Variable(plugincel.ObjectVarName, cel.DynType),
		cel.Variable(plugincel.OldObjectVarName, cel.DynType),
		cel.Variable(plugincel.NamespaceVarName, namespaceType.CelType()),
		cel.Variable(plugincel.RequestVarName, requestType.CelType()),
	}
	if MatchConditionVars.HasParams {
		vars = append(vars, cel.Variable(plugincel.ParamsVarName, cel.DynType))
	}
	if MatchConditionVars.HasAuthorizer {
		vars = append(vars,
			cel.Variable(plugincel.AuthorizerVarName, library.AuthorizerType),
			cel.Variable(plugincel.RequestResourceAuthorizerVarName, library.ResourceCheckType))
	}
	set, err := e.baseSet().Extend(
		environment.VersionedOptions{
			IntroducedVersion: version.MajorMinor(1, 0),
			EnvOptions:        vars,
			DeclTypes:         []*apiservercel.DeclType{namespaceType, requestType},
		},
		environment.StrictCostOpt,
	)
	if err != nil {
		return nil
	}
	env, err := set.Env(e.envType())
	if err != nil {
		return nil
	}
	return env
}

// matchConditionReturnTypes are the result types the compiler accepts for a match condition.
var matchConditionReturnTypes = (&matchconditions.MatchCondition{}).ReturnTypes()

// checkedValid parses and checks expr as the compiler does, and returns the checked expression
// if the compiler would get that far without an error: no issues, an accepted result type, and
// a checked expression that converts to its protobuf form. Otherwise it returns nil.
func checkedValid(env *cel.Env, expr string) *cel.Ast {
	checked, issues := env.Compile(expr)
	if issues != nil {
		return nil
	}
	if !slices.ContainsFunc(matchConditionReturnTypes, func(t *cel.Type) bool {
		return checked.OutputType().IsExactType(t) || cel.AnyType.IsExactType(t)
	}) {
		return nil
	}
	if _, err := cel.AstToCheckedExpr(checked); err != nil {
		return nil
	}
	return checked
}

// quickValid reports whether expr is certainly accepted by the compiler without building its
// program. False means "ask the compiler", not "invalid".
func quickValid(e Env, expr string) bool {
	env := matchConditionEnv(e)
	if env == nil {
		return false
	}
	checked := checkedValid(env, expr)
	return checked != nil && programCannotFail(checked.NativeRep())
}

// plannedWithoutLookingAtValues are the functions whose calls cel-go's planner and the program
// decorators of the Kubernetes environment turn into program nodes without evaluating anything
// and without a possible error: the operators the planner builds itself (logic, conditional,
// equality, index, optional select), standard-library functions that have a binding for every
// overload, and the optional accessors (or/orValue are rewritten by the optional library's
// decorator, which cannot fail). Type conversions (folded when their argument is constant),
// matches/find/findAll (constant patterns are compiled) and every other library function are
// left out on purpose.
var plannedWithoutLookingAtValues = map[string]bool{
	operators.LogicalAnd:       true,
	operators.LogicalOr:        true,
	operators.LogicalNot:       true,
	operators.NotStrictlyFalse: true,
	operators.Conditional:      true,
	operators.Equals:           true,
	operators.NotEquals:        true,
	operators.Less:             true,
	operators.LessEquals:       true,
	operators.Greater:          true,
	operators.GreaterEquals:    true,
	operators.Add:              true,
	operators.Subtract:         true,
	operators.Multiply:         true,
	operators.Divide:           true,
	operators.Modulo:           true,
	operators.Negate:           true,
	operators.In:               true,
	operators.Index:            true,
	operators.OptIndex:         true,
	operators.OptSelect:        true,
	overloads.Size:             true,
	overloads.StartsWith:       true,
	overloads.EndsWith:         true,
	overloads.Contains:         true,
	"hasValue":                 true,
	"value":                    true,
	"or":                       true,
	"orValue":                  true,
}

// programCannotFail reports whether building the program of the checked expression a certainly
// succeeds (and does not panic), given that it succeeds for some expression in the same
// environment: the other errors of program construction come from the environment and are the
// same for every expression.
func programCannotFail(a *ast.AST) bool {
	ok := true
	ast.PreOrderVisit(a.Expr(), ast.NewExprVisitor(func(e ast.Expr) {
		if !ok {
			return
		}
		switch e.Kind() {
		case ast.CallKind:
			call := e.AsCall()
			if !plannedWithoutLookingAtValues[call.FunctionName()] {
				ok = false
				return
			}
			// An index becomes a qualifier; a constant one must be a string, number or bool
			// ("invalid qualifier type" otherwise). Constant lists and maps are folded into
			// constants before the qualifier is made.
			if fn := call.FunctionName(); fn == operators.Index || fn == operators.OptIndex {
				args := call.Args()
				if len(args) != 2 || !primitiveOrNotConstant(args[1]) {
					ok = false
				}
			}
		case ast.IdentKind, ast.SelectKind:
			// A reference to a type is resolved to a type value while planning.
			if a.GetType(e.ID()).Kind() == types.TypeKind {
				ok = false
			}
		case ast.MapKind:
			// A map of constants is built while planning, and a bytes key makes it panic
			// (unhashable). Only string, number and bool constant keys are let through.
			for _, entry := range e.AsMap().Entries() {
				if key := entry.AsMapEntry().Key(); key.Kind() == ast.LiteralKind && !primitiveOrNotConstant(key) {
					ok = false
				}
			}
		case ast.StructKind:
			// A message construction looks its type up while planning.
			ok = false
		}
	}))
	return ok
}

// primitiveOrNotConstant reports whether e, used as an index, is either not a constant or a
// constant the planner can make a qualifier of.
func primitiveOrNotConstant(e ast.Expr) bool {
	switch e.Kind() {
	case ast.ListKind, ast.MapKind:
		return false
	case ast.LiteralKind:
		switch e.AsLiteral().Type() {
		case types.StringType, types.IntType, types.UintType, types.BoolType, types.DoubleType:
			return true
		}
		return false
	}
	return true
}
