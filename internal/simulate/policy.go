package simulate

import (
	"context"
	"errors"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/generic"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/matching"
)

// What the validating and the mutating admission policies share on the
// server (k8s.io/apiserver pkg/admission/plugin/policy/generic, and the
// compilePolicy functions of pkg/admission/plugin/policy/validating and
// mutating, which make the same calls for variables and match conditions).

// compileFilters stores a policy's variables in compiler and compiles its
// match conditions (their evaluator wrapped by the first of wrap, when given); the matcher is
// nil when there are none.
func compileFilters(compiler *cel.CompositedCompiler, opts cel.OptionalVariableDeclarations, policyName string,
	vars []admissionregistrationv1.Variable, mcs []admissionregistrationv1.MatchCondition, failurePolicy *admissionregistrationv1.FailurePolicyType,
	wrap ...func(cel.ConditionEvaluator) cel.ConditionEvaluator) matchconditions.Matcher {
	variables := make([]cel.NamedExpressionAccessor, len(vars))
	for i, v := range vars {
		variables[i] = &validating.Variable{Name: v.Name, Expression: v.Expression}
	}
	compiler.CompileAndStoreVariables(variables, opts, environment.StoredExpressions)
	if len(mcs) == 0 {
		return nil
	}
	accessors := make([]cel.ExpressionAccessor, len(mcs))
	for i := range mcs {
		accessors[i] = (*matchconditions.MatchCondition)(&mcs[i])
	}
	conditions := compiler.CompileCondition(accessors, opts, environment.StoredExpressions)
	if len(wrap) > 0 {
		conditions = wrap[0](conditions)
	}
	return matchconditions.NewMatcher(conditions, failurePolicy, "policy", "validate", policyName)
}

// policyHook is the hook the policy source makes of a policy and its
// binding, with the informer and scope of the request's params of paramKind
// pk (see env.params), or the policy source's configuration error for a
// paramKind it cannot resolve (generic policySource.calculatePolicyData).
func policyHook[P, B runtime.Object, E generic.Evaluator](e *env, policy P, binding B, evaluator E, pk *admissionregistrationv1.ParamKind) generic.PolicyHook[P, B, E] {
	hook := generic.PolicyHook[P, B, E]{Policy: policy, Bindings: []B{binding}, Evaluator: evaluator}
	if pk != nil {
		gv, err := schema.ParseGroupVersion(pk.APIVersion)
		if err != nil {
			hook.ConfigurationError = err
		} else {
			hook.ParamInformer, hook.ParamScope = e.params(gv.WithKind(pk.Kind))
		}
	}
	return hook
}

// policyMatches reports whether a policy applies to the request: the
// definition's and binding's match criteria (matching.PolicyResources, as
// the dispatchers ask them), then the match conditions with the first param
// the binding finds (pk and ref are the policy's paramKind and the binding's
// paramRef). A match condition that fails to evaluate counts as a match: the
// failure policy then decides.
func policyMatches[P, B runtime.Object, E generic.Evaluator](ctx context.Context, e *env, constraints, resources *admissionregistrationv1.MatchResources,
	pk *admissionregistrationv1.ParamKind, ref *admissionregistrationv1.ParamRef, hook generic.PolicyHook[P, B, E], conditions matchconditions.Matcher) bool {
	matched := e.matcher.PolicyResources(e.attrs, constraints, resources)
	switch {
	case matched.Outcome == matching.NotCalled:
		return false
	case matched.Outcome == matching.Failed, conditions == nil:
		return true
	}
	params, err := generic.CollectParams(pk, hook.ParamInformer, hook.ParamScope, ref, e.attrs.GetNamespace(), nil, nil)
	if err != nil || len(params) == 0 {
		return true
	}
	return e.matcher.PolicyConditions(ctx, conditions, e.attrs, matched, params[0]).Outcome != matching.NotCalled
}

// denial is the message, status reason and HTTP code the client gets for a
// request a dispatcher rejected with err.
func denialOf(err error) (message, reason string, code int32) {
	var status *apierrors.StatusError
	if errors.As(err, &status) {
		return status.ErrStatus.Message, string(status.ErrStatus.Reason), status.ErrStatus.Code
	}
	return err.Error(), "", 0
}
