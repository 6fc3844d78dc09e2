package simulate

import (
	"context"
	"errors"
	"sort"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/generic"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// ValidateResult is what the API server does with a request, for one
// validating policy and binding.
type ValidateResult struct {
	// Matched: the policy applies to the request (its match constraints,
	// the binding's match resources, and the match conditions).
	Matched bool
	// Allowed: the request is admitted.
	Allowed bool
	// Message is the server's message of a denial; Reason and Code its
	// status reason and HTTP code.
	Message string
	Reason  string
	Code    int32
	// Warnings are the warnings the client gets (validation action Warn).
	Warnings []string
	// AuditAnnotations are the annotations of the audit event (audit
	// annotations, and the failures of validation action Audit).
	AuditAnnotations map[string]string
}

// compositionEnv is the CEL environment the server compiles policies in
// (k8s.io/apiserver pkg/admission/plugin/policy/validating
// getCompositionEnvTemplateWithStrictCost).
var compositionEnv = sync.OnceValue(func() *environment.EnvSet {
	return environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
})

// compiledValidating is a policy as the server compiles it: the
// evaluator, and the matcher of its match conditions on its own.
type compiledValidating struct {
	validator  validating.Validator
	conditions matchconditions.Matcher
}

// compileValidating compiles a policy as the server does
// (k8s.io/apiserver pkg/admission/plugin/policy/validating compilePolicy,
// which is not exported: the same calls, in the same order).
func compileValidating(policy *admissionregistrationv1.ValidatingAdmissionPolicy) compiledValidating {
	hasParam := policy.Spec.ParamKind != nil
	optionalVars := cel.OptionalVariableDeclarations{HasParams: hasParam, HasAuthorizer: true}
	expressionOptionalVars := cel.OptionalVariableDeclarations{HasParams: hasParam, HasAuthorizer: false}
	failurePolicy := policy.Spec.FailurePolicy
	filterCompiler, err := cel.NewCompositedCompiler(compositionEnv())
	if err != nil {
		return compiledValidating{validator: validating.NewValidator(nil, nil, nil, nil, failurePolicy, err)}
	}
	variables := make([]cel.NamedExpressionAccessor, len(policy.Spec.Variables))
	for i, v := range policy.Spec.Variables {
		variables[i] = &validating.Variable{Name: v.Name, Expression: v.Expression}
	}
	filterCompiler.CompileAndStoreVariables(variables, optionalVars, environment.StoredExpressions)
	var matcher matchconditions.Matcher
	if mcs := policy.Spec.MatchConditions; len(mcs) > 0 {
		accessors := make([]cel.ExpressionAccessor, len(mcs))
		for i := range mcs {
			accessors[i] = (*matchconditions.MatchCondition)(&mcs[i])
		}
		matcher = matchconditions.NewMatcher(filterCompiler.CompileCondition(accessors, optionalVars, environment.StoredExpressions), failurePolicy, "policy", "validate", policy.Name)
	}
	validations := make([]cel.ExpressionAccessor, len(policy.Spec.Validations))
	messages := make([]cel.ExpressionAccessor, len(policy.Spec.Validations))
	for i, v := range policy.Spec.Validations {
		validations[i] = &validating.ValidationCondition{Expression: v.Expression, Message: v.Message, Reason: v.Reason}
		if v.MessageExpression != "" {
			messages[i] = &validating.MessageExpressionCondition{MessageExpression: v.MessageExpression}
		}
	}
	audits := make([]cel.ExpressionAccessor, len(policy.Spec.AuditAnnotations))
	for i, a := range policy.Spec.AuditAnnotations {
		audits[i] = &validating.AuditAnnotationCondition{Key: a.Key, ValueExpression: a.ValueExpression}
	}
	return compiledValidating{
		validator: validating.NewValidator(
			filterCompiler.CompileCondition(validations, optionalVars, environment.StoredExpressions),
			matcher,
			filterCompiler.CompileCondition(audits, optionalVars, environment.StoredExpressions),
			filterCompiler.CompileCondition(messages, expressionOptionalVars, environment.StoredExpressions),
			failurePolicy,
			nil,
		),
		conditions: matcher,
	}
}

// Validate says what the API server does with req for policy and binding,
// with k8s.io/apiserver's validating admission policy dispatcher
// (pkg/admission/plugin/policy/validating NewDispatcher) over what the
// request gives: its namespace, its params, its authorizer. The binding
// applies to the policy whatever its policy name: the caller pairs them.
func Validate(ctx context.Context, policy *ValidatingPolicy, binding *ValidatingBinding, req *Request) (*ValidateResult, error) {
	policy = validation.DefaultValidatingPolicy(policy)
	binding = validation.DefaultValidatingPolicyBinding(binding)
	binding.Spec.PolicyName = policy.Name
	e := newEnv(req)
	res := &ValidateResult{Allowed: true, AuditAnnotations: map[string]string{}}
	if excludedFromPolicies(req.Resource.GroupResource()) {
		return res, nil
	}
	compiled := validatingCache.get(policy, func() compiledValidating { return compileValidating(policy) })
	hook := validating.PolicyHook{
		Policy:    policy,
		Bindings:  []*ValidatingBinding{binding},
		Evaluator: compiled.validator,
	}
	if pk := policy.Spec.ParamKind; pk != nil {
		gv, err := schema.ParseGroupVersion(pk.APIVersion)
		if err != nil {
			// The policy source's configuration error for a paramKind it
			// cannot resolve (generic policySource.calculatePolicyData).
			hook.ConfigurationError = err
		} else {
			hook.ParamInformer, hook.ParamScope = e.params(gv.WithKind(pk.Kind))
		}
	}

	res.Matched = e.matches(ctx, policy, binding, hook, compiled.conditions)

	w := &warnings{}
	dispatcher := validating.NewDispatcher(e.authz, generic.NewPolicyMatcher(e.matcher))
	err := dispatcher.Dispatch(w.context(ctx), e.attrs, e.objects, []validating.PolicyHook{hook})
	res.Warnings = w.list
	for k, v := range e.attrs.annotations {
		res.AuditAnnotations[k] = v
	}
	if err != nil {
		res.Allowed = false
		res.Message = err.Error()
		var status *apierrors.StatusError
		if errors.As(err, &status) {
			res.Message = status.ErrStatus.Message
			res.Reason = string(status.ErrStatus.Reason)
			res.Code = status.ErrStatus.Code
		}
	}
	sort.Strings(res.Warnings)
	return res, nil
}

// matches reports whether the policy applies to the request: the
// definition's and binding's match criteria (generic.PolicyMatcher), then
// the match conditions with the first param the binding finds. A match
// condition that fails to evaluate counts as a match: the failure policy
// then decides.
func (e *env) matches(ctx context.Context, policy *ValidatingPolicy, binding *ValidatingBinding, hook validating.PolicyHook, conditions matchconditions.Matcher) bool {
	pm := generic.NewPolicyMatcher(e.matcher)
	ok, _, kind, err := pm.DefinitionMatches(e.attrs, e.objects, validating.NewValidatingAdmissionPolicyAccessor(policy))
	if err != nil {
		return true
	}
	if !ok {
		return false
	}
	if ok, err := pm.BindingMatches(e.attrs, e.objects, validating.NewValidatingAdmissionPolicyBindingAccessor(binding)); err != nil || !ok {
		return err != nil
	}
	return e.conditionsMatch(ctx, policy.Spec.ParamKind, binding.Spec.ParamRef, hook, kind, conditions)
}

func (e *env) conditionsMatch(ctx context.Context, pk *admissionregistrationv1.ParamKind, ref *admissionregistrationv1.ParamRef,
	hook validating.PolicyHook, kind schema.GroupVersionKind, conditions matchconditions.Matcher) bool {
	if conditions == nil {
		return true
	}
	params, err := generic.CollectParams(pk, hook.ParamInformer, hook.ParamScope, ref, e.attrs.GetNamespace(), nil, nil)
	if err != nil || len(params) == 0 {
		return true
	}
	va, err := admission.NewVersionedAttributes(e.attrs, kind, e.objects)
	if err != nil {
		return true
	}
	r := conditions.Match(ctx, va, params[0], e.authz)
	return r.Error != nil || r.Matches
}
