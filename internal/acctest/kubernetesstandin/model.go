package kubernetesstandin

import (
	"github.com/hashicorp/terraform-plugin-framework/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Both resource types are handled as the mutating one: a validating webhook
// is a mutating webhook without reinvocation_policy.

type mutatingModel struct {
	ID       types.String           `tfsdk:"id"`
	Metadata []metadataModel        `tfsdk:"metadata"`
	Webhook  []mutatingWebhookModel `tfsdk:"webhook"`
}

type validatingModel struct {
	ID       types.String    `tfsdk:"id"`
	Metadata []metadataModel `tfsdk:"metadata"`
	Webhook  []webhookModel  `tfsdk:"webhook"`
}

type metadataModel struct {
	Annotations     map[string]string `tfsdk:"annotations"`
	GenerateName    types.String      `tfsdk:"generate_name"`
	Generation      types.Int64       `tfsdk:"generation"`
	Labels          map[string]string `tfsdk:"labels"`
	Name            types.String      `tfsdk:"name"`
	ResourceVersion types.String      `tfsdk:"resource_version"`
	UID             types.String      `tfsdk:"uid"`
}

type webhookModel struct {
	AdmissionReviewVersions []string            `tfsdk:"admission_review_versions"`
	ClientConfig            []clientConfigModel `tfsdk:"client_config"`
	FailurePolicy           types.String        `tfsdk:"failure_policy"`
	MatchPolicy             types.String        `tfsdk:"match_policy"`
	Name                    types.String        `tfsdk:"name"`
	NamespaceSelector       []selectorModel     `tfsdk:"namespace_selector"`
	ObjectSelector          []selectorModel     `tfsdk:"object_selector"`
	Rule                    []ruleModel         `tfsdk:"rule"`
	SideEffects             types.String        `tfsdk:"side_effects"`
	TimeoutSeconds          types.Int64         `tfsdk:"timeout_seconds"`
}

type mutatingWebhookModel struct {
	webhookModel
	ReinvocationPolicy types.String `tfsdk:"reinvocation_policy"`
}

type clientConfigModel struct {
	CABundle types.String   `tfsdk:"ca_bundle"`
	Service  []serviceModel `tfsdk:"service"`
	URL      types.String   `tfsdk:"url"`
}

type serviceModel struct {
	Name      types.String `tfsdk:"name"`
	Namespace types.String `tfsdk:"namespace"`
	Path      types.String `tfsdk:"path"`
	Port      types.Int64  `tfsdk:"port"`
}

type selectorModel struct {
	MatchExpressions []expressionModel `tfsdk:"match_expressions"`
	MatchLabels      map[string]string `tfsdk:"match_labels"`
}

type expressionModel struct {
	Key      types.String `tfsdk:"key"`
	Operator types.String `tfsdk:"operator"`
	Values   []string     `tfsdk:"values"`
}

type ruleModel struct {
	APIGroups   []string     `tfsdk:"api_groups"`
	APIVersions []string     `tfsdk:"api_versions"`
	Operations  []string     `tfsdk:"operations"`
	Resources   []string     `tfsdk:"resources"`
	Scope       types.String `tfsdk:"scope"`
}

func (v validatingModel) mutating() mutatingModel {
	m := mutatingModel{ID: v.ID, Metadata: v.Metadata, Webhook: []mutatingWebhookModel{}}
	for _, w := range v.Webhook {
		m.Webhook = append(m.Webhook, mutatingWebhookModel{webhookModel: w, ReinvocationPolicy: types.StringNull()})
	}
	return m
}

func (m mutatingModel) validating() validatingModel {
	v := validatingModel{ID: m.ID, Metadata: m.Metadata, Webhook: []webhookModel{}}
	for _, w := range m.Webhook {
		v.Webhook = append(v.Webhook, w.webhookModel)
	}
	return v
}

// fillDefaults sets what the plugin SDK v2 plans for attributes left out of
// the configuration: the Default of the attribute in
// hashicorp/terraform-provider-kubernetes, else the zero value of its type,
// which is what that SDK stores for an unset string.
func fillDefaults(m *mutatingModel, mutating bool) {
	for i := range m.Metadata {
		orZero(&m.Metadata[i].GenerateName)
	}
	for i := range m.Webhook {
		w := &m.Webhook[i]
		orDefault(&w.FailurePolicy, string(admissionregistrationv1.Fail))
		orDefault(&w.MatchPolicy, string(admissionregistrationv1.Equivalent))
		orZero(&w.SideEffects)
		if w.TimeoutSeconds.IsNull() {
			w.TimeoutSeconds = types.Int64Value(10)
		}
		if mutating {
			orDefault(&w.ReinvocationPolicy, string(admissionregistrationv1.NeverReinvocationPolicy))
		}
		for j := range w.ClientConfig {
			c := &w.ClientConfig[j]
			orZero(&c.CABundle)
			orZero(&c.URL)
			for k := range c.Service {
				s := &c.Service[k]
				orZero(&s.Path)
				if s.Port.IsNull() {
					s.Port = types.Int64Value(443)
				}
			}
		}
		for _, sel := range [][]selectorModel{w.NamespaceSelector, w.ObjectSelector} {
			for j := range sel {
				for k := range sel[j].MatchExpressions {
					orZero(&sel[j].MatchExpressions[k].Key)
					orZero(&sel[j].MatchExpressions[k].Operator)
				}
			}
		}
		for j := range w.Rule {
			orDefault(&w.Rule[j].Scope, "*")
		}
	}
}

func orDefault(v *types.String, def string) {
	if v.IsNull() {
		*v = types.StringValue(def)
	}
}

func orZero(v *types.String) { orDefault(v, "") }

// optional is the value of an optional string: unset when null, unknown or
// empty.
func optional(v types.String) *string {
	if v.IsNull() || v.IsUnknown() || v.ValueString() == "" {
		return nil
	}
	s := v.ValueString()
	return &s
}

func setInt32(v types.Int64) *int32 {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	i := int32(v.ValueInt64())
	return &i
}

// expand is the object to write for a planned value, as
// hashicorp/terraform-provider-kubernetes's expandMetadata and
// expandMutatingWebhooks build it.
func expand(m mutatingModel) *admissionregistrationv1.MutatingWebhookConfiguration {
	obj := &admissionregistrationv1.MutatingWebhookConfiguration{}
	if len(m.Metadata) > 0 {
		md := m.Metadata[0]
		obj.ObjectMeta = metav1.ObjectMeta{
			Annotations: md.Annotations,
			Labels:      md.Labels,
		}
		if p := optional(md.Name); p != nil {
			obj.Name = *p
		}
		if p := optional(md.GenerateName); p != nil {
			obj.GenerateName = *p
		}
	}
	for _, w := range m.Webhook {
		hook := admissionregistrationv1.MutatingWebhook{
			Name:                    w.Name.ValueString(),
			AdmissionReviewVersions: w.AdmissionReviewVersions,
			FailurePolicy:           (*admissionregistrationv1.FailurePolicyType)(optional(w.FailurePolicy)),
			MatchPolicy:             (*admissionregistrationv1.MatchPolicyType)(optional(w.MatchPolicy)),
			SideEffects:             (*admissionregistrationv1.SideEffectClass)(optional(w.SideEffects)),
			TimeoutSeconds:          setInt32(w.TimeoutSeconds),
			ReinvocationPolicy:      (*admissionregistrationv1.ReinvocationPolicyType)(optional(w.ReinvocationPolicy)),
		}
		if len(w.ClientConfig) > 0 {
			c := w.ClientConfig[0]
			hook.ClientConfig.URL = optional(c.URL)
			if p := optional(c.CABundle); p != nil {
				hook.ClientConfig.CABundle = []byte(*p)
			}
			if len(c.Service) > 0 {
				s := c.Service[0]
				hook.ClientConfig.Service = &admissionregistrationv1.ServiceReference{
					Name:      s.Name.ValueString(),
					Namespace: s.Namespace.ValueString(),
					Path:      optional(s.Path),
					Port:      setInt32(s.Port),
				}
			}
		}
		hook.NamespaceSelector = expandSelector(w.NamespaceSelector)
		hook.ObjectSelector = expandSelector(w.ObjectSelector)
		for _, r := range w.Rule {
			rule := admissionregistrationv1.RuleWithOperations{
				Rule: admissionregistrationv1.Rule{
					APIGroups:   r.APIGroups,
					APIVersions: r.APIVersions,
					Resources:   r.Resources,
					Scope:       (*admissionregistrationv1.ScopeType)(optional(r.Scope)),
				},
			}
			for _, op := range r.Operations {
				rule.Operations = append(rule.Operations, admissionregistrationv1.OperationType(op))
			}
			hook.Rules = append(hook.Rules, rule)
		}
		obj.Webhooks = append(obj.Webhooks, hook)
	}
	return obj
}

func expandSelector(in []selectorModel) *metav1.LabelSelector {
	if len(in) == 0 {
		return nil
	}
	sel := &metav1.LabelSelector{MatchLabels: in[0].MatchLabels}
	for _, e := range in[0].MatchExpressions {
		sel.MatchExpressions = append(sel.MatchExpressions, metav1.LabelSelectorRequirement{
			Key:      e.Key.ValueString(),
			Operator: metav1.LabelSelectorOperator(e.Operator.ValueString()),
			Values:   e.Values,
		})
	}
	return sel
}

// flatten is the state of an object as hashicorp/terraform-provider-kubernetes
// writes it (flattenMetadata, flattenMutatingWebhook, flattenValidatingWebhook
// and what the plugin SDK v2 makes of what they leave out: "" for a string,
// an empty list for a block, null for a map).
func flatten(obj *admissionregistrationv1.MutatingWebhookConfiguration, mutating bool) mutatingModel {
	m := mutatingModel{
		ID: types.StringValue(obj.Name),
		Metadata: []metadataModel{{
			Annotations:     nonEmpty(obj.Annotations),
			GenerateName:    types.StringValue(obj.GenerateName),
			Generation:      types.Int64Value(obj.Generation),
			Labels:          nonEmpty(obj.Labels),
			Name:            types.StringValue(obj.Name),
			ResourceVersion: types.StringValue(obj.ResourceVersion),
			UID:             types.StringValue(string(obj.UID)),
		}},
		Webhook: []mutatingWebhookModel{},
	}
	for _, h := range obj.Webhooks {
		w := mutatingWebhookModel{
			webhookModel: webhookModel{
				AdmissionReviewVersions: nonNil(h.AdmissionReviewVersions),
				FailurePolicy:           str((*string)(h.FailurePolicy)),
				MatchPolicy:             str((*string)(h.MatchPolicy)),
				Name:                    types.StringValue(h.Name),
				NamespaceSelector:       flattenSelector(h.NamespaceSelector),
				ObjectSelector:          flattenSelector(h.ObjectSelector),
				Rule:                    []ruleModel{},
				SideEffects:             str((*string)(h.SideEffects)),
				TimeoutSeconds:          types.Int64Value(int64(deref(h.TimeoutSeconds))),
			},
			ReinvocationPolicy: types.StringNull(),
		}
		if mutating {
			w.ReinvocationPolicy = str((*string)(h.ReinvocationPolicy))
		}
		cc := clientConfigModel{
			CABundle: types.StringValue(string(h.ClientConfig.CABundle)),
			Service:  []serviceModel{},
			URL:      str(h.ClientConfig.URL),
		}
		if s := h.ClientConfig.Service; s != nil {
			cc.Service = append(cc.Service, serviceModel{
				Name:      types.StringValue(s.Name),
				Namespace: types.StringValue(s.Namespace),
				Path:      str(s.Path),
				Port:      types.Int64Value(int64(deref(s.Port))),
			})
		}
		w.ClientConfig = []clientConfigModel{cc}
		for _, r := range h.Rules {
			rule := ruleModel{
				APIGroups:   nonNil(r.APIGroups),
				APIVersions: nonNil(r.APIVersions),
				Operations:  []string{},
				Resources:   nonNil(r.Resources),
				Scope:       str((*string)(r.Scope)),
			}
			for _, op := range r.Operations {
				rule.Operations = append(rule.Operations, string(op))
			}
			w.Rule = append(w.Rule, rule)
		}
		m.Webhook = append(m.Webhook, w)
	}
	return m
}

// refreshed is m as the plugin SDK v2 keeps it after a read (a refresh, the
// read after an import): flattenMetadataFields always sets the metadata's
// labels and annotations, and flattenLabelSelector a selector's match_labels,
// and ReadResource's normalizeNullValues keeps the empty maps the SDK makes
// of those the object has not, so the state holds labels = {},
// annotations = {} and match_labels = {} (testdata/state-refreshed.json).
// After a create or an update, ApplyResourceChange's normalizeNullValues
// takes the planned null instead, which flatten gives.
func refreshed(m mutatingModel) mutatingModel {
	for i := range m.Metadata {
		md := &m.Metadata[i]
		md.Labels, md.Annotations = emptyIfNil(md.Labels), emptyIfNil(md.Annotations)
	}
	for i := range m.Webhook {
		w := &m.Webhook[i]
		for _, sel := range [][]selectorModel{w.NamespaceSelector, w.ObjectSelector} {
			for j := range sel {
				sel[j].MatchLabels = emptyIfNil(sel[j].MatchLabels)
			}
		}
	}
	return m
}

func emptyIfNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// applied is the state m that a create or update read back, as the plugin
// SDK v2 keeps it: ApplyResourceChange's normalizeNullValues takes the
// planned form of a map that is empty or null on both sides.
func applied(m, planned mutatingModel) mutatingModel {
	keepEmptyMaps(&m, planned)
	return m
}

// keepEmptyMaps keeps in the plan m the empty maps of the prior state that
// the configuration leaves out (see refreshed): the plugin SDK v2 sees no
// difference between an empty map and none, so the planned state keeps the
// prior one's, and a refreshed state keeps them from then on.
func keepEmptyMaps(m *mutatingModel, prior mutatingModel) {
	keep := func(planned *map[string]string, prior map[string]string) {
		if *planned == nil && prior != nil && len(prior) == 0 {
			*planned = map[string]string{}
		}
	}
	for i := range min(len(m.Metadata), len(prior.Metadata)) {
		keep(&m.Metadata[i].Labels, prior.Metadata[i].Labels)
		keep(&m.Metadata[i].Annotations, prior.Metadata[i].Annotations)
	}
	for i := range min(len(m.Webhook), len(prior.Webhook)) {
		w, pw := &m.Webhook[i], prior.Webhook[i]
		for _, pair := range [][2][]selectorModel{{w.NamespaceSelector, pw.NamespaceSelector}, {w.ObjectSelector, pw.ObjectSelector}} {
			for j := range min(len(pair[0]), len(pair[1])) {
				keep(&pair[0][j].MatchLabels, pair[1][j].MatchLabels)
			}
		}
	}
}

// flattenSelector leaves out a selector that selects everything, as the
// server sets one when none is given (flattenMutatingWebhook does the same).
func flattenSelector(in *metav1.LabelSelector) []selectorModel {
	if in == nil || (in.MatchLabels == nil && in.MatchExpressions == nil) {
		return []selectorModel{}
	}
	sel := selectorModel{
		MatchExpressions: []expressionModel{},
		MatchLabels:      nonEmpty(in.MatchLabels),
	}
	for _, e := range in.MatchExpressions {
		sel.MatchExpressions = append(sel.MatchExpressions, expressionModel{
			Key:      types.StringValue(e.Key),
			Operator: types.StringValue(string(e.Operator)),
			Values:   nonNil(e.Values),
		})
	}
	return []selectorModel{sel}
}

func str(p *string) types.String {
	if p == nil {
		return types.StringValue("")
	}
	return types.StringValue(*p)
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonEmpty(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}
