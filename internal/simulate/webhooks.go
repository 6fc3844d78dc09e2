package simulate

import (
	"context"
	"fmt"
	"strings"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/generic"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/namespace"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/object"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/rules"
	"k8s.io/apiserver/pkg/cel/environment"
	webhookutil "k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/client-go/informers"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// Why a webhook is not called: the predicate that excluded it.
const (
	SkippedByRules             = "rules"
	SkippedByNamespaceSelector = "namespace_selector"
	SkippedByObjectSelector    = "object_selector"
	SkippedByMatchCondition    = "match_condition"
	// SkippedAdmissionConfiguration: the server never calls webhooks for
	// webhook configurations, admission policies and their bindings.
	SkippedAdmissionConfiguration = "admission_configuration"
	// SkippedExcludedResource: the server never calls webhooks for the
	// virtual review resources (tokenreviews, subjectaccessreviews, ...:
	// validation.ExcludedFromAdmission).
	SkippedExcludedResource = "excluded_resource"
)

// Skipped is a webhook the server does not call, and why.
type Skipped struct {
	Name string
	// Reason is one of the Skipped* constants.
	Reason string
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
	cfg = validation.Default(cfg)
	hooks := make([]webhook.WebhookAccessor, len(cfg.Webhooks))
	for i := range cfg.Webhooks {
		hooks[i] = webhook.NewMutatingWebhookAccessor(fmt.Sprintf("%s/%s/%d", cfg.Name, cfg.Webhooks[i].Name, i), cfg.Name, &cfg.Webhooks[i])
	}
	return MatchWebhooks(ctx, hooks, req)
}

// MatchValidatingWebhooks is MatchWebhooks for a
// ValidatingWebhookConfiguration, with the server's defaults applied.
func MatchValidatingWebhooks(ctx context.Context, cfg *admissionregistrationv1.ValidatingWebhookConfiguration, req *Request) (*WebhooksResult, error) {
	cfg = defaultValidating(cfg)
	hooks := make([]webhook.WebhookAccessor, len(cfg.Webhooks))
	for i := range cfg.Webhooks {
		hooks[i] = webhook.NewValidatingWebhookAccessor(fmt.Sprintf("%s/%s/%d", cfg.Name, cfg.Webhooks[i].Name, i), cfg.Name, &cfg.Webhooks[i])
	}
	return MatchWebhooks(ctx, hooks, req)
}

// MatchWebhooks says which of hooks (defaulted, as the server stores them)
// the API server calls for req. The verdict for each is k8s.io/apiserver's
// own (pkg/admission/plugin/webhook/generic Webhook.ShouldCallHook: the
// namespace and object selectors, the rules with the match policy, the
// match conditions); the reason a webhook is skipped is told by asking the
// same predicates one at a time, in ShouldCallHook's order.
func MatchWebhooks(ctx context.Context, hooks []webhook.WebhookAccessor, req *Request) (*WebhooksResult, error) {
	e := newEnv(req)
	res := &WebhooksResult{}
	if rules.IsExemptAdmissionConfigurationResource(e.attrs) {
		for _, h := range hooks {
			res.Skipped = append(res.Skipped, Skipped{Name: h.GetName(), Reason: SkippedAdmissionConfiguration,
				Detail: "the API server does not call webhooks for " + req.Kind.Kind + " objects"})
		}
		return res, nil
	}
	if gr := e.attrs.GetResource().GroupResource(); validation.ExcludedFromAdmission(gr) {
		for _, h := range hooks {
			res.Skipped = append(res.Skipped, Skipped{Name: h.GetName(), Reason: SkippedExcludedResource,
				Detail: "the API server does not call webhooks for " + gr.String()})
		}
		return res, nil
	}
	wh, err := generic.NewWebhook(admission.NewHandler(admission.Create, admission.Update, admission.Delete, admission.Connect), nil,
		nil, func(*webhookutil.ClientManager) generic.Dispatcher { return nil })
	if err != nil {
		return nil, err
	}
	wh.SetExternalKubeClientSet(e.client)
	wh.SetExternalKubeInformerFactory(informers.NewSharedInformerFactory(e.client, 0))
	wh.SetUnconditionalAuthorizer(e.authz)
	nsMatcher := &namespace.Matcher{NamespaceLister: e.namespaces, Client: e.client}
	versioned := versionedAccessor{attrs: e.attrs, objects: e.objects}
	for _, h := range hooks {
		invocation, statusErr := wh.ShouldCallHook(ctx, h, e.attrs, e.objects, versioned)
		if statusErr != nil {
			if res.Rejected == "" {
				res.Rejected = statusErr.ErrStatus.Message
			}
			res.Skipped = append(res.Skipped, Skipped{Name: h.GetName(), Reason: SkippedByMatchCondition, Detail: statusErr.ErrStatus.Message})
			continue
		}
		if invocation != nil {
			res.Called = append(res.Called, h.GetName())
			continue
		}
		res.Skipped = append(res.Skipped, whySkipped(ctx, h, e, nsMatcher, versioned))
	}
	return res, nil
}

// whySkipped names the predicate of ShouldCallHook that excludes h.
func whySkipped(ctx context.Context, h webhook.WebhookAccessor, e *env, ns *namespace.Matcher, versioned versionedAccessor) Skipped {
	s := Skipped{Name: h.GetName()}
	if ok, err := ns.MatchNamespaceSelector(h, e.attrs); !ok && err == nil {
		s.Reason, s.Detail = SkippedByNamespaceSelector, selectorString(h.GetNamespaceSelector())
		return s
	}
	if ok, err := (&object.Matcher{}).MatchObjectSelector(h, e.attrs); !ok && err == nil {
		s.Reason, s.Detail = SkippedByObjectSelector, selectorString(h.GetObjectSelector())
		return s
	}
	kind, matched := ruleMatch(h, e)
	if !matched {
		s.Reason = SkippedByRules
		s.Detail = fmt.Sprintf("no rule matches %s %s", e.attrs.GetOperation(), resourceString(e.attrs.GetResource(), e.attrs.GetSubresource()))
		return s
	}
	s.Reason = SkippedByMatchCondition
	if mcs := h.GetMatchConditions(); len(mcs) > 0 {
		va, err := versioned.VersionedAttribute(kind)
		if err == nil {
			matcher := h.GetCompiledMatcher(webhookConditionCompiler())
			if r := matcher.Match(ctx, va, nil, e.authz); !r.Matches && r.FailedConditionName != "" {
				s.Detail = r.FailedConditionName
			} else if r.Error == nil && !r.Matches {
				s.Detail = "a match condition failed to evaluate and failure_policy is Ignore"
			}
		}
	}
	return s
}

// ruleMatch is whether a rule of h matches the request, directly or, with
// match policy Equivalent, through an equivalent resource; and the kind it
// is matched as.
func ruleMatch(h webhook.WebhookAccessor, e *env) (schema.GroupVersionKind, bool) {
	for _, r := range h.GetRules() {
		if (&rules.Matcher{Rule: r, Attr: e.attrs}).Matches() {
			return e.attrs.GetKind(), true
		}
	}
	if mp := h.GetMatchPolicy(); mp != nil && *mp == admissionregistrationv1.Equivalent {
		mapper := e.objects.GetEquivalentResourceMapper()
		for _, r := range h.GetRules() {
			for _, eq := range mapper.EquivalentResourcesFor(e.attrs.GetResource(), e.attrs.GetSubresource()) {
				if (&rules.Matcher{Rule: r, Attr: &resourceOverride{Attributes: e.attrs, resource: eq}}).Matches() {
					return mapper.KindFor(eq, e.attrs.GetSubresource()), true
				}
			}
		}
	}
	return schema.GroupVersionKind{}, false
}

type resourceOverride struct {
	admission.Attributes
	resource schema.GroupVersionResource
}

func (a *resourceOverride) GetResource() schema.GroupVersionResource { return a.resource }

type versionedAccessor struct {
	attrs   admission.Attributes
	objects admission.ObjectInterfaces
}

func (v versionedAccessor) VersionedAttribute(gvk schema.GroupVersionKind) (*admission.VersionedAttributes, error) {
	return admission.NewVersionedAttributes(v.attrs, gvk, v.objects)
}

func resourceString(r schema.GroupVersionResource, sub string) string {
	s := r.Resource
	if sub != "" {
		s += "/" + sub
	}
	if r.Group != "" {
		s = r.Group + "/" + r.Version + " " + s
	} else {
		s = r.Version + " " + s
	}
	return s
}

func selectorString(sel *metav1.LabelSelector) string {
	return strings.TrimSpace(metav1.FormatLabelSelector(sel))
}

// webhookConditionCompiler is the compiler of webhook match conditions
// (generic.NewWebhook's filterCompiler).
var webhookConditionCompiler = sync.OnceValue(func() cel.ConditionCompiler {
	return cel.NewConditionCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
})

// defaultValidating applies the server's defaults to a validating
// configuration: those of a mutating one (validation.Default), but the
// reinvocation policy that validating webhooks do not have.
func defaultValidating(cfg *admissionregistrationv1.ValidatingWebhookConfiguration) *admissionregistrationv1.ValidatingWebhookConfiguration {
	m := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: cfg.ObjectMeta}
	for _, h := range cfg.Webhooks {
		m.Webhooks = append(m.Webhooks, admissionregistrationv1.MutatingWebhook{
			Name: h.Name, ClientConfig: h.ClientConfig, Rules: h.Rules, FailurePolicy: h.FailurePolicy, MatchPolicy: h.MatchPolicy,
			NamespaceSelector: h.NamespaceSelector, ObjectSelector: h.ObjectSelector, SideEffects: h.SideEffects, TimeoutSeconds: h.TimeoutSeconds,
			AdmissionReviewVersions: h.AdmissionReviewVersions, MatchConditions: h.MatchConditions,
		})
	}
	m = validation.Default(m)
	out := cfg.DeepCopy()
	for i, h := range m.Webhooks {
		w := &out.Webhooks[i]
		w.ClientConfig, w.Rules, w.FailurePolicy, w.MatchPolicy = h.ClientConfig, h.Rules, h.FailurePolicy, h.MatchPolicy
		w.NamespaceSelector, w.ObjectSelector, w.TimeoutSeconds = h.NamespaceSelector, h.ObjectSelector, h.TimeoutSeconds
	}
	return out
}

// DecodeWebhookConfiguration decodes a mutating or a validating webhook
// configuration in either form: the API form says its kind; in the
// resource form, webhooks with a reinvocation_policy are mutating.
func DecodeWebhookConfiguration(in any) (*admissionregistrationv1.MutatingWebhookConfiguration, *admissionregistrationv1.ValidatingWebhookConfiguration, error) {
	m, ok := in.(map[string]any)
	if !ok {
		return nil, nil, inputErr("", "want an object (a webhook configuration resource of this provider, or one in API form), got %s", describe(in))
	}
	mutating := false
	if isAPIForm(m) {
		switch k := str(m["kind"]); k {
		case "MutatingWebhookConfiguration":
			mutating = true
		case "ValidatingWebhookConfiguration":
		default:
			return nil, nil, inputErr("kind", "want MutatingWebhookConfiguration or ValidatingWebhookConfiguration, got %q", k)
		}
	} else if hooks, ok := m["webhook"].([]any); ok {
		for _, h := range hooks {
			if hm, ok := h.(map[string]any); ok {
				if _, ok := hm["reinvocation_policy"]; ok {
					mutating = true
				}
			}
		}
	}
	if mutating {
		cfg := &admissionregistrationv1.MutatingWebhookConfiguration{}
		return cfg, nil, Decode(in, "MutatingWebhookConfiguration", cfg)
	}
	cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	return nil, cfg, Decode(in, "ValidatingWebhookConfiguration", cfg)
}

// MatchConfiguration is MatchMutatingWebhooks or MatchValidatingWebhooks,
// whichever of the two is not nil.
func MatchConfiguration(ctx context.Context, m *admissionregistrationv1.MutatingWebhookConfiguration, v *admissionregistrationv1.ValidatingWebhookConfiguration, req *Request) (*WebhooksResult, error) {
	if m != nil {
		return MatchMutatingWebhooks(ctx, m, req)
	}
	return MatchValidatingWebhooks(ctx, v, req)
}
