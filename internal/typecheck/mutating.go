package typecheck

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/google/cel-go/cel"
	celcommon "github.com/google/cel-go/common"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/version"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"
	"k8s.io/apiserver/pkg/cel/openapi"
)

// MutatingPolicy type-checks every expression of a MutatingAdmissionPolicy against each kind
// its matchConstraints select, as ValidatingPolicy does: mutations[].applyConfiguration.expression
// and mutations[].jsonPatch.expression, matchConditions[].expression and variables[].expression.
//
// The server has no type checker for mutating policies. Match conditions and variables are
// checked as a validating policy's (the same environment at the server). Mutations are
// compiled in the environment the server compiles them in (k8s.io/apiserver
// pkg/admission/plugin/policy/mutating compilePolicy: HasPatchTypes), with object, oldObject
// and params typed after their kinds and the Object types typed after the matched kind
// (objectTypes), so `Object{spec: Object.spec{replicass: 3}}` on deployments is an
// "undefined field" warning. Messages are worded as the validating ones.
func (c *Checker) MutatingPolicy(p *admissionregistrationv1.MutatingAdmissionPolicy) []Warning {
	if p == nil || p.Spec.MatchConstraints == nil {
		return nil
	}
	spec := field.NewPath("spec")
	var out []Warning
	m := c.mutationContext(p)
	for i, mu := range p.Spec.Mutations {
		at := spec.Child("mutations").Index(i)
		switch {
		case mu.PatchType == admissionregistrationv1.PatchTypeApplyConfiguration && mu.ApplyConfiguration != nil:
			out = c.checkMutation(out, m, at.Child("applyConfiguration", "expression"), mu.ApplyConfiguration.Expression)
		case mu.PatchType == admissionregistrationv1.PatchTypeJSONPatch && mu.JSONPatch != nil:
			out = c.checkMutation(out, m, at.Child("jsonPatch", "expression"), mu.JSONPatch.Expression)
		}
	}
	return c.conditionsAndVariables(out, asValidating(p))
}

// asValidating is a validating policy with what a mutating policy's match conditions and
// variables see: the same kinds, params and variables.
func asValidating(p *admissionregistrationv1.MutatingAdmissionPolicy) *admissionregistrationv1.ValidatingAdmissionPolicy {
	v := &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: p.ObjectMeta}
	v.Spec.ParamKind = p.Spec.ParamKind
	v.Spec.MatchConstraints = p.Spec.MatchConstraints
	v.Spec.MatchConditions = p.Spec.MatchConditions
	v.Spec.Variables = p.Spec.Variables
	return v
}

// mutationContext is what the mutations of a policy are checked with: per matched kind, its
// environment; and the policy's variables.
type mutationContext struct {
	key       string
	kinds     []schema.GroupVersionKind
	envs      []*environment.EnvSet
	variables []plugincel.NamedExpressionAccessor
}

func (c *Checker) mutationContext(p *admissionregistrationv1.MutatingAdmissionPolicy) *mutationContext {
	raw, err := json.Marshal(contextKey{p.Spec.MatchConstraints.ResourceRules, p.Spec.ParamKind, p.Spec.Variables})
	if err != nil {
		return nil
	}
	m := &mutationContext{key: "mutation\x00" + string(raw)}
	params, hasParams := paramsKind(p.Spec.ParamKind)
	for _, gvk := range c.matchedKinds(p.Spec.MatchConstraints.ResourceRules) {
		env, err := c.mutationEnv(gvk, params, hasParams)
		if err != nil {
			continue // a kind that does not resolve is not checked, as at the server
		}
		m.kinds = append(m.kinds, gvk)
		m.envs = append(m.envs, env)
	}
	for _, v := range p.Spec.Variables {
		m.variables = append(m.variables, &validating.Variable{Name: v.Name, Expression: v.Expression})
	}
	return m
}

// paramsKind is the kind of paramKind (TypeChecker paramsGVK); hasParams is whether there is
// a params variable at all.
func paramsKind(pk *admissionregistrationv1.ParamKind) (gvk schema.GroupVersionKind, hasParams bool) {
	if pk == nil {
		return gvk, false
	}
	gv, err := schema.ParseGroupVersion(pk.APIVersion)
	if err != nil {
		return gvk, true
	}
	return gv.WithKind(pk.Kind), true
}

// checkMutation type-checks one mutation expression against every kind of the context.
func (c *Checker) checkMutation(out []Warning, m *mutationContext, path *field.Path, expr string) []Warning {
	if m == nil || strings.TrimSpace(expr) == "" {
		return out
	}
	key := m.key + "\x00" + expr
	msg, ok := c.results.get(key)
	if !ok {
		msg = checkMutationExpression(m, expr)
		c.results.put(key, msg)
	}
	if msg == "" {
		return out
	}
	return append(out, Warning{Field: path.String(), Message: msg})
}

// checkMutationExpression compiles the policy's variables, then the expression, for each kind,
// and words the issues as TypeCheckingResults; "" for none (or if the compiler panicked).
func checkMutationExpression(m *mutationContext, expr string) (msg string) {
	defer func() {
		if recover() != nil {
			msg = ""
		}
	}()
	var results validating.TypeCheckingResults
	for i, gvk := range m.kinds {
		if err := compileWithVariables(m.envs[i], m.variables, expr); err != nil {
			r := &validating.TypeCheckingResult{GVK: gvk}
			if err.Type == apiservercel.ErrorTypeInvalid {
				r.Issues = err
			} else {
				r.Err = err
			}
			results = append(results, r)
		}
	}
	return results.String()
}

// compileWithVariables compiles the variables in order, each seeing those before it, then the
// expression (plugincel CompositedCompiler, as the server's TypeChecker.CheckExpression does).
func compileWithVariables(env *environment.EnvSet, variables []plugincel.NamedExpressionAccessor, expr string) *apiservercel.Error {
	cc, err := plugincel.NewCompositedCompilerForTypeChecking(env)
	if err != nil {
		return &apiservercel.Error{Type: apiservercel.ErrorTypeInternal, Detail: err.Error()}
	}
	cc.Compiler = typeOnlyCompiler{cc}
	cc.CompileAndStoreVariables(variables, plugincel.OptionalVariableDeclarations{}, environment.StoredExpressions)
	return cc.CompileCELExpression(expression(expr), plugincel.OptionalVariableDeclarations{}, environment.StoredExpressions).Error
}

// typeOnlyCompiler compiles in the environment of a composited compiler, with its variables,
// and stops at the type check: no return type is required and no program built (as the
// server's TypeChecker compiles, pkg/admission/plugin/policy/validating typeCheckingCompiler).
type typeOnlyCompiler struct{ cc *plugincel.CompositedCompiler }

func (t typeOnlyCompiler) CompileCELExpression(a plugincel.ExpressionAccessor, _ plugincel.OptionalVariableDeclarations, mode environment.Type) plugincel.CompilationResult {
	env, err := t.cc.Env(mode)
	if err != nil {
		return plugincel.CompilationResult{ExpressionAccessor: a, Error: &apiservercel.Error{
			Type: apiservercel.ErrorTypeInternal, Detail: fmt.Sprintf("fail to build env: %v", err),
		}}
	}
	ast, issues := env.Compile(a.GetExpression())
	if issues = appliedAsWritten(a.GetExpression(), issues); issues != nil {
		return plugincel.CompilationResult{ExpressionAccessor: a, Error: &apiservercel.Error{
			Type: apiservercel.ErrorTypeInvalid, Detail: issues.String(),
		}}
	}
	if ast == nil {
		// Checked with only what the server applies as written: of a type not told.
		return plugincel.CompilationResult{ExpressionAccessor: a, OutputType: cel.DynType}
	}
	return plugincel.CompilationResult{ExpressionAccessor: a, OutputType: ast.OutputType()}
}

// appliedAsWritten is issues without those the server applies as written; nil when none is
// left. A map-typed field (metadata.labels, a nodeSelector) given an Object value, as in
// `Object.metadata{labels: Object.metadata.labels{foo: "bar"}}`, is one: the server's Object
// types take any field (k8s.io/apiserver pkg/cel/mutation/dynamic ObjectVal) and turn into
// the map of their fields when the apply configuration is converted to JSON, so kube-apiserver
// sets the label.
func appliedAsWritten(expr string, issues *cel.Issues) *cel.Issues {
	if issues == nil || issues.Err() == nil {
		return nil
	}
	var kept []*cel.Error
	for _, e := range issues.Errors() {
		if !mapGivenObject.MatchString(e.Message) {
			kept = append(kept, e)
		}
	}
	if len(kept) == 0 {
		return nil
	}
	if len(kept) == len(issues.Errors()) {
		return issues
	}
	return cel.NewIssues(celcommon.NewErrors(celcommon.NewTextSource(expr)).Append(kept))
}

// mapGivenObject is the checker's message for a map-typed field given an Object value.
var mapGivenObject = regexp.MustCompile(`^expected type of field '[^']*' is 'map\([^']*\)' but provided type is 'Object(\.[^']*)?'$`)

// expression is a CEL expression of any result type.
type expression string

func (e expression) GetExpression() string    { return string(e) }
func (e expression) ReturnTypes() []*cel.Type { return []*cel.Type{cel.AnyType} }

// mutationEnv is the environment a mutation of a policy on kind gvk compiles in, built once
// per kind and params kind.
func (c *Checker) mutationEnv(gvk, params schema.GroupVersionKind, hasParams bool) (*environment.EnvSet, error) {
	key := fmt.Sprintf("%v\x00%v\x00%t", gvk, params, hasParams)
	if env, ok := c.envs.get(key); ok {
		return env, nil
	}
	s, err := schemaResolver{c}.ResolveSchema(gvk)
	if err != nil {
		return nil, err
	}
	object := c.declType(gvk, "")
	var paramsType *apiservercel.DeclType
	if hasParams && !params.Empty() {
		paramsType = c.declType(params, "params.")
	}
	env, err := buildMutationEnv(object, paramsType, hasParams, newObjectTypes(s))
	if err != nil {
		return nil, err
	}
	c.envs.put(key, env)
	return env, nil
}

// declType is the CEL type of a kind, named prefix+Kind (TypeChecker declType names it
// Kind+a number); nil if the kind does not resolve. Kept per kind.
func (c *Checker) declType(gvk schema.GroupVersionKind, prefix string) *apiservercel.DeclType {
	key := prefix + gvk.String()
	if t, ok := c.declTypes.get(key); ok {
		return t
	}
	s, err := schemaResolver{c}.ResolveSchema(gvk)
	if err != nil {
		return nil
	}
	t := common.SchemaDeclType(&openapi.Schema{Schema: s}, true)
	if t != nil {
		t = t.MaybeAssignTypeName(prefix + gvk.Kind)
	}
	c.declTypes.put(key, t)
	return t
}

// buildMutationEnv extends the server's base environment as it does for mutations
// (pkg/admission/plugin/cel createEnvForOpts with HasParams, HasAuthorizer and HasPatchTypes),
// with object, oldObject and params typed (as pkg/admission/plugin/policy/validating
// buildEnvSet does) and the Object types typed by objects.
func buildMutationEnv(object, params *apiservercel.DeclType, hasParams bool, objects common.TypeResolver) (*environment.EnvSet, error) {
	requestType := plugincel.BuildRequestType()
	namespaceType := plugincel.BuildNamespaceType()
	declTypes := []*apiservercel.DeclType{namespaceType, requestType}
	opts := []cel.EnvOption{
		cel.Variable(plugincel.NamespaceVarName, namespaceType.CelType()),
		cel.Variable(plugincel.RequestVarName, requestType.CelType()),
		cel.Variable(plugincel.AuthorizerVarName, library.AuthorizerType),
		cel.Variable(plugincel.RequestResourceAuthorizerVarName, library.ResourceCheckType),
	}
	opts = append(opts, variablesOfType(object, plugincel.ObjectVarName, plugincel.OldObjectVarName)...)
	if object != nil {
		declTypes = append(declTypes, object)
	}
	if hasParams {
		opts = append(opts, variablesOfType(params, plugincel.ParamsVarName)...)
		if params != nil {
			declTypes = append(declTypes, params)
		}
	}
	base := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
	env, err := base.Extend(environment.VersionedOptions{IntroducedVersion: version.MajorMinor(1, 0), EnvOptions: opts, DeclTypes: declTypes})
	if err != nil {
		return nil, err
	}
	// A second extension, as the server's hasPatchTypes: the type provider of the DeclTypes
	// above must be in place for the resolver to fall back on.
	return env.Extend(environment.VersionedOptions{IntroducedVersion: version.MajorMinor(1, 0), EnvOptions: []cel.EnvOption{
		common.ResolverEnvOption(objects),
		environment.UnversionedLib(library.JSONPatch),
	}})
}

// variablesOfType declares variables of a kind's type, dyn if it has none (createVariableOpts).
func variablesOfType(t *apiservercel.DeclType, names ...string) []cel.EnvOption {
	ct := cel.DynType
	if t != nil {
		ct = t.CelType()
	}
	opts := make([]cel.EnvOption, 0, len(names))
	for _, name := range names {
		opts = append(opts, cel.Variable(name, ct))
	}
	return opts
}
