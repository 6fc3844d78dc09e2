package simulate

import (
	"context"
	"sort"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/generic"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/matching"
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
	// Notes say what the server does with the request that the answer
	// leaves out (the defaults of built-in kinds).
	Notes []string
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
	return compileValidatingIn(policy, compositionEnv(), nil)
}

// compileValidatingIn is compileValidating in the composition environment env, with the
// evaluators of the match conditions and validations wrapped by wrap (when not nil).
func compileValidatingIn(policy *admissionregistrationv1.ValidatingAdmissionPolicy, env *environment.EnvSet,
	wrap func(cel.ConditionEvaluator) cel.ConditionEvaluator) compiledValidating {
	if wrap == nil {
		wrap = func(e cel.ConditionEvaluator) cel.ConditionEvaluator { return e }
	}
	hasParam := policy.Spec.ParamKind != nil
	optionalVars := cel.OptionalVariableDeclarations{HasParams: hasParam, HasAuthorizer: true}
	expressionOptionalVars := cel.OptionalVariableDeclarations{HasParams: hasParam, HasAuthorizer: false}
	failurePolicy := policy.Spec.FailurePolicy
	filterCompiler, err := cel.NewCompositedCompiler(env)
	if err != nil {
		return compiledValidating{validator: validating.NewValidator(nil, nil, nil, nil, failurePolicy, err)}
	}
	matcher := compileFilters(filterCompiler, optionalVars, policy.Name, policy.Spec.Variables, policy.Spec.MatchConditions, failurePolicy, wrap)
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
			wrap(filterCompiler.CompileCondition(validations, optionalVars, environment.StoredExpressions)),
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
	e, err := newEnv(req)
	if err != nil {
		return nil, err
	}
	res := &ValidateResult{Allowed: true, AuditAnnotations: map[string]string{}, Notes: requestNotes(req, true)}
	if matching.ExcludedFromPolicies(req.Resource.GroupResource()) {
		return res, nil
	}
	compiled := validatingCache.get(policy, func() compiledValidating { return compileValidating(policy) })
	hook := policyHook(e, policy, binding, compiled.validator, policy.Spec.ParamKind)
	res.Matched = policyMatches(ctx, e, policy.Spec.MatchConstraints, binding.Spec.MatchResources,
		policy.Spec.ParamKind, binding.Spec.ParamRef, hook, compiled.conditions)

	w := &warnings{}
	dispatcher := validating.NewDispatcher(e.authz, generic.NewPolicyMatcher(e.matcher.PolicyPredicates()))
	err = dispatcher.Dispatch(w.context(ctx), e.attrs, e.objects, []validating.PolicyHook{hook})
	res.Warnings = w.list
	for k, v := range e.attrs.annotations {
		res.AuditAnnotations[k] = v
	}
	if err != nil {
		res.Allowed = false
		res.Message, res.Reason, res.Code = denialOf(err)
	}
	sort.Strings(res.Warnings)
	return res, nil
}
