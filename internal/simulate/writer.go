package simulate

import (
	"context"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/interpreter"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/generic"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/matching"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// Who writes an object next is not always known (the impact of a policy on the objects a
// cluster runs): a policy that reads request.userInfo or calls the authorizer may answer
// otherwise for each writer, yet often does not (`!(has(object.metadata.labels.protected) &&
// request.userInfo.username != "admin")` on an object without the label). The writer is then
// left unknown, with CEL's partial evaluation (cel-go cel.OptPartialEval): the server's own
// compilers and dispatcher run over programs that evaluate request.userInfo and the
// authorizers to an unknown, and an expression whose result is such an unknown is one whose
// answer turns on the writer. Everything else is the server's evaluation unchanged.

// writerUnknowns are the attributes of the writer: request.userInfo, and the authorizers
// (k8s.io/apiserver pkg/admission/plugin/cel AuthorizerVarName, RequestResourceAuthorizerVarName),
// whose checks are of the writer.
var writerUnknowns = sync.OnceValue(func() interpreter.PartialActivation {
	a, err := interpreter.NewPartialActivation(map[string]any{},
		interpreter.NewAttributePattern(plugincel.RequestVarName).QualString("userInfo"),
		interpreter.NewAttributePattern(plugincel.AuthorizerVarName),
		interpreter.NewAttributePattern(plugincel.RequestResourceAuthorizerVarName))
	if err != nil {
		panic(err)
	}
	return a
})

// writerUnknownEnv is the server's composition environment (compositionEnv) whose programs
// evaluate partially, the writer's attributes unknown: the program options of an EnvSet apply
// to every program compiled in it, and the globals are the parent of the dispatcher's
// activation, where cel-go looks for the unknown patterns (interpreter.AsPartialActivation).
var writerUnknownEnv = sync.OnceValue(func() *environment.EnvSet {
	env, err := compositionEnv().Extend(environment.VersionedOptions{
		IntroducedVersion: version.MajorMinor(1, 0),
		ProgramOptions:    []cel.ProgramOption{cel.EvalOptions(cel.OptPartialEval), cel.Globals(writerUnknowns())},
	})
	if err != nil {
		panic(err)
	}
	return env
})

// unknownSeen records, for one evaluation, whether an expression whose result decides (a
// match condition, a validation) evaluated to an unknown.
type unknownSeen struct {
	mu   sync.Mutex
	seen bool
}

type unknownSeenKey struct{}

// trackedConditions are a policy's compiled conditions whose results are looked at for an
// unknown, recorded in the unknownSeen of the evaluation's context.
type trackedConditions struct {
	plugincel.ConditionEvaluator
}

func (t trackedConditions) ForInput(ctx context.Context, versionedAttr *admission.VersionedAttributes, request *admissionv1.AdmissionRequest,
	inputs plugincel.OptionalVariableBindings, namespace *corev1.Namespace, budget int64) ([]plugincel.EvaluationResult, int64, error) {
	results, left, err := t.ConditionEvaluator.ForInput(ctx, versionedAttr, request, inputs, namespace, budget)
	if s, ok := ctx.Value(unknownSeenKey{}).(*unknownSeen); ok {
		for _, r := range results {
			if r.EvalResult != nil && types.IsUnknown(r.EvalResult) {
				s.mu.Lock()
				s.seen = true
				s.mu.Unlock()
			}
		}
	}
	return results, left, err
}

// tracked wraps the conditions of a composited compiler's evaluator (the variables stay
// composed: the wrapped evaluator is the inner one).
func tracked(e plugincel.ConditionEvaluator) plugincel.ConditionEvaluator {
	if c, ok := e.(*plugincel.CompositedConditionEvaluator); ok {
		c.ConditionEvaluator = trackedConditions{c.ConditionEvaluator}
		return c
	}
	return trackedConditions{e}
}

var writerUnknownCache compileCache[compiledValidating]

// ValidateWriterUnknown is Validate with the writer left unknown (req.UserInfo is not read by
// the expressions): Depends reports whether the answer turns on the writer, and the result is
// then not the server's answer for every writer; otherwise it is.
func ValidateWriterUnknown(ctx context.Context, policy *ValidatingPolicy, binding *ValidatingBinding, req *Request) (res *ValidateResult, depends bool, err error) {
	policy = validation.DefaultValidatingPolicy(policy)
	binding = validation.DefaultValidatingPolicyBinding(binding)
	binding.Spec.PolicyName = policy.Name
	e, err := newEnv(req)
	if err != nil {
		return nil, false, err
	}
	res = &ValidateResult{Allowed: true, AuditAnnotations: map[string]string{}, Notes: requestNotes(req, true)}
	if matching.ExcludedFromPolicies(req.Resource.GroupResource()) {
		return res, false, nil
	}
	compiled := writerUnknownCache.get(policy, func() compiledValidating { return compileValidatingIn(policy, writerUnknownEnv(), tracked) })
	hook := policyHook(e, policy, binding, compiled.validator, policy.Spec.ParamKind)
	seen := &unknownSeen{}
	ctx = context.WithValue(ctx, unknownSeenKey{}, seen)
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
	seen.mu.Lock()
	defer seen.mu.Unlock()
	return res, seen.seen, nil
}
