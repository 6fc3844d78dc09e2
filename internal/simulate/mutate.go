package simulate

import (
	"context"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/builtinapi"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/matching"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// MutateResult is what the API server does with a request, for one
// mutating policy and binding.
type MutateResult struct {
	// Matched: the policy applies to the request.
	Matched bool
	// Object is the object after the mutations (the request's object when
	// none applies); nil for a request without an object.
	Object *unstructured.Unstructured
	// Allowed is false when the server rejects the request: a mutation that
	// fails under failurePolicy Fail, a missing parameter with Deny.
	Allowed bool
	Message string
	Reason  string
	Code    int32
	// Notes say what the server does with the request that the answer
	// leaves out (the defaults of built-in kinds).
	Notes []string
}

// compileMutating compiles a policy as the server does (k8s.io/apiserver
// pkg/admission/plugin/policy/mutating compilePolicy, which is not
// exported: the same calls, in the same order).
func compileMutating(policy *admissionregistrationv1.MutatingAdmissionPolicy) mutating.PolicyEvaluator {
	opts := cel.OptionalVariableDeclarations{HasParams: policy.Spec.ParamKind != nil, HasAuthorizer: true}
	compiler, err := cel.NewCompositedCompiler(compositionEnv())
	if err != nil {
		return mutating.PolicyEvaluator{Error: err}
	}
	matcher := compileFilters(compiler, opts, policy.Name, policy.Spec.Variables, policy.Spec.MatchConditions, policy.Spec.FailurePolicy)
	var patchers []patch.Patcher
	patchOptions := opts
	patchOptions.HasPatchTypes = true
	for _, m := range policy.Spec.Mutations {
		switch m.PatchType {
		case admissionregistrationv1.PatchTypeJSONPatch:
			if m.JSONPatch != nil {
				patchers = append(patchers, patch.NewJSONPatcher(compiler.CompileMutatingEvaluator(&patch.JSONPatchCondition{Expression: m.JSONPatch.Expression}, patchOptions, environment.StoredExpressions)))
			}
		case admissionregistrationv1.PatchTypeApplyConfiguration:
			if m.ApplyConfiguration != nil {
				patchers = append(patchers, patch.NewApplyConfigurationPatcher(compiler.CompileMutatingEvaluator(&patch.ApplyConfigurationCondition{Expression: m.ApplyConfiguration.Expression}, patchOptions, environment.StoredExpressions)))
			}
		}
	}
	return mutating.PolicyEvaluator{Matcher: matcher, Mutators: patchers, CompositedCompiler: compiler}
}

// typeConverters serves the type converter of a kind: the built-in
// schemas' for a built-in kind (so an apply configuration merges lists by
// their keys, as on the server); for another kind, whose schema only its
// CustomResourceDefinition has, a converter that deduces the type from the
// object (maps merge, lists are replaced whole).
type typeConverters struct{}

func (typeConverters) Run(context.Context) {}

func (typeConverters) GetTypeConverter(gvk schema.GroupVersionKind) managedfields.TypeConverter {
	if tc, err := builtinapi.TypeConverter(); err == nil {
		stub := &unstructured.Unstructured{}
		stub.SetGroupVersionKind(gvk)
		if _, err := tc.ObjectToTyped(stub); err == nil {
			return tc
		}
	}
	return managedfields.NewDeducedTypeConverter()
}

// Mutate says what the API server does with req for policy and binding,
// with k8s.io/apiserver's mutating admission policy dispatcher
// (pkg/admission/plugin/policy/mutating NewDispatcher), reinvoked once
// when the mutations changed the object, as the admission chain's
// reinvocation does (k8s.io/apiserver pkg/admission reinvoker). The binding
// applies to the policy whatever its policy name.
func Mutate(ctx context.Context, policy *MutatingPolicy, binding *MutatingBinding, req *Request) (*MutateResult, error) {
	policy = validation.DefaultMutatingPolicy(policy)
	binding = validation.DefaultMutatingPolicyBinding(binding)
	binding.Spec.PolicyName = policy.Name
	e, err := newEnv(req)
	if err != nil {
		return nil, err
	}
	res := &MutateResult{Allowed: true, Notes: requestNotes(req, false)}
	if req.Object != nil {
		// The object as the server holds it (see typed).
		u, err := unstructuredOf(typed(req.Object), req.Kind)
		if err != nil {
			return nil, err
		}
		res.Object = u
	}
	// Mutating policies handle CREATE, UPDATE and CONNECT only
	// (mutating.NewPlugin's handler).
	if matching.ExcludedFromPolicies(req.Resource.GroupResource()) || req.Operation == admission.Delete {
		return res, nil
	}
	evaluator := mutatingCache.get(policy, func() mutating.PolicyEvaluator { return compileMutating(policy) })
	hook := policyHook(e, policy, binding, evaluator, policy.Spec.ParamKind)
	res.Matched = policyMatches(ctx, e, policy.Spec.MatchConstraints, binding.Spec.MatchResources,
		policy.Spec.ParamKind, binding.Spec.ParamRef, hook, evaluator.Matcher)

	dispatcher := mutating.NewDispatcher(e.authz, e.matcher.PolicyPredicates(), typeConverters{})
	err = dispatcher.Dispatch(ctx, e.attrs, e.objects, []mutating.PolicyHook{hook})
	if rc := e.attrs.GetReinvocationContext(); err == nil && rc.ShouldReinvoke() {
		rc.SetIsReinvoke()
		err = dispatcher.Dispatch(ctx, e.attrs, e.objects, []mutating.PolicyHook{hook})
	}
	if err != nil {
		res.Allowed = false
		res.Message, res.Reason, res.Code = denialOf(err)
		return res, nil
	}
	if obj := e.attrs.GetObject(); obj != nil {
		u, err := unstructuredOf(obj, req.Kind)
		if err != nil {
			return nil, fmt.Errorf("the mutated object: %w", err)
		}
		res.Object = u
	}
	return res, nil
}
