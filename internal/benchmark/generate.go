// Package benchmark measures the provider against kubectl on the same
// MutatingWebhookConfigurations, on a local control plane: wall time, API
// requests per object counted at the API server (audit log), and the
// provider's peak RSS. Its command is cmd/admission-bench; `make bench` runs
// it. Nothing here runs in `make test` but the unit tests of the generator.
package benchmark

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// Webhooks per object; rules and (by default) match conditions per webhook.
const (
	WebhooksPerObject   = 3
	rulesPerWebhook     = 2
	conditionsPerWebook = 4
)

// timeout of webhook 0 before and after the change phase: the one field that
// changes in every object.
const (
	timeoutBefore = 5
	timeoutAfter  = 7
)

// Objects returns n MutatingWebhookConfigurations, each with
// WebhooksPerObject webhooks that have rules, both selectors and
// conditionsPerWebook match conditions. Every expression differs from object
// to object, as in a platform where each team has its own exclusions, so
// nothing is shared in the provider's CEL cache. With changed, webhook 0 of
// every object has another timeoutSeconds.
func Objects(n int, changed bool) []*admissionMWC {
	return ObjectsWith(n, conditionsPerWebook, changed)
}

// ObjectsWith is Objects with conditions match conditions per webhook (0:
// none, the workload hashicorp/kubernetes can also write).
func ObjectsWith(n, conditions int, changed bool) []*admissionMWC {
	out := make([]*admissionMWC, n)
	for i := range out {
		out[i] = objectWith(i, conditions, changed)
	}
	return out
}

// ObjectName is the name of object i.
func ObjectName(i int) string { return fmt.Sprintf("bench-%04d.admission.example.com", i) }

type admissionMWC = admissionregistrationv1.MutatingWebhookConfiguration

func ptr[T any](v T) *T { return &v }

func object(i int, changed bool) *admissionregistrationv1.MutatingWebhookConfiguration {
	return objectWith(i, conditionsPerWebook, changed)
}

func objectWith(i, conditions int, changed bool) *admissionregistrationv1.MutatingWebhookConfiguration {
	name := ObjectName(i)
	team := fmt.Sprintf("team-%04d", i)
	obj := &admissionregistrationv1.MutatingWebhookConfiguration{
		TypeMeta: metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name,
			Labels: map[string]string{
				"app.kubernetes.io/managed-by": "bench",
				"app.kubernetes.io/part-of":    team,
			},
		},
	}
	resources := [][]string{{"pods"}, {"deployments", "statefulsets"}, {"services"}}
	groups := [][]string{{""}, {"apps"}, {""}}
	for w := range WebhooksPerObject {
		timeout := int32(timeoutBefore)
		if changed && w == 0 {
			timeout = timeoutAfter
		}
		hook := admissionregistrationv1.MutatingWebhook{
			Name: fmt.Sprintf("w%d.%s", w, name),
			ClientConfig: admissionregistrationv1.WebhookClientConfig{
				Service: &admissionregistrationv1.ServiceReference{
					Namespace: team,
					Name:      "webhook",
					Path:      ptr(fmt.Sprintf("/mutate-%d", w)),
					Port:      ptr(int32(8443)),
				},
			},
			AdmissionReviewVersions: []string{"v1"},
			SideEffects:             ptr(admissionregistrationv1.SideEffectClassNone),
			FailurePolicy:           ptr(admissionregistrationv1.Ignore),
			TimeoutSeconds:          ptr(timeout),
			NamespaceSelector: &metav1.LabelSelector{
				MatchExpressions: []metav1.LabelSelectorRequirement{{
					Key:      "kubernetes.io/metadata.name",
					Operator: metav1.LabelSelectorOpNotIn,
					Values:   []string{"kube-system", "kube-public", "kube-node-lease"},
				}},
			},
			ObjectSelector: &metav1.LabelSelector{
				MatchLabels: map[string]string{"app.kubernetes.io/part-of": team},
			},
		}
		for r := range rulesPerWebhook {
			ops := []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}
			if r == 1 {
				ops = []admissionregistrationv1.OperationType{admissionregistrationv1.Delete}
			}
			hook.Rules = append(hook.Rules, admissionregistrationv1.RuleWithOperations{
				Operations: ops,
				Rule: admissionregistrationv1.Rule{
					APIGroups:   groups[w],
					APIVersions: []string{"v1"},
					Resources:   resources[w],
					Scope:       ptr(admissionregistrationv1.NamespacedScope),
				},
			})
		}
		forms := []string{
			`request.namespace != "%s-system"`,
			`!(request.userInfo.username in ["system:serviceaccount:%s:deployer", "system:admin"])`,
			`!has(object.metadata.labels) || !("%s.example.com/skip" in object.metadata.labels)`,
			`!request.userInfo.groups.exists(g, g == "%s-breakglass")`,
		}
		for c := range conditions {
			hook.MatchConditions = append(hook.MatchConditions, admissionregistrationv1.MatchCondition{
				Name:       fmt.Sprintf("condition-%d", c),
				Expression: fmt.Sprintf(forms[c%len(forms)], team),
			})
		}
		obj.Webhooks = append(obj.Webhooks, hook)
	}
	return obj
}

// YAML renders the objects as one multi-document YAML stream for kubectl.
func YAML(objs []*admissionregistrationv1.MutatingWebhookConfiguration) ([]byte, error) {
	var b strings.Builder
	for _, o := range objs {
		data, err := yaml.Marshal(o)
		if err != nil {
			return nil, err
		}
		// Drop what the typed object writes as null (creationTimestamp).
		var m map[string]any
		if err := yaml.Unmarshal(data, &m); err != nil {
			return nil, err
		}
		dropNulls(m)
		if data, err = yaml.Marshal(m); err != nil {
			return nil, err
		}
		b.WriteString("---\n")
		b.Write(data)
	}
	return []byte(b.String()), nil
}

func dropNulls(m map[string]any) {
	for k, v := range m {
		switch v := v.(type) {
		case nil:
			delete(m, k)
		case map[string]any:
			dropNulls(v)
			if len(v) == 0 {
				delete(m, k)
			}
		case []any:
			for _, e := range v {
				if em, ok := e.(map[string]any); ok {
					dropNulls(em)
				}
			}
		}
	}
}

// ProviderSource is the provider's address in the configuration.
const ProviderSource = "seed-a73d233f/admission"

// HCL renders the objects as one Terraform configuration: one resource block
// per object, written out as people write them (no for_each), with the
// connection from the environment (KUBE_CONFIG_PATH).
func HCL(objs []*admissionregistrationv1.MutatingWebhookConfiguration) []byte {
	return hclOf(objs, "admission", ProviderSource, "admission_mutating_webhook_configuration")
}

// hclOf renders the objects for the provider named name at source, as
// resources of resourceType (the block layout of both providers).
func hclOf(objs []*admissionregistrationv1.MutatingWebhookConfiguration, name, source, resourceType string) []byte {
	w := &hclWriter{}
	w.line("terraform {")
	w.line("required_providers {")
	w.line(name + " = {")
	w.attr("source", source)
	w.line("}")
	w.line("}")
	w.line("}")
	w.line("")
	w.line(fmt.Sprintf(`provider %q {}`, name))
	for i, o := range objs {
		w.line("")
		w.line(fmt.Sprintf(`resource %q "bench_%04d" {`, resourceType, i))
		w.line("metadata {")
		w.attr("name", o.Name)
		w.mapAttr("labels", o.Labels)
		w.line("}")
		for _, h := range o.Webhooks {
			w.webhook(h)
		}
		w.line("}")
	}
	return []byte(w.b.String())
}

type hclWriter struct {
	b     strings.Builder
	depth int
}

func (w *hclWriter) line(s string) {
	if strings.HasPrefix(s, "}") {
		w.depth--
	}
	if s != "" {
		w.b.WriteString(strings.Repeat("  ", w.depth))
	}
	w.b.WriteString(s)
	w.b.WriteByte('\n')
	if strings.HasSuffix(s, "{") {
		w.depth++
	}
}

func (w *hclWriter) attr(name string, v any) {
	var s string
	switch v := v.(type) {
	case string:
		s = hclString(v)
	case []string:
		q := make([]string, len(v))
		for i, e := range v {
			q[i] = hclString(e)
		}
		s = "[" + strings.Join(q, ", ") + "]"
	case int32:
		s = strconv.Itoa(int(v))
	default:
		panic(fmt.Sprintf("hcl: %T", v))
	}
	w.line(name + " = " + s)
}

func (w *hclWriter) mapAttr(name string, m map[string]string) {
	if len(m) == 0 {
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	w.line(name + " = {")
	for _, k := range keys {
		w.line(hclString(k) + " = " + hclString(m[k]))
	}
	w.line("}")
}

func (w *hclWriter) webhook(h admissionregistrationv1.MutatingWebhook) {
	w.line("webhook {")
	w.attr("name", h.Name)
	w.attr("admission_review_versions", h.AdmissionReviewVersions)
	w.attr("side_effects", string(*h.SideEffects))
	w.attr("failure_policy", string(*h.FailurePolicy))
	w.attr("timeout_seconds", *h.TimeoutSeconds)
	w.line("client_config {")
	s := h.ClientConfig.Service
	w.line("service {")
	w.attr("namespace", s.Namespace)
	w.attr("name", s.Name)
	w.attr("path", *s.Path)
	w.attr("port", *s.Port)
	w.line("}")
	w.line("}")
	for _, r := range h.Rules {
		ops := make([]string, len(r.Operations))
		for i, o := range r.Operations {
			ops[i] = string(o)
		}
		w.line("rule {")
		w.attr("operations", ops)
		w.attr("api_groups", r.APIGroups)
		w.attr("api_versions", r.APIVersions)
		w.attr("resources", r.Resources)
		w.attr("scope", string(*r.Scope))
		w.line("}")
	}
	w.selector("namespace_selector", h.NamespaceSelector)
	w.selector("object_selector", h.ObjectSelector)
	for _, c := range h.MatchConditions {
		w.line("match_conditions {")
		w.attr("name", c.Name)
		w.attr("expression", c.Expression)
		w.line("}")
	}
	w.line("}")
}

func (w *hclWriter) selector(name string, s *metav1.LabelSelector) {
	if s == nil {
		return
	}
	w.line(name + " {")
	w.mapAttr("match_labels", s.MatchLabels)
	for _, e := range s.MatchExpressions {
		w.line("match_expressions {")
		w.attr("key", e.Key)
		w.attr("operator", string(e.Operator))
		w.attr("values", e.Values)
		w.line("}")
	}
	w.line("}")
}

// hclString quotes s as an HCL string literal: JSON escapes, and template
// sequences escaped so that they stay literal.
func hclString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\r':
			b.WriteString(`\r`)
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		case (c == '$' || c == '%') && i+1 < len(s) && s[i+1] == '{':
			b.WriteByte(c)
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
