package webhook

import (
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The apply waits for a webhook's service when it creates a fail-closed webhook that calls a
// service, or widens one: fail closed where it was not, another service or port, other rules,
// selectors, match conditions or match policy; not for a fail-open one, a URL, or a change
// that leaves what it calls and matches alone.
func TestWaitsFor(t *testing.T) {
	fail, ignore := admissionregistrationv1.Fail, admissionregistrationv1.Ignore
	exact := admissionregistrationv1.Exact
	port := int32(8443)
	base := func() *configuration {
		return &configuration{Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name: "a.example.com", FailurePolicy: &fail,
			ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Namespace: "n", Name: "s"}},
			Rules: []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{"CREATE"},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}},
		}}}
	}
	with := func(change func(h *admissionregistrationv1.MutatingWebhook)) *configuration {
		o := base()
		change(&o.Webhooks[0])
		return o
	}
	for _, c := range []struct {
		name        string
		obj, stored *configuration
		want        bool
	}{
		{"created", base(), nil, true},
		{"created fail open", with(func(h *admissionregistrationv1.MutatingWebhook) { h.FailurePolicy = &ignore }), nil, false},
		{"created with a url", with(func(h *admissionregistrationv1.MutatingWebhook) {
			h.ClientConfig = admissionregistrationv1.WebhookClientConfig{URL: new("https://x.example.com")}
		}), nil, false},
		{"unchanged", base(), base(), false},
		{"a timeout changed", with(func(h *admissionregistrationv1.MutatingWebhook) { h.TimeoutSeconds = new(int32(3)) }), base(), false},
		{"made fail closed", base(), with(func(h *admissionregistrationv1.MutatingWebhook) { h.FailurePolicy = &ignore }), true},
		{"another port", with(func(h *admissionregistrationv1.MutatingWebhook) { h.ClientConfig.Service.Port = &port }), base(), true},
		{"port 443 spelled out", with(func(h *admissionregistrationv1.MutatingWebhook) { h.ClientConfig.Service.Port = new(int32(443)) }), base(), false},
		{"another service", with(func(h *admissionregistrationv1.MutatingWebhook) { h.ClientConfig.Service.Name = "t" }), base(), true},
		{"other rules", with(func(h *admissionregistrationv1.MutatingWebhook) { h.Rules[0].Resources = []string{"pods", "services"} }), base(), true},
		{"a selector", with(func(h *admissionregistrationv1.MutatingWebhook) {
			h.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}
		}), base(), true},
		{"match policy", with(func(h *admissionregistrationv1.MutatingWebhook) { h.MatchPolicy = &exact }), base(), true},
		{"a new webhook in the update", base(), with(func(h *admissionregistrationv1.MutatingWebhook) { h.Name = "b.example.com" }), true},
	} {
		if got := waitsFor(c.obj, c.stored, 0); got != c.want {
			t.Errorf("%s: waits %v, want %v", c.name, got, c.want)
		}
	}
}
