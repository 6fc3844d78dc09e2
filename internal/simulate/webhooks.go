package simulate

import (
	"context"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/matching"
)

// Skipped is a webhook the server does not call, and why.
type Skipped struct {
	Name string
	// Reason is the predicate that leaves the request out (matching.Reason:
	// rules, namespace_selector, object_selector, match_condition,
	// admission_configuration, excluded_resource).
	Reason matching.Reason
	// Detail says more: the match condition's name, the selector.
	Detail string
}

// WebhooksResult is which webhooks of a configuration the server calls for
// a request.
type WebhooksResult struct {
	// Called are the names of the webhooks called, in order (a mutating
	// configuration's webhooks are called one after the other in this
	// order; a validating one's in parallel).
	Called []string
	// Skipped are the other webhooks, in order.
	Skipped []Skipped
	// Rejected, when not empty, is the server's message rejecting the
	// request before any webhook is called: a match condition that failed to
	// evaluate under failurePolicy Fail, a namespace that is not found.
	Rejected string
}

// MatchMutatingWebhooks is MatchWebhooks for a MutatingWebhookConfiguration,
// with the server's defaults applied.
func MatchMutatingWebhooks(ctx context.Context, cfg *admissionregistrationv1.MutatingWebhookConfiguration, req *Request) (*WebhooksResult, error) {
	return MatchWebhooks(ctx, matching.MutatingWebhooks(cfg), req)
}

// MatchValidatingWebhooks is MatchWebhooks for a
// ValidatingWebhookConfiguration, with the server's defaults applied.
func MatchValidatingWebhooks(ctx context.Context, cfg *admissionregistrationv1.ValidatingWebhookConfiguration, req *Request) (*WebhooksResult, error) {
	return MatchWebhooks(ctx, matching.ValidatingWebhooks(cfg), req)
}

// MatchWebhooks says which of hooks the API server calls for req, over
// what the request gives (its namespace, its authorizer): the matcher's
// answer for each (matching.Matcher.Webhook, k8s.io/apiserver's own
// predicates). The first webhook whose predicates fail rejects the request,
// with the server's message; it and those after it count as skipped by a
// match condition.
func MatchWebhooks(ctx context.Context, hooks []matching.Webhook, req *Request) (*WebhooksResult, error) {
	e, err := newEnv(req)
	if err != nil {
		return nil, err
	}
	res := &WebhooksResult{}
	for _, h := range hooks {
		a := e.matcher.Webhook(ctx, h, e.attrs)
		switch a.Outcome {
		case matching.Called:
			res.Called = append(res.Called, h.Name())
		case matching.Failed:
			if res.Rejected == "" {
				res.Rejected = a.Err.ErrStatus.Message
			}
			res.Skipped = append(res.Skipped, Skipped{Name: h.Name(), Reason: matching.SkippedByMatchCondition, Detail: a.Err.ErrStatus.Message})
		default:
			res.Skipped = append(res.Skipped, Skipped{Name: h.Name(), Reason: a.Reason, Detail: a.Detail})
		}
	}
	return res, nil
}

// MatchConfiguration is MatchMutatingWebhooks or MatchValidatingWebhooks,
// whichever of the two is not nil.
func MatchConfiguration(ctx context.Context, m *admissionregistrationv1.MutatingWebhookConfiguration, v *admissionregistrationv1.ValidatingWebhookConfiguration, req *Request) (*WebhooksResult, error) {
	if m != nil {
		return MatchMutatingWebhooks(ctx, m, req)
	}
	return MatchValidatingWebhooks(ctx, v, req)
}
