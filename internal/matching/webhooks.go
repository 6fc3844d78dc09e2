package matching

import (
	"context"
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/webhook"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/namespace"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/object"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// Outcome is what the server does with an admission hook for one request.
type Outcome int

const (
	// NotCalled: the hook's selectors, rules or match conditions leave the request out, or the
	// server never shows such requests to admission hooks.
	NotCalled Outcome = iota
	// Called: the server calls the webhook, or evaluates the policy.
	Called
	// Failed: asking failed, and the server rejects the request without calling the hook (Err
	// says why): a namespace that cannot be read, a selector that does not parse, a match
	// condition that fails to evaluate under failurePolicy Fail. Offline, where the request is
	// synthetic, it means the matcher cannot tell.
	Failed
)

// Reason is why a webhook is not called: the predicate that leaves the request out.
type Reason string

// The reasons, in the order ShouldCallHook asks its predicates (after the exclusions).
const (
	SkippedByRules             Reason = "rules"
	SkippedByNamespaceSelector Reason = "namespace_selector"
	SkippedByObjectSelector    Reason = "object_selector"
	SkippedByMatchCondition    Reason = "match_condition"
	// SkippedAdmissionConfiguration: the server never calls webhooks for webhook
	// configurations, admission policies and their bindings.
	SkippedAdmissionConfiguration Reason = "admission_configuration"
	// SkippedExcludedResource: the server never calls webhooks for the virtual review
	// resources (tokenreviews, subjectaccessreviews, ...: validation.ExcludedFromAdmission).
	SkippedExcludedResource Reason = "excluded_resource"
)

// Webhook is one webhook of a configuration as the server's webhook plugin holds it (its
// accessor), with the server's defaults (validation.Default).
type Webhook struct {
	// whole is the webhook; bare is the same without its match conditions, which Matcher.Webhook
	// evaluates itself.
	whole, bare webhook.WebhookAccessor
}

// Name is the webhook's name.
func (w Webhook) Name() string { return w.whole.GetName() }

// Accessor is the webhook as the server's webhook plugin reads it.
func (w Webhook) Accessor() webhook.WebhookAccessor { return w.whole }

// MutatingWebhooks are the webhooks of cfg, with the server's defaults, in order.
func MutatingWebhooks(cfg *admissionregistrationv1.MutatingWebhookConfiguration) []Webhook {
	cfg = validation.Default(cfg)
	return webhooksOf(cfg.Name, cfg.Webhooks, webhook.NewMutatingWebhookAccessor,
		func(h *admissionregistrationv1.MutatingWebhook) (string, *[]admissionregistrationv1.MatchCondition) {
			return h.Name, &h.MatchConditions
		})
}

// ValidatingWebhooks are the webhooks of cfg, with the server's defaults, in order.
func ValidatingWebhooks(cfg *admissionregistrationv1.ValidatingWebhookConfiguration) []Webhook {
	cfg = validation.DefaultValidating(cfg)
	return webhooksOf(cfg.Name, cfg.Webhooks, webhook.NewValidatingWebhookAccessor,
		func(h *admissionregistrationv1.ValidatingWebhook) (string, *[]admissionregistrationv1.MatchCondition) {
			return h.Name, &h.MatchConditions
		})
}

// webhooksOf are the webhooks hooks of the configuration named config, each as the accessor
// of the plugin reads it, whole and bare (a copy without its match conditions); fields gives a
// webhook's name and its match conditions.
func webhooksOf[H any, P interface {
	*H
	DeepCopy() *H
}](config string, hooks []H, accessor func(uid, config string, h P) webhook.WebhookAccessor,
	fields func(P) (string, *[]admissionregistrationv1.MatchCondition)) []Webhook {
	out := make([]Webhook, len(hooks))
	for i := range hooks {
		whole := P(&hooks[i])
		bare := P(whole.DeepCopy())
		_, conditions := fields(bare)
		*conditions = nil
		name, _ := fields(whole)
		uid := webhookUID(config, name, i)
		out[i] = Webhook{accessor(uid, config, whole), accessor(uid, config, bare)}
	}
	return out
}

// webhookUID names a webhook among all, as the plugin's configuration source does
// (k8s.io/apiserver pkg/admission/configuration: the configuration's name and the index).
func webhookUID(config, name string, i int) string { return fmt.Sprintf("%s/%s/%d", config, name, i) }

// WebhookAnswer is whether the server calls one webhook for one request.
type WebhookAnswer struct {
	Outcome Outcome
	// Reason and Detail say why a webhook is not called (NotCalled): the predicate, and the
	// selector, the failed match condition's name, or the request that no rule names.
	Reason Reason
	Detail string
	// Err is the server's rejection of the request (Failed).
	Err *apierrors.StatusError
	// Resource and Kind are what the webhook is called with (Called): those of the request,
	// or of the equivalent resource a rule names.
	Resource schema.GroupVersionResource
	Kind     schema.GroupVersionKind
}

// Webhook says whether the server calls w for attr: the exclusions (excluded.go), then
// k8s.io/apiserver's generic.Webhook.ShouldCallHook on its namespace and object selectors and
// its rules with its match policy, then its match conditions, evaluated as ShouldCallHook
// evaluates them (the accessor's compiled matcher, the matcher's authorizer) but asked here,
// so that a condition that fails on a synthetic request is an answer (Failed, with the
// server's Forbidden error) rather than the plugin's log line of a failing request. The
// reason a webhook is not called is told by asking the same predicates one at a time, in
// ShouldCallHook's order.
func (m *Matcher) Webhook(ctx context.Context, w Webhook, attr admission.Attributes) WebhookAnswer {
	if reason, detail, ok := excludedFromWebhooks(attr, m.version); ok {
		return WebhookAnswer{Outcome: NotCalled, Reason: reason, Detail: detail}
	}
	plugin, err := m.webhooks()
	if err != nil {
		return WebhookAnswer{Outcome: Failed, Err: apierrors.NewInternalError(err)}
	}
	inv, serr := plugin.ShouldCallHook(ctx, w.bare, attr, m.objects, versionedAccessor{m, attr})
	switch {
	case serr != nil:
		return WebhookAnswer{Outcome: Failed, Err: serr}
	case inv == nil:
		return m.whySkipped(w.bare, attr)
	}
	called := WebhookAnswer{Outcome: Called, Resource: inv.Resource, Kind: inv.Kind}
	if len(w.whole.GetMatchConditions()) == 0 {
		return called
	}
	va, err := m.versioned(attr, inv.Kind)
	if err != nil {
		return WebhookAnswer{Outcome: Failed, Err: apierrors.NewInternalError(err)}
	}
	r := w.whole.GetCompiledMatcher(conditionCompiler()).Match(ctx, va, nil, m.authorizer)
	switch {
	case r.Error != nil:
		return WebhookAnswer{Outcome: Failed, Err: apierrors.NewForbidden(attr.GetResource().GroupResource(), attr.GetName(), r.Error)}
	case r.Matches:
		return called
	case r.FailedConditionName != "":
		return WebhookAnswer{Outcome: NotCalled, Reason: SkippedByMatchCondition, Detail: r.FailedConditionName}
	}
	return WebhookAnswer{Outcome: NotCalled, Reason: SkippedByMatchCondition, Detail: "a match condition failed to evaluate and failure_policy is Ignore"}
}

// whySkipped names the predicate of ShouldCallHook that leaves attr out for h (without match
// conditions, which ShouldCallHook then did not ask): a selector that does not take it, else
// the rules.
func (m *Matcher) whySkipped(h webhook.WebhookAccessor, attr admission.Attributes) WebhookAnswer {
	ns := &namespace.Matcher{NamespaceLister: m.namespaces.Lister(), Client: m.namespaces.Client()}
	if ok, err := ns.MatchNamespaceSelector(h, attr); !ok && err == nil {
		return WebhookAnswer{Outcome: NotCalled, Reason: SkippedByNamespaceSelector, Detail: selectorString(h.GetNamespaceSelector())}
	}
	if ok, err := (&object.Matcher{}).MatchObjectSelector(h, attr); !ok && err == nil {
		return WebhookAnswer{Outcome: NotCalled, Reason: SkippedByObjectSelector, Detail: selectorString(h.GetObjectSelector())}
	}
	return WebhookAnswer{Outcome: NotCalled, Reason: SkippedByRules,
		Detail: fmt.Sprintf("no rule matches %s %s", attr.GetOperation(), resourceString(attr.GetResource(), attr.GetSubresource()))}
}

func resourceString(r schema.GroupVersionResource, sub string) string {
	s := r.Resource
	if sub != "" {
		s += "/" + sub
	}
	if r.Group != "" {
		return r.Group + "/" + r.Version + " " + s
	}
	return r.Version + " " + s
}

func selectorString(sel *metav1.LabelSelector) string {
	return strings.TrimSpace(metav1.FormatLabelSelector(sel))
}
