package webhook

import (
	"errors"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The server's answers to a probe request, in kube-apiserver's words, read as the proof reads
// them.
func TestProofClassify(t *testing.T) {
	h := probeHook{name: "pabc.check.example.com"}
	const marker = "admission.seed-a73d233f.io/probe-marker-abc"
	cm := schema.GroupResource{Resource: "configmaps"}
	cases := []struct {
		name string
		err  error
		want outcome
	}{
		{"dry run went through", nil, notLoaded},
		{"marker reached", apierrors.NewForbidden(cm, "", errors.New("no such key: "+marker)), answered},
		{"denied", apierrors.NewForbidden(cm, "", errors.New(`admission webhook "pabc.check.example.com" denied the request: no`)), answered},
		{"failed calling", apierrors.NewInternalError(errors.New(`failed calling webhook "pabc.check.example.com": failed to call webhook: ` +
			`Post "https://127.0.0.1:1/": dial tcp 127.0.0.1:1: connect: connection refused`)), callFailed},
		{"another webhook failed", apierrors.NewInternalError(errors.New(`failed calling webhook "other.example.com": failed to call webhook: x`)), inconclusive},
		{"another webhook denied", apierrors.NewForbidden(cm, "", errors.New(`admission webhook "other.example.com" denied the request`)), forbidden},
		{"past admission", apierrors.NewInvalid(schema.GroupKind{Kind: "Pod"}, "", nil), notLoaded},
		{"RBAC", apierrors.NewForbidden(cm, "", errors.New(`User "writer" cannot create resource "configmaps"`)), forbidden},
		{"no namespace", apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, "default"), forbidden},
		{"timeout", apierrors.NewTimeoutError("request did not complete", 0), inconclusive},
	}
	for _, c := range cases {
		if got := classify(c.err, h, marker); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// Which webhooks an apply proves: all on a create; on an update, those that are new or whose
// client config, rules, failure policy, timeout or review versions change; not one whose
// selectors or match conditions alone change.
func TestProvesFor(t *testing.T) {
	base := func() *configuration {
		fail := admissionregistrationv1.Fail
		return &configuration{Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:                    "a.example.com",
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr("https://a.example.com"), CABundle: []byte("ca")},
			FailurePolicy:           &fail,
			TimeoutSeconds:          ptr[int32](10),
			AdmissionReviewVersions: []string{"v1"},
		}}}
	}
	if !provesFor(base(), nil, 0) {
		t.Error("a create proves nothing")
	}
	if provesFor(base(), base(), 0) {
		t.Error("an unchanged webhook is proven")
	}
	changes := map[string]func(*admissionregistrationv1.MutatingWebhook){
		"ca_bundle": func(h *admissionregistrationv1.MutatingWebhook) { h.ClientConfig.CABundle = []byte("other") },
		"url":       func(h *admissionregistrationv1.MutatingWebhook) { h.ClientConfig.URL = ptr("https://b.example.com") },
		"failure_policy": func(h *admissionregistrationv1.MutatingWebhook) {
			h.FailurePolicy = ptr(admissionregistrationv1.Ignore)
		},
		"timeout": func(h *admissionregistrationv1.MutatingWebhook) { h.TimeoutSeconds = ptr[int32](3) },
		"rules": func(h *admissionregistrationv1.MutatingWebhook) {
			h.Rules = []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{"CREATE"}}}
		},
		"name": func(h *admissionregistrationv1.MutatingWebhook) { h.Name = "b.example.com" },
	}
	for what, change := range changes {
		obj := base()
		change(&obj.Webhooks[0])
		if !provesFor(obj, base(), 0) {
			t.Errorf("a change of %s is not proven", what)
		}
	}
	obj := base()
	obj.Webhooks[0].MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "x", Expression: "true"}}
	if provesFor(obj, base(), 0) {
		t.Error("a change of match conditions alone is proven")
	}
}

// A caBundle that the configuration leaves to others is the stored one: an update that
// changes nothing else proves nothing, and one that changes the webhook proves it with the
// stored bundle.
func TestProofKeepsInjectedCABundle(t *testing.T) {
	stored := &configuration{Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: "a.example.com",
		ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: ptr("https://a.example.com"), CABundle: []byte("injected")}}}}
	planned := &configuration{Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: "a.example.com",
		ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: ptr("https://a.example.com")}}}}
	got := withStoredCABundles(planned, stored)
	if string(got.Webhooks[0].ClientConfig.CABundle) != "injected" || len(planned.Webhooks[0].ClientConfig.CABundle) != 0 {
		t.Fatalf("got %q, planned %q", got.Webhooks[0].ClientConfig.CABundle, planned.Webhooks[0].ClientConfig.CABundle)
	}
	if provesFor(got, stored, 0) {
		t.Error("an update that leaves the injected bundle proves the webhook")
	}
}
