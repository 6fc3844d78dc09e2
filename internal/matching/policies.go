package matching

import (
	"context"
	"errors"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// PolicyBinding is an admission policy with one of its bindings, as the matcher reads them.
type PolicyBinding struct {
	// Constraints are the policy's matchConstraints, Resources the binding's matchResources
	// (nil: the policy's alone), both read with the server's defaults.
	Constraints, Resources *admissionregistrationv1.MatchResources
	// Conditions are the policy's match conditions, compiled (CompilePolicyConditions, or as
	// the policy plugin compiles the whole policy); nil when it has none.
	Conditions matchconditions.Matcher
	// Params is the parameter the match conditions see, nil for none.
	Params runtime.Object
}

// PolicyAnswer is whether the server evaluates a policy through a binding for one request.
type PolicyAnswer struct {
	Outcome Outcome
	// Resource and Kind are what the policy sees (Called, and after PolicyResources): those of
	// the request, or of the equivalent resource a rule names.
	Resource schema.GroupVersionResource
	Kind     schema.GroupVersionKind
	// FailedCondition is the match condition that left the request out (NotCalled).
	FailedCondition string
	// Err says why asking failed (Failed).
	Err error
}

// Policy says whether the server evaluates the policy of p through its binding for attr:
// PolicyResources, then, when the policy has match conditions, PolicyConditions.
func (m *Matcher) Policy(ctx context.Context, p PolicyBinding, attr admission.Attributes) PolicyAnswer {
	a := m.PolicyResources(attr, p.Constraints, p.Resources)
	if a.Outcome != Called || p.Conditions == nil {
		return a
	}
	return m.PolicyConditions(ctx, p.Conditions, attr, a, p.Params)
}

// PolicyResources says whether the policy's match constraints and then the binding's match
// resources (nil: none) take attr, as the policy dispatchers ask them
// (k8s.io/apiserver pkg/admission/plugin/policy/generic PolicyMatcher.DefinitionMatches and
// BindingMatches, over pkg/admission/plugin/policy/matching Matcher.Matches: namespace and
// object selectors, excluded rules, rules with the match policy), after the exclusions
// (ExcludedFromPolicies). A policy without match constraints fails, as on the server.
func (m *Matcher) PolicyResources(attr admission.Attributes, constraints, resources *admissionregistrationv1.MatchResources) PolicyAnswer {
	if ExcludedFromPolicies(attr.GetResource().GroupResource()) {
		return PolicyAnswer{Outcome: NotCalled}
	}
	if constraints == nil {
		return PolicyAnswer{Outcome: Failed, Err: errNoConstraints}
	}
	var resource schema.GroupVersionResource
	var kind schema.GroupVersionKind
	for i, mr := range []*admissionregistrationv1.MatchResources{constraints, resources} {
		if mr == nil {
			continue
		}
		ok, r, k, err := m.policies.Matches(attr, m.objects, newCriteria(mr))
		switch {
		case err != nil:
			return PolicyAnswer{Outcome: Failed, Err: err}
		case !ok:
			return PolicyAnswer{Outcome: NotCalled}
		case i == 0: // the policy's match constraints say how it sees the request
			resource, kind = r, k
		}
	}
	return PolicyAnswer{Outcome: Called, Resource: resource, Kind: kind}
}

// errNoConstraints is the server's error for a policy without match constraints
// (PolicyMatcher.DefinitionMatches).
var errNoConstraints = errors.New("policy contained no match constraints, a required field")

// PolicyConditions evaluates a policy's compiled match conditions on attr, seen as matched
// says (PolicyResources' answer), with params (nil: none) and the matcher's authorizer, as the
// policy dispatchers do: a condition that fails to evaluate under failurePolicy Fail is Failed.
func (m *Matcher) PolicyConditions(ctx context.Context, conditions matchconditions.Matcher, attr admission.Attributes, matched PolicyAnswer,
	params runtime.Object) PolicyAnswer {
	va, err := m.versioned(attr, matched.Kind)
	if err != nil {
		return PolicyAnswer{Outcome: Failed, Err: err}
	}
	r := conditions.Match(ctx, va, params, m.authorizer)
	switch {
	case r.Error != nil:
		return PolicyAnswer{Outcome: Failed, Err: r.Error}
	case !r.Matches:
		return PolicyAnswer{Outcome: NotCalled, FailedCondition: r.FailedConditionName}
	}
	return matched
}

// CompilePolicyConditions compiles a policy's match conditions as the policy plugins do (their
// compilePolicy: params declared when the policy has a paramKind, and the authorizer), in the
// server's base environment, with failurePolicy deciding what an evaluation error does; kind
// ("validating", "mutating") and name name the policy in the server's metrics. Nil when there
// are none.
func CompilePolicyConditions(conditions []admissionregistrationv1.MatchCondition, hasParams bool,
	failurePolicy *admissionregistrationv1.FailurePolicyType, kind, name string) matchconditions.Matcher {
	if len(conditions) == 0 {
		return nil
	}
	accessors := make([]cel.ExpressionAccessor, len(conditions))
	for i, c := range conditions {
		accessors[i] = &matchconditions.MatchCondition{Name: c.Name, Expression: c.Expression}
	}
	filter := conditionCompiler().CompileCondition(accessors, cel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true},
		environment.StoredExpressions)
	return matchconditions.NewMatcher(filter, failurePolicy, "policy", kind, name)
}

// criteria is match resources as the server's policy matcher reads them
// (policymatching.MatchCriteria), with the server's defaults (validation.DefaultMatchResources).
type criteria struct {
	m admissionregistrationv1.MatchResources
}

func newCriteria(mr *admissionregistrationv1.MatchResources) criteria {
	return criteria{*validation.DefaultMatchResources(mr)}
}

func (c criteria) GetParsedNamespaceSelector() (labels.Selector, error) {
	return metav1.LabelSelectorAsSelector(c.m.NamespaceSelector)
}

func (c criteria) GetParsedObjectSelector() (labels.Selector, error) {
	return metav1.LabelSelectorAsSelector(c.m.ObjectSelector)
}

func (c criteria) GetMatchResources() admissionregistrationv1.MatchResources { return c.m }
