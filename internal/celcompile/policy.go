package celcompile

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types/traits"
	"k8s.io/apimachinery/pkg/util/version"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/celcompile/internal/switches"
)

// The CEL expressions of the policy kinds, compiled as k8s.io/kubernetes
// pkg/apis/admissionregistration/validation does on create: each kind of field with its own
// expression accessor (which fixes the result types it accepts) and its own variable
// declarations, in the NewExpressions environment of CELCompatibilityVersion, and, for a
// policy with variables (and for every mutating policy), with a composited compiler in which
// each variable is declared, with its compiled type, for the expressions compiled after it.

// Kind is the kind of field an expression is in; it decides the accessor, so the result types
// the compiler accepts.
type Kind int

const (
	KindMatchCondition     Kind = iota // matchconditions.MatchCondition: bool
	KindValidation                     // validation expression: bool
	KindMessage                        // validation messageExpression: string
	KindAuditValue                     // audit annotation valueExpression: string or null
	KindVariable                       // variable: any type
	KindApplyConfiguration             // mutation applyConfiguration: Object{...}
	KindJSONPatch                      // mutation jsonPatch: list(JSONPatch)
	kindShape                          // not an expression: a shape (shape.go) and its verdict
)

// The accessors of k8s.io/apiserver pkg/admission/plugin/policy/validating (ValidationCondition,
// MessageExpressionCondition, AuditAnnotationCondition, Variable), with the same result types.
// That package is not imported: it would bring the whole admission plugin (informers, file
// watching) into the provider for four small types.

type validationCondition struct{ expression string }

func (v *validationCondition) GetExpression() string    { return v.expression }
func (v *validationCondition) ReturnTypes() []*cel.Type { return []*cel.Type{cel.BoolType} }

type messageExpressionCondition struct{ expression string }

func (m *messageExpressionCondition) GetExpression() string    { return m.expression }
func (m *messageExpressionCondition) ReturnTypes() []*cel.Type { return []*cel.Type{cel.StringType} }

type auditAnnotationCondition struct{ expression string }

func (a *auditAnnotationCondition) GetExpression() string { return a.expression }
func (a *auditAnnotationCondition) ReturnTypes() []*cel.Type {
	return []*cel.Type{cel.StringType, cel.NullType}
}

type variableAccessor struct{ name, expression string }

func (v *variableAccessor) GetExpression() string    { return v.expression }
func (v *variableAccessor) GetName() string          { return v.name }
func (v *variableAccessor) ReturnTypes() []*cel.Type { return []*cel.Type{cel.AnyType, cel.DynType} }

// accessor returns the server's accessor of an expression of kind k.
func accessor(k Kind, expr string) plugincel.ExpressionAccessor {
	switch k {
	case KindMatchCondition:
		return &matchconditions.MatchCondition{Expression: expr}
	case KindValidation:
		return &validationCondition{expr}
	case KindMessage:
		return &messageExpressionCondition{expr}
	case KindAuditValue:
		return &auditAnnotationCondition{expr}
	case KindVariable:
		return &variableAccessor{expression: expr}
	case KindApplyConfiguration:
		return &patch.ApplyConfigurationCondition{Expression: expr}
	case KindJSONPatch:
		return &patch.JSONPatchCondition{Expression: expr}
	}
	panic(fmt.Sprintf("unknown expression kind %d", k))
}

// compiled is what compiling one expression gives: the compiler's error (nil if it compiled)
// and the type of its result (nil if it did not).
type compiled struct {
	err        *apiservercel.Error
	outputType *cel.Type
}

// Policy compiles the expressions of one policy. With a composition, it is the composited
// compiler of the server (plugincel.NewCompositedCompiler), which validateValidatingAdmissionPolicySpec
// uses for a policy with variables and validateMutatingAdmissionPolicySpec for every policy;
// without, it is the stateless compiler of the match conditions (getStrictStatelessCELCompiler).
// Match conditions are always compiled by the stateless one, without variables.
//
// The server's composited compiler has one set of declared variables for both of its
// environments; here each environment an expression is compiled in (see Env) has its
// composition, made on first use and given the variables declared so far.
type Policy struct {
	composited bool
	comps      map[Env]*composition
	declared   []declaredVariable // in order, for the compositions made later
}

type declaredVariable struct {
	name       string
	outputType *cel.Type
}

// NewPolicy returns the compiler of one policy; release gives its compositions back.
func NewPolicy(composited bool) *Policy {
	return &Policy{composited: composited}
}

// Release gives the policy's compositions back for the next policy; p is not used after.
func (p *Policy) Release() {
	for _, c := range p.comps {
		returnComposition(c)
	}
	p.comps = nil
}

// composition returns the composition of env, with every variable declared so far.
func (p *Policy) composition(env Env) *composition {
	if c, ok := p.comps[env]; ok {
		return c
	}
	c := takeComposition(env)
	for _, d := range p.declared {
		c.declare(d.name, d.outputType)
	}
	if p.comps == nil {
		p.comps = map[Env]*composition{}
	}
	p.comps[env] = c
	return c
}

// Compile compiles expr as an expression of kind k with the given variable declarations, in
// env, and returns the compiler's error, nil when it compiles.
func (p *Policy) Compile(env Env, k Kind, expr string, decls plugincel.OptionalVariableDeclarations) *apiservercel.Error {
	return p.compile(env, k, expr, decls).err
}

func (p *Policy) compile(env Env, k Kind, expr string, decls plugincel.OptionalVariableDeclarations) compiled {
	key := compileKey{env: env, kind: k, decls: decls, expr: expr}
	var comp *composition
	if p.composited && k != KindMatchCondition {
		comp = p.composition(env)
		key.composited, key.variables = true, comp.signature
	}
	if k == KindMatchCondition && decls == MatchConditionVars {
		// The environment and accessor of a webhook's match condition: its faster path, and
		// the same entry of the cache.
		return matchConditionResult(CompileMatchCondition(env, expr))
	}
	if c, ok := cache.get(key); ok {
		return c
	}
	var c compiled
	switch {
	case comp != nil:
		c = compileWith(comp.compiler, env, k, expr, decls)
	default:
		c = compileWith(Compiler(env), env, k, expr, decls)
	}
	cache.put(key, c)
	return c
}

// CompileVariable compiles a variable in env and declares it, with its type, for the
// expressions compiled after it, in every environment (CompositedCompiler.CompileAndStoreVariable),
// and returns the compiler's error. A variable that does not compile is declared as dyn.
func (p *Policy) CompileVariable(env Env, name, expr string, decls plugincel.OptionalVariableDeclarations) *apiservercel.Error {
	c := p.compile(env, KindVariable, expr, decls)
	p.declared = append(p.declared, declaredVariable{name, c.outputType})
	for _, comp := range p.comps {
		comp.declare(name, c.outputType)
	}
	return c.err
}

// compileWith runs compiler on one expression, turning a panic of cel-go into an internal error
// (see recoverCompilerPanic).
func compileWith(compiler plugincel.Compiler, env Env, k Kind, expr string, decls plugincel.OptionalVariableDeclarations) (c compiled) {
	defer recoverCompilerPanic(&c.err)
	r := compiler.CompileCELExpression(accessor(k, expr), decls, env.envType())
	return compiled{err: r.Error, outputType: r.OutputType}
}

// ---------------------------------------------------------------------------------------------
// Composition

// variablesTypeName is the type of the `variables` variable (k8s.io/apiserver
// pkg/admission/plugin/cel, variablesTypeName).
const variablesTypeName = "kubernetes.variables"

// composition is plugincel.NewCompositedCompiler made reusable: the same environments (the
// base environment plus `variables`, an object type whose fields are the variables declared
// so far), with the type under our control, so that its fields can be cleared for the next
// policy. Building the environments takes milliseconds, compiling an expression far less.
type composition struct {
	env       Env
	variables *apiservercel.DeclType
	compiler  plugincel.Compiler
	signature string // the declared variables and their types, part of the compile cache's key
}

func newComposition(env Env) *composition {
	vars := apiservercel.NewObjectType(variablesTypeName, map[string]*apiservercel.DeclField{})
	set, err := env.baseSet().Extend(environment.VersionedOptions{
		IntroducedVersion: version.MajorMinor(1, 0),
		EnvOptions:        []cel.EnvOption{cel.Variable("variables", vars.CelType())},
		DeclTypes:         []*apiservercel.DeclType{vars},
	})
	if err != nil {
		// The server's own environment with one variable: this cannot fail.
		panic(fmt.Sprintf("CEL environment with variables: %v", err))
	}
	return &composition{env: env, variables: vars, compiler: plugincel.NewCompiler(set)}
}

// declare adds (or replaces) a variable (compositionState.AddField).
func (c *composition) declare(name string, outputType *cel.Type) {
	c.variables.Fields[name] = apiservercel.NewDeclField(name, declTypeOf(outputType), true, nil, nil)
	names := make([]string, 0, len(c.variables.Fields))
	for n := range c.variables.Fields {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%q:%s;", n, declTypeKey(c.variables.Fields[n].Type))
	}
	c.signature = b.String()
}

// Compositions not in use, at most maxIdleCompositions of them per environment.
const maxIdleCompositions = 8

var idleCompositions struct {
	sync.Mutex
	byEnv map[Env][]*composition
}

func takeComposition(env Env) *composition {
	idleCompositions.Lock()
	if list := idleCompositions.byEnv[env]; len(list) > 0 {
		c := list[len(list)-1]
		idleCompositions.byEnv[env] = list[:len(list)-1]
		idleCompositions.Unlock()
		return c
	}
	idleCompositions.Unlock()
	return newComposition(env)
}

func returnComposition(c *composition) {
	clear(c.variables.Fields)
	c.signature = ""
	idleCompositions.Lock()
	defer idleCompositions.Unlock()
	if idleCompositions.byEnv == nil {
		idleCompositions.byEnv = map[Env][]*composition{}
	}
	if len(idleCompositions.byEnv[c.env]) < maxIdleCompositions {
		idleCompositions.byEnv[c.env] = append(idleCompositions.byEnv[c.env], c)
	}
}

// declTypeOf is the type a variable is declared with (k8s.io/apiserver pkg/admission/plugin/cel
// convertCelTypeToDeclType, unexported there): the scalar types by identity, lists and maps
// with their parameters, anything else, and a variable that did not compile, dyn.
func declTypeOf(celType *cel.Type) *apiservercel.DeclType {
	if celType == nil {
		return apiservercel.DynType
	}
	switch celType {
	case cel.AnyType:
		return apiservercel.AnyType
	case cel.BoolType:
		return apiservercel.BoolType
	case cel.BytesType:
		return apiservercel.BytesType
	case cel.DoubleType:
		return apiservercel.DoubleType
	case cel.DurationType:
		return apiservercel.DurationType
	case cel.IntType:
		return apiservercel.IntType
	case cel.NullType:
		return apiservercel.NullType
	case cel.StringType:
		return apiservercel.StringType
	case cel.TimestampType:
		return apiservercel.TimestampType
	case cel.UintType:
		return apiservercel.UintType
	default:
		if celType.HasTrait(traits.ContainerType) && celType.HasTrait(traits.IndexerType) {
			parameters := celType.Parameters()
			switch len(parameters) {
			case 1:
				return apiservercel.NewListType(declTypeOf(parameters[0]), -1)
			case 2:
				return apiservercel.NewMapType(declTypeOf(parameters[0]), declTypeOf(parameters[1]), -1)
			}
		}
		return apiservercel.DynType
	}
}

// declTypeKey names a type made by declTypeOf, parameters included.
func declTypeKey(t *apiservercel.DeclType) string {
	switch {
	case t.IsList():
		return "list(" + declTypeKey(t.ElemType) + ")"
	case t.IsMap():
		return "map(" + declTypeKey(t.KeyType) + "," + declTypeKey(t.ElemType) + ")"
	}
	return t.TypeName()
}

// ---------------------------------------------------------------------------------------------
// Cache

// compileKey is everything a compile's result depends on.
type compileKey struct {
	env        Env
	kind       Kind
	decls      plugincel.OptionalVariableDeclarations
	composited bool   // compiled with `variables` declared
	variables  string // the declared variables and their types (composition.signature)
	expr       string
}

// cache is the one cache of compile results, of webhooks' match conditions and of policies'
// expressions alike, and of the verdicts on shapes (kindShape). It forgets everything when it
// holds compileCacheSize entries, and when a benchmark empties it (celtest.ResetCache).
var cache = &boundedCache[compileKey, compiled]{m: map[compileKey]compiled{}}

type boundedCache[K comparable, V any] struct {
	sync.Mutex
	m          map[K]V
	generation uint64 // switches.CacheGeneration when m was last emptied for it
}

func (c *boundedCache[K, V]) get(k K) (V, bool) {
	c.Lock()
	defer c.Unlock()
	c.forgetIfReset()
	v, ok := c.m[k]
	return v, ok
}

func (c *boundedCache[K, V]) has(k K) bool {
	c.Lock()
	defer c.Unlock()
	c.forgetIfReset()
	_, ok := c.m[k]
	return ok
}

func (c *boundedCache[K, V]) put(k K, v V) {
	c.Lock()
	defer c.Unlock()
	c.forgetIfReset()
	if len(c.m) >= compileCacheSize {
		clear(c.m)
	}
	c.m[k] = v
}

// forgetIfReset empties c if switches.CacheGeneration changed since c last looked; c is locked.
func (c *boundedCache[K, V]) forgetIfReset() {
	if g := switches.CacheGeneration.Load(); g != c.generation {
		clear(c.m)
		c.generation = g
	}
}
