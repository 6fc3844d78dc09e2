package simulate

import (
	"context"
	"encoding/json"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/matching"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// The kinds of the steps of admit's trace.
const (
	StepMutatingPolicy    = "MutatingAdmissionPolicy"
	StepMutatingWebhook   = "MutatingWebhook"
	StepValidatingPolicy  = "ValidatingAdmissionPolicy"
	StepValidatingWebhook = "ValidatingWebhook"
)

// The outcomes of a step.
const (
	// OutcomeNotMatched: the hook does not apply (its rules, selectors or
	// match conditions); Reason says which when it is known.
	OutcomeNotMatched = "not_matched"
	// OutcomeMutated, OutcomeUnchanged: a mutation (a policy's, or a
	// webhook's patch) that changed the object, or did not.
	OutcomeMutated   = "mutated"
	OutcomeUnchanged = "unchanged"
	// OutcomeAdmitted, OutcomeWarned, OutcomeDenied: a validation's verdict.
	OutcomeAdmitted = "admitted"
	OutcomeWarned   = "warned"
	OutcomeDenied   = "denied"
	// OutcomeFailed: the hook failed (an expression that fails to evaluate,
	// a call that fails); its failure policy decides what the request gets.
	OutcomeFailed = "failed"
	// OutcomeUnanswered: a webhook called with no answer given; it is taken
	// to allow with no patch, and what depends on it is unknown.
	OutcomeUnanswered = "unanswered"
)

// Step is one thing the admission chain did with the request.
type Step struct {
	// Kind is one of the Step* constants.
	Kind string
	// Name is the policy's or the webhook's; Binding the policy's binding,
	// Configuration the webhook's configuration.
	Name          string
	Binding       string
	Configuration string
	// Round is 1, or 2 when the chain is reinvoked.
	Round int
	// Mutation is the index of a policy's mutation.
	Mutation int
	// Outcome is one of the Outcome* constants; Reason and Detail say why a
	// hook did not apply (matching.Reason), Message what a denial or a
	// failure said.
	Outcome string
	Reason  string
	Detail  string
	Message string
	// Patch is what the step changed: a JSON merge patch from the object
	// before to after a policy's mutation, or the JSON patch a webhook
	// answered.
	Patch any
}

// trace records the steps of one run of the chain; the plugins find it in
// the request's context.
type trace struct {
	steps []Step
	round int
	// unansweredMutating and unansweredValidating are the webhooks called
	// with no answer.
	unansweredMutating, unansweredValidating []string
	// lastValidation is the last result of a validating policy's validator.
	lastValidation *validating.ValidateResult
	// called are the webhooks called, by index.
	called map[int]bool
}

type traceKey struct{}

func withTrace(ctx context.Context, t *trace) context.Context {
	return context.WithValue(ctx, traceKey{}, t)
}

// traceFrom is the context's trace, or one that is thrown away.
func traceFrom(ctx context.Context) *trace {
	if t, ok := ctx.Value(traceKey{}).(*trace); ok {
		return t
	}
	return &trace{}
}

func (t *trace) add(s Step) {
	if s.Round == 0 {
		s.Round = max(t.round, 1)
	}
	t.steps = append(t.steps, s)
}

// webhookCalled records a call of h, answered with a (nil: unanswered).
func (t *trace) webhookCalled(h *offlineWebhook, _ map[string]any, a *WebhookAnswer) {
	if t.called == nil {
		t.called = map[int]bool{}
	}
	t.called[h.index] = true
	s := Step{Kind: StepValidatingWebhook, Name: h.name, Configuration: h.configuration}
	if h.mutating {
		s.Kind = StepMutatingWebhook
	}
	switch {
	case a == nil:
		s.Outcome = OutcomeUnanswered
		if h.mutating {
			t.unansweredMutating = append(t.unansweredMutating, h.configuration+"/"+h.name)
		} else {
			t.unansweredValidating = append(t.unansweredValidating, h.configuration+"/"+h.name)
		}
	case a.CallError != "":
		s.Outcome, s.Message = OutcomeFailed, a.CallError
	case !a.Allowed:
		s.Outcome, s.Message = OutcomeDenied, a.Message
	case len(a.Patch) > 0:
		s.Outcome = OutcomeMutated
		var p any
		if json.Unmarshal(a.Patch, &p) == nil {
			s.Patch = p
		}
	default:
		s.Outcome = OutcomeAdmitted
		if len(a.Warnings) > 0 {
			s.Outcome = OutcomeWarned
		}
	}
	t.add(s)
}

// unit is one policy with one of its bindings: what the server orders.
type unit struct {
	policy, binding string
}

// label names the unit in an order: the policy, and its binding where the
// policy has several.
func (u unit) label(several bool) string {
	if several {
		return u.policy + "/" + u.binding
	}
	return u.policy
}

// tracedPatcher records the mutations of a mutating policy.
type tracedPatcher struct {
	inner patch.Patcher
	unit  unit
	index int
}

func (p tracedPatcher) Patch(ctx context.Context, r patch.Request, budget int64) (runtime.Object, error) {
	var before runtime.Object
	if r.VersionedAttributes != nil {
		before = r.VersionedAttributes.VersionedObject.Object()
	}
	out, err := p.inner.Patch(ctx, r, budget)
	s := Step{Kind: StepMutatingPolicy, Name: p.unit.policy, Binding: p.unit.binding, Mutation: p.index}
	switch {
	case err != nil:
		s.Outcome, s.Message = OutcomeFailed, err.Error()
	default:
		s.Patch = mergePatch(before, out)
		s.Outcome = OutcomeMutated
		if s.Patch == nil {
			s.Outcome = OutcomeUnchanged
		}
	}
	traceFrom(ctx).add(s)
	return out, err
}

// mergePatch is the JSON merge patch from before to after, nil when they are
// the same (or cannot be told apart).
func mergePatch(before, after runtime.Object) any {
	if before == nil || after == nil {
		return nil
	}
	a, err1 := json.Marshal(before)
	b, err2 := json.Marshal(after)
	if err1 != nil || err2 != nil {
		return nil
	}
	p, err := jsonpatch.CreateMergePatch(a, b)
	if err != nil {
		return nil
	}
	var tree map[string]any
	if json.Unmarshal(p, &tree) != nil || len(tree) == 0 {
		return nil
	}
	return tree
}

// tracedConditions records a policy's match conditions that leave the
// request out, or fail.
type tracedConditions struct {
	inner matchconditions.Matcher
	unit  unit
	kind  string
}

func (c tracedConditions) Match(ctx context.Context, va *admission.VersionedAttributes, params runtime.Object, authz authorizer.UnconditionalAuthorizer) matchconditions.MatchResult {
	r := c.inner.Match(ctx, va, params, authz)
	switch {
	case r.Error != nil:
		traceFrom(ctx).add(Step{Kind: c.kind, Name: c.unit.policy, Binding: c.unit.binding, Outcome: OutcomeFailed, Message: r.Error.Error()})
	case !r.Matches:
		traceFrom(ctx).add(Step{Kind: c.kind, Name: c.unit.policy, Binding: c.unit.binding, Outcome: OutcomeNotMatched,
			Reason: string(matching.SkippedByMatchCondition), Detail: r.FailedConditionName})
	}
	return r
}

// tracedValidator keeps the last result of a validating policy's validator.
type tracedValidator struct{ inner validating.Validator }

func (v tracedValidator) Validate(ctx context.Context, matched schema.GroupVersionResource, va *admission.VersionedAttributes, params runtime.Object,
	ns *corev1.Namespace, budget int64, authz authorizer.UnconditionalAuthorizer) validating.ValidateResult {
	r := v.inner.Validate(ctx, matched, va, params, ns, budget, authz)
	traceFrom(ctx).lastValidation = &r
	return r
}

func (v tracedValidator) CompileError() error { return v.inner.CompileError() }
