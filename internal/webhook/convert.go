package webhook

import (
	"github.com/hashicorp/terraform-plugin-framework/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/core"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/matchschema"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfconv"
)

// This file converts between the Terraform model and the API object. It does
// no I/O: model → API → model is the identity for every value the server can
// store.

// expandWebhooks sets the webhooks of obj from m (core.Description.Expand).
func expandWebhooks[H hook](x *tfconv.Expander, m *objectModel[H], obj *configuration) {
	for i, w := range m.Webhook {
		obj.Webhooks = append(obj.Webhooks, expandWebhook(x, w, field.NewPath("webhooks").Index(i)))
	}
}

func expandWebhook(x *tfconv.Expander, h hook, p *field.Path) admissionregistrationv1.MutatingWebhook {
	w := h.base()
	hook := admissionregistrationv1.MutatingWebhook{
		Name:                    x.Str(w.Name, p.Child("name")),
		AdmissionReviewVersions: x.Strings(w.AdmissionReviewVersions, p.Child("admissionReviewVersions")),
		SideEffects:             (*admissionregistrationv1.SideEffectClass)(x.StrPtr(w.SideEffects, p.Child("sideEffects"))),
		FailurePolicy:           (*admissionregistrationv1.FailurePolicyType)(x.StrPtr(w.FailurePolicy, p.Child("failurePolicy"))),
		MatchPolicy:             (*admissionregistrationv1.MatchPolicyType)(x.StrPtr(w.MatchPolicy, p.Child("matchPolicy"))),
		ReinvocationPolicy:      (*admissionregistrationv1.ReinvocationPolicyType)(x.StrPtr(h.reinvocation(), p.Child("reinvocationPolicy"))),
		TimeoutSeconds:          x.Int32Ptr(w.TimeoutSeconds, p.Child("timeoutSeconds")),
		NamespaceSelector:       matchschema.ExpandSelector(x, w.NamespaceSelector, p.Child("namespaceSelector")),
		ObjectSelector:          matchschema.ExpandSelector(x, w.ObjectSelector, p.Child("objectSelector")),
		MatchConditions:         matchschema.ExpandConditions(x, w.MatchConditions, p.Child("matchConditions")),
	}
	if len(w.ClientConfig) > 0 {
		hook.ClientConfig = expandClientConfig(x, w.ClientConfig[0], p.Child("clientConfig"))
	}
	for j, r := range w.Rule {
		hook.Rules = append(hook.Rules, matchschema.ExpandRule(x, r, p.Child("rules").Index(j)))
	}
	return hook
}

func expandClientConfig(x *tfconv.Expander, c clientConfigModel, p *field.Path) admissionregistrationv1.WebhookClientConfig {
	cc := admissionregistrationv1.WebhookClientConfig{URL: x.StrPtr(c.URL, p.Child("url"))}
	if s := x.StrPtr(c.CABundle, p.Child("caBundle")); s != nil {
		cc.CABundle = []byte(*s)
	}
	if len(c.Service) > 0 {
		s, sp := c.Service[0], p.Child("service")
		cc.Service = &admissionregistrationv1.ServiceReference{
			Namespace: x.Str(s.Namespace, sp.Child("namespace")),
			Name:      x.Str(s.Name, sp.Child("name")),
			Path:      x.StrPtr(s.Path, sp.Child("path")),
			Port:      x.Int32Ptr(s.Port, sp.Child("port")),
		}
		// The server reports an empty name at service.namespace and an empty namespace at
		// service.name (validation's call of ValidateWebhookService): while one of the two
		// is not known, neither is judged.
		if s.Namespace.IsUnknown() != s.Name.IsUnknown() {
			x.Unknown = append(x.Unknown, sp.Child("namespace"), sp.Child("name"))
		}
	}
	return cc
}

// flatten is the model of obj, whose id and metadata are h (see
// core.Description.Flatten); newHook makes the kind's webhook model. With a
// prior model, the webhooks are limited to those Terraform manages, since
// others may add their own.
func flatten[H hook](newHook func(webhookModel, types.String) H, h core.Header, obj *configuration, prior *objectModel[H]) objectModel[H] {
	m := objectModel[H]{Header: h}
	var priorHooks map[string]*webhookModel
	if prior != nil && len(prior.Metadata) > 0 {
		priorHooks = map[string]*webhookModel{}
		for _, h := range prior.Webhook {
			w := h.base()
			priorHooks[w.Name.ValueString()] = &w
		}
	}
	for _, w := range obj.Webhooks {
		var pw *webhookModel
		if priorHooks != nil {
			var managed bool
			if pw, managed = priorHooks[w.Name]; !managed {
				continue
			}
		}
		m.Webhook = append(m.Webhook, newHook(flattenWebhook(w, pw), types.StringPointerValue((*string)(w.ReinvocationPolicy))))
	}
	return m
}

func flattenWebhook(w admissionregistrationv1.MutatingWebhook, prior *webhookModel) webhookModel {
	m := webhookModel{
		Name:                    types.StringValue(w.Name),
		AdmissionReviewVersions: tfconv.StringList(w.AdmissionReviewVersions, tfconv.PriorList(prior, func(p *webhookModel) types.List { return p.AdmissionReviewVersions })),
		SideEffects:             types.StringPointerValue((*string)(w.SideEffects)),
		FailurePolicy:           types.StringPointerValue((*string)(w.FailurePolicy)),
		MatchPolicy:             types.StringPointerValue((*string)(w.MatchPolicy)),
		TimeoutSeconds:          tfconv.Int64(w.TimeoutSeconds),
		ClientConfig:            []clientConfigModel{flattenClientConfig(w.ClientConfig, prior)},
		MatchConditions:         matchschema.FlattenConditions(w.MatchConditions),
	}
	var priorNS, priorObj []matchschema.SelectorModel
	var priorRules []matchschema.RuleModel
	if prior != nil {
		priorNS, priorObj, priorRules = prior.NamespaceSelector, prior.ObjectSelector, prior.Rule
	}
	m.NamespaceSelector = matchschema.FlattenSelector(w.NamespaceSelector, priorNS)
	m.ObjectSelector = matchschema.FlattenSelector(w.ObjectSelector, priorObj)
	for j, r := range w.Rules {
		var pr *matchschema.RuleModel
		if j < len(priorRules) {
			pr = &priorRules[j]
		}
		m.Rule = append(m.Rule, matchschema.FlattenRule(r, pr))
	}
	return m
}

func flattenClientConfig(c admissionregistrationv1.WebhookClientConfig, prior *webhookModel) clientConfigModel {
	m := clientConfigModel{URL: types.StringPointerValue(c.URL), CABundle: types.StringNull()}
	if len(c.CABundle) > 0 {
		m.CABundle = types.StringValue(string(c.CABundle))
	} else if prior != nil && len(prior.ClientConfig) > 0 && tfconv.IsEmptyString(prior.ClientConfig[0].CABundle) {
		// An empty bundle in the configuration is stored as none.
		m.CABundle = types.StringValue("")
	}
	if s := c.Service; s != nil {
		m.Service = []serviceModel{{
			Namespace: types.StringValue(s.Namespace),
			Name:      types.StringValue(s.Name),
			Path:      types.StringPointerValue(s.Path),
			Port:      tfconv.Int64(s.Port),
		}}
	}
	return m
}
