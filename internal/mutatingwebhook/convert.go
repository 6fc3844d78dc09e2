package mutatingwebhook

import (
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// This file converts between the Terraform model and the API object. It does
// no I/O: model → API → model is the identity for every value the server can
// store.

// expansion is the result of turning a model into an API object. Unknown
// holds the API paths whose values are not known yet (during plan); the
// object carries zero values there.
type expansion struct {
	Object  *admissionregistrationv1.MutatingWebhookConfiguration
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

type expander struct {
	unknown []*field.Path
}

func (x *expander) str(v types.String, p *field.Path) string {
	if v.IsUnknown() {
		x.unknown = append(x.unknown, p)
	}
	return v.ValueString()
}

func (x *expander) strPtr(v types.String, p *field.Path) *string {
	if v.IsUnknown() {
		x.unknown = append(x.unknown, p)
		return nil
	}
	if v.IsNull() {
		return nil
	}
	s := v.ValueString()
	return &s
}

func (x *expander) int32Ptr(v types.Int64, p *field.Path) *int32 {
	if v.IsUnknown() {
		x.unknown = append(x.unknown, p)
		return nil
	}
	if v.IsNull() {
		return nil
	}
	i := int32(clampInt32(v.ValueInt64()))
	return &i
}

// clampInt32 keeps an out-of-range number out of range after the conversion,
// so that validation still rejects it.
func clampInt32(v int64) int64 {
	const maxInt32, minInt32 = 1<<31 - 1, -1 << 31
	switch {
	case v > maxInt32:
		return maxInt32
	case v < minInt32:
		return minInt32
	}
	return v
}

func (x *expander) boolPtr(v types.Bool, p *field.Path) *bool {
	if v.IsUnknown() {
		x.unknown = append(x.unknown, p)
		return nil
	}
	if v.IsNull() {
		return nil
	}
	b := v.ValueBool()
	return &b
}

func (x *expander) strings(v types.List, p *field.Path) []string {
	if v.IsUnknown() {
		x.unknown = append(x.unknown, p)
		return nil
	}
	if v.IsNull() {
		return nil
	}
	out := make([]string, 0, len(v.Elements()))
	for i, e := range v.Elements() {
		out = append(out, x.str(e.(types.String), p.Index(i)))
	}
	return out
}

func (x *expander) stringMap(v types.Map, p *field.Path) map[string]string {
	if v.IsUnknown() {
		x.unknown = append(x.unknown, p)
		return nil
	}
	if v.IsNull() {
		return nil
	}
	out := make(map[string]string, len(v.Elements()))
	for k, e := range v.Elements() {
		out[k] = x.str(e.(types.String), p.Key(k))
	}
	return out
}

// expand turns a model (a plan, state or configuration) into an API object.
func expand(m resourceModel) expansion {
	x := &expander{}
	obj := &admissionregistrationv1.MutatingWebhookConfiguration{
		TypeMeta: metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"},
	}
	if len(m.Metadata) > 0 {
		obj.ObjectMeta = x.metadata(m.Metadata[0], field.NewPath("metadata"))
	}
	for i, w := range m.Webhook {
		obj.Webhooks = append(obj.Webhooks, x.webhook(w, field.NewPath("webhooks").Index(i)))
	}
	return expansion{Object: obj, Unknown: x.unknown}
}

func (x *expander) metadata(m metadataModel, p *field.Path) metav1.ObjectMeta {
	meta := metav1.ObjectMeta{
		Name:        x.str(m.Name, p.Child("name")),
		Labels:      x.stringMap(m.Labels, p.Child("labels")),
		Annotations: x.stringMap(m.Annotations, p.Child("annotations")),
		Finalizers:  x.strings(m.Finalizers, p.Child("finalizers")),
	}
	for i, o := range m.OwnerReferences {
		op := p.Child("ownerReferences").Index(i)
		meta.OwnerReferences = append(meta.OwnerReferences, metav1.OwnerReference{
			APIVersion:         x.str(o.APIVersion, op.Child("apiVersion")),
			Kind:               x.str(o.Kind, op.Child("kind")),
			Name:               x.str(o.Name, op.Child("name")),
			UID:                k8stypes.UID(x.str(o.UID, op.Child("uid"))),
			BlockOwnerDeletion: x.boolPtr(o.BlockOwnerDeletion, op.Child("blockOwnerDeletion")),
			Controller:         x.boolPtr(o.Controller, op.Child("controller")),
		})
	}
	return meta
}

func (x *expander) webhook(w webhookModel, p *field.Path) admissionregistrationv1.MutatingWebhook {
	hook := admissionregistrationv1.MutatingWebhook{
		Name:                    x.str(w.Name, p.Child("name")),
		AdmissionReviewVersions: x.strings(w.AdmissionReviewVersions, p.Child("admissionReviewVersions")),
		SideEffects:             (*admissionregistrationv1.SideEffectClass)(x.strPtr(w.SideEffects, p.Child("sideEffects"))),
		FailurePolicy:           (*admissionregistrationv1.FailurePolicyType)(x.strPtr(w.FailurePolicy, p.Child("failurePolicy"))),
		MatchPolicy:             (*admissionregistrationv1.MatchPolicyType)(x.strPtr(w.MatchPolicy, p.Child("matchPolicy"))),
		ReinvocationPolicy:      (*admissionregistrationv1.ReinvocationPolicyType)(x.strPtr(w.ReinvocationPolicy, p.Child("reinvocationPolicy"))),
		TimeoutSeconds:          x.int32Ptr(w.TimeoutSeconds, p.Child("timeoutSeconds")),
		NamespaceSelector:       x.selector(w.NamespaceSelector, p.Child("namespaceSelector")),
		ObjectSelector:          x.selector(w.ObjectSelector, p.Child("objectSelector")),
	}
	if len(w.ClientConfig) > 0 {
		hook.ClientConfig = x.clientConfig(w.ClientConfig[0], p.Child("clientConfig"))
	}
	for j, r := range w.Rule {
		rp := p.Child("rules").Index(j)
		scope := (*admissionregistrationv1.ScopeType)(x.strPtr(r.Scope, rp.Child("scope")))
		hook.Rules = append(hook.Rules, admissionregistrationv1.RuleWithOperations{
			Operations: operations(x.strings(r.Operations, rp.Child("operations"))),
			Rule: admissionregistrationv1.Rule{
				APIGroups:   x.strings(r.APIGroups, rp.Child("apiGroups")),
				APIVersions: x.strings(r.APIVersions, rp.Child("apiVersions")),
				Resources:   x.strings(r.Resources, rp.Child("resources")),
				Scope:       scope,
			},
		})
	}
	for j, c := range w.MatchConditions {
		cp := p.Child("matchConditions").Index(j)
		hook.MatchConditions = append(hook.MatchConditions, admissionregistrationv1.MatchCondition{
			Name:       x.str(c.Name, cp.Child("name")),
			Expression: x.str(c.Expression, cp.Child("expression")),
		})
	}
	return hook
}

func operations(ops []string) []admissionregistrationv1.OperationType {
	if ops == nil {
		return nil
	}
	out := make([]admissionregistrationv1.OperationType, len(ops))
	for i, o := range ops {
		out[i] = admissionregistrationv1.OperationType(o)
	}
	return out
}

func (x *expander) clientConfig(c clientConfigModel, p *field.Path) admissionregistrationv1.WebhookClientConfig {
	cc := admissionregistrationv1.WebhookClientConfig{URL: x.strPtr(c.URL, p.Child("url"))}
	if s := x.strPtr(c.CABundle, p.Child("caBundle")); s != nil {
		cc.CABundle = []byte(*s)
	}
	if len(c.Service) > 0 {
		s, sp := c.Service[0], p.Child("service")
		cc.Service = &admissionregistrationv1.ServiceReference{
			Namespace: x.str(s.Namespace, sp.Child("namespace")),
			Name:      x.str(s.Name, sp.Child("name")),
			Path:      x.strPtr(s.Path, sp.Child("path")),
			Port:      x.int32Ptr(s.Port, sp.Child("port")),
		}
	}
	return cc
}

func (x *expander) selector(blocks []selectorModel, p *field.Path) *metav1.LabelSelector {
	if len(blocks) == 0 {
		return nil
	}
	b := blocks[0]
	sel := &metav1.LabelSelector{MatchLabels: x.stringMap(b.MatchLabels, p.Child("matchLabels"))}
	for k, e := range b.MatchExpressions {
		ep := p.Child("matchExpressions").Index(k)
		sel.MatchExpressions = append(sel.MatchExpressions, metav1.LabelSelectorRequirement{
			Key:      x.str(e.Key, ep.Child("key")),
			Operator: metav1.LabelSelectorOperator(x.str(e.Operator, ep.Child("operator"))),
			Values:   x.strings(e.Values, ep.Child("values")),
		})
	}
	return sel
}

// flatten turns an API object into a model. prior, when not nil, is the
// state or plan the object is read for: it keeps the shape the user wrote
// where the API cannot tell two forms apart (an empty selector block and no
// block, an empty list and none), and limits labels, annotations and webhooks
// to those Terraform manages, since others may add their own.
func flatten(obj *admissionregistrationv1.MutatingWebhookConfiguration, prior *resourceModel) resourceModel {
	var pm *metadataModel
	if prior != nil && len(prior.Metadata) > 0 {
		pm = &prior.Metadata[0]
	}
	m := resourceModel{
		ID:       types.StringValue(obj.Name),
		Metadata: []metadataModel{flattenMetadata(obj.ObjectMeta, pm)},
	}
	var priorHooks map[string]*webhookModel
	if pm != nil {
		priorHooks = map[string]*webhookModel{}
		for i := range prior.Webhook {
			priorHooks[prior.Webhook[i].Name.ValueString()] = &prior.Webhook[i]
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
		m.Webhook = append(m.Webhook, flattenWebhook(w, pw))
	}
	return m
}

func flattenMetadata(meta metav1.ObjectMeta, prior *metadataModel) metadataModel {
	m := metadataModel{
		Name:              types.StringValue(meta.Name),
		Labels:            stringMapValue(meta.Labels, priorMap(prior, func(p *metadataModel) types.Map { return p.Labels }), prior != nil),
		Annotations:       stringMapValue(meta.Annotations, priorMap(prior, func(p *metadataModel) types.Map { return p.Annotations }), prior != nil),
		Finalizers:        stringListValue(meta.Finalizers, priorList(prior, func(p *metadataModel) types.List { return p.Finalizers })),
		UID:               types.StringValue(string(meta.UID)),
		ResourceVersion:   types.StringValue(meta.ResourceVersion),
		Generation:        types.Int64Value(meta.Generation),
		CreationTimestamp: types.StringValue(meta.CreationTimestamp.UTC().Format(time.RFC3339)),
	}
	if meta.CreationTimestamp.IsZero() {
		m.CreationTimestamp = types.StringNull()
	}
	for _, o := range meta.OwnerReferences {
		m.OwnerReferences = append(m.OwnerReferences, ownerReferenceModel{
			APIVersion:         types.StringValue(o.APIVersion),
			Kind:               types.StringValue(o.Kind),
			Name:               types.StringValue(o.Name),
			UID:                types.StringValue(string(o.UID)),
			BlockOwnerDeletion: types.BoolPointerValue(o.BlockOwnerDeletion),
			Controller:         types.BoolPointerValue(o.Controller),
		})
	}
	return m
}

func priorMap[T any](prior *T, get func(*T) types.Map) types.Map {
	if prior == nil {
		return types.MapNull(types.StringType)
	}
	return get(prior)
}

func priorList[T any](prior *T, get func(*T) types.List) types.List {
	if prior == nil {
		return types.ListNull(types.StringType)
	}
	return get(prior)
}

func flattenWebhook(w admissionregistrationv1.MutatingWebhook, prior *webhookModel) webhookModel {
	m := webhookModel{
		Name:                    types.StringValue(w.Name),
		AdmissionReviewVersions: stringListValue(w.AdmissionReviewVersions, priorList(prior, func(p *webhookModel) types.List { return p.AdmissionReviewVersions })),
		SideEffects:             types.StringPointerValue((*string)(w.SideEffects)),
		FailurePolicy:           types.StringPointerValue((*string)(w.FailurePolicy)),
		MatchPolicy:             types.StringPointerValue((*string)(w.MatchPolicy)),
		ReinvocationPolicy:      types.StringPointerValue((*string)(w.ReinvocationPolicy)),
		TimeoutSeconds:          int64PointerValue(w.TimeoutSeconds),
		ClientConfig:            []clientConfigModel{flattenClientConfig(w.ClientConfig, prior)},
	}
	var priorNS, priorObj []selectorModel
	var priorRules []ruleModel
	if prior != nil {
		priorNS, priorObj, priorRules = prior.NamespaceSelector, prior.ObjectSelector, prior.Rule
	}
	m.NamespaceSelector = flattenSelector(w.NamespaceSelector, priorNS)
	m.ObjectSelector = flattenSelector(w.ObjectSelector, priorObj)
	for j, r := range w.Rules {
		var pr *ruleModel
		if j < len(priorRules) {
			pr = &priorRules[j]
		}
		ops := make([]string, len(r.Operations))
		for k, o := range r.Operations {
			ops[k] = string(o)
		}
		if r.Operations == nil {
			ops = nil
		}
		m.Rule = append(m.Rule, ruleModel{
			Operations:  stringListValue(ops, priorList(pr, func(p *ruleModel) types.List { return p.Operations })),
			APIGroups:   stringListValue(r.APIGroups, priorList(pr, func(p *ruleModel) types.List { return p.APIGroups })),
			APIVersions: stringListValue(r.APIVersions, priorList(pr, func(p *ruleModel) types.List { return p.APIVersions })),
			Resources:   stringListValue(r.Resources, priorList(pr, func(p *ruleModel) types.List { return p.Resources })),
			Scope:       types.StringPointerValue((*string)(r.Scope)),
		})
	}
	for _, c := range w.MatchConditions {
		m.MatchConditions = append(m.MatchConditions, matchConditionModel{
			Name:       types.StringValue(c.Name),
			Expression: types.StringValue(c.Expression),
		})
	}
	return m
}

func flattenClientConfig(c admissionregistrationv1.WebhookClientConfig, prior *webhookModel) clientConfigModel {
	m := clientConfigModel{URL: types.StringPointerValue(c.URL), CABundle: types.StringNull()}
	if len(c.CABundle) > 0 {
		m.CABundle = types.StringValue(string(c.CABundle))
	} else if prior != nil && len(prior.ClientConfig) > 0 && isEmptyString(prior.ClientConfig[0].CABundle) {
		// An empty bundle in the configuration is stored as none.
		m.CABundle = types.StringValue("")
	}
	if s := c.Service; s != nil {
		m.Service = []serviceModel{{
			Namespace: types.StringValue(s.Namespace),
			Name:      types.StringValue(s.Name),
			Path:      types.StringPointerValue(s.Path),
			Port:      int64PointerValue(s.Port),
		}}
	}
	return m
}

// flattenSelector keeps an empty selector block when the prior model had one,
// and none otherwise: the server stores both as {}.
func flattenSelector(s *metav1.LabelSelector, prior []selectorModel) []selectorModel {
	var p *selectorModel
	if len(prior) > 0 {
		p = &prior[0]
	}
	if s == nil || (len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0) {
		if p == nil {
			return nil
		}
		return []selectorModel{{MatchLabels: emptyOr(p.MatchLabels)}}
	}
	m := selectorModel{MatchLabels: stringMapValue(s.MatchLabels, priorMap(p, func(p *selectorModel) types.Map { return p.MatchLabels }), false)}
	for k, e := range s.MatchExpressions {
		pv := types.ListNull(types.StringType)
		if p != nil && k < len(p.MatchExpressions) {
			pv = p.MatchExpressions[k].Values
		}
		m.MatchExpressions = append(m.MatchExpressions, matchExpressionModel{
			Key:      types.StringValue(e.Key),
			Operator: types.StringValue(string(e.Operator)),
			Values:   stringListValue(e.Values, pv),
		})
	}
	return []selectorModel{m}
}

// emptyOr returns an empty map if prior was an empty map, else null.
func emptyOr(prior types.Map) types.Map {
	if !prior.IsNull() && !prior.IsUnknown() && len(prior.Elements()) == 0 {
		return prior
	}
	return types.MapNull(types.StringType)
}

// stringListValue is the list value of vs; an empty list stays empty when
// the prior value was an empty list rather than null.
func stringListValue(vs []string, prior types.List) types.List {
	if len(vs) == 0 {
		if !prior.IsNull() && !prior.IsUnknown() && len(prior.Elements()) == 0 {
			return types.ListValueMust(types.StringType, []attr.Value{})
		}
		return types.ListNull(types.StringType)
	}
	elems := make([]attr.Value, len(vs))
	for i, v := range vs {
		elems[i] = types.StringValue(v)
	}
	return types.ListValueMust(types.StringType, elems)
}

// stringMapValue is the map value of vs. With onlyPriorKeys, only the keys of
// the prior map are kept: the others belong to someone else.
func stringMapValue(vs map[string]string, prior types.Map, onlyPriorKeys bool) types.Map {
	elems := map[string]attr.Value{}
	for k, v := range vs {
		if onlyPriorKeys {
			if _, ok := prior.Elements()[k]; !ok {
				continue
			}
		}
		elems[k] = types.StringValue(v)
	}
	if len(elems) == 0 {
		return emptyOr(prior)
	}
	return types.MapValueMust(types.StringType, elems)
}

func int64PointerValue(v *int32) types.Int64 {
	if v == nil {
		return types.Int64Null()
	}
	return types.Int64Value(int64(*v))
}

// isEmptyString reports whether v is a known, empty string.
func isEmptyString(v types.String) bool {
	return !v.IsNull() && !v.IsUnknown() && v.ValueString() == ""
}
