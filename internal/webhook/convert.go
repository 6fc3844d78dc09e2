package webhook

import (
	"github.com/hashicorp/terraform-plugin-framework/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/matching"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/metadata"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfconv"
)

// This file converts between the Terraform model and the API object. It does
// no I/O: model → API → model is the identity for every value the server can
// store.

// expansion is the result of turning a model into an API object. Unknown
// holds the API paths whose values are not known yet (during plan); the
// object carries zero values there.
type expansion struct {
	Object  *configuration
	Unknown []*field.Path
}

// unknownAt reports whether p is, contains, or lies under an unknown value:
// a check at such a path would judge a value we do not have.
func (e *expansion) unknownAt(p string) bool {
	for _, u := range e.Unknown {
		us := u.String()
		if us == p || hasPathPrefix(p, us) || hasPathPrefix(us, p) {
			return true
		}
	}
	return false
}

func hasPathPrefix(p, prefix string) bool {
	if len(p) <= len(prefix) || p[:len(prefix)] != prefix {
		return false
	}
	return p[len(prefix)] == '.' || p[len(prefix)] == '['
}

// expand turns a model (a plan, state or configuration) into an API object.
func expand[H hook](m objectModel[H]) expansion {
	x := &tfconv.Expander{}
	obj := &configuration{}
	if len(m.Metadata) > 0 {
		obj.ObjectMeta = metadata.Expand(x, m.Metadata[0], field.NewPath("metadata"))
	}
	for i, w := range m.Webhook {
		obj.Webhooks = append(obj.Webhooks, expandWebhook(x, w, field.NewPath("webhooks").Index(i)))
	}
	return expansion{Object: obj, Unknown: x.Unknown}
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
		NamespaceSelector:       matching.ExpandSelector(x, w.NamespaceSelector, p.Child("namespaceSelector")),
		ObjectSelector:          matching.ExpandSelector(x, w.ObjectSelector, p.Child("objectSelector")),
		MatchConditions:         matching.ExpandConditions(x, w.MatchConditions, p.Child("matchConditions")),
	}
	if len(w.ClientConfig) > 0 {
		hook.ClientConfig = expandClientConfig(x, w.ClientConfig[0], p.Child("clientConfig"))
	}
	for j, r := range w.Rule {
		hook.Rules = append(hook.Rules, matching.ExpandRule(x, r, p.Child("rules").Index(j)))
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
	}
	return cc
}

// flatten turns an API object into a model. prior, when not nil, is the
// state or plan the object is read for: it keeps the shape the user wrote
// where the API cannot tell two forms apart (an empty selector block and no
// block, an empty list and none), and limits labels, annotations and webhooks
// to those Terraform manages, since others may add their own.
func (k *kind[H]) flatten(obj *configuration, prior *objectModel[H]) objectModel[H] {
	var pm *metadata.Model
	if prior != nil && len(prior.Metadata) > 0 {
		pm = &prior.Metadata[0]
	}
	m := objectModel[H]{
		ID:       types.StringValue(obj.Name),
		Metadata: []metadata.Model{metadata.Flatten(obj.ObjectMeta, pm)},
	}
	var priorHooks map[string]*webhookModel
	if pm != nil {
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
		m.Webhook = append(m.Webhook, k.newHook(flattenWebhook(w, pw), types.StringPointerValue((*string)(w.ReinvocationPolicy))))
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
		MatchConditions:         matching.FlattenConditions(w.MatchConditions),
	}
	var priorNS, priorObj []matching.SelectorModel
	var priorRules []matching.RuleModel
	if prior != nil {
		priorNS, priorObj, priorRules = prior.NamespaceSelector, prior.ObjectSelector, prior.Rule
	}
	m.NamespaceSelector = matching.FlattenSelector(w.NamespaceSelector, priorNS)
	m.ObjectSelector = matching.FlattenSelector(w.ObjectSelector, priorObj)
	for j, r := range w.Rules {
		var pr *matching.RuleModel
		if j < len(priorRules) {
			pr = &priorRules[j]
		}
		m.Rule = append(m.Rule, matching.FlattenRule(r, pr))
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
