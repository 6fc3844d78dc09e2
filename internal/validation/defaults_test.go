package validation

import (
	"reflect"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// k8s.io/kubernetes pkg/apis/admissionregistration/v1 SetDefaults_MutatingWebhook, SetDefaults_Rule,
// SetDefaults_ServiceReference
func TestDefault(t *testing.T) {
	in := &mwc{
		ObjectMeta: metav1.ObjectMeta{Name: "x"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{
			{
				Name:         "a.b.c",
				ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Name: "s", Namespace: "n"}},
				Rules:        []admissionregistrationv1.RuleWithOperations{{}, {Rule: admissionregistrationv1.Rule{Scope: ptr(admissionregistrationv1.ScopeType("x"))}}},
			},
			{
				Name:               "explicit",
				ClientConfig:       admissionregistrationv1.WebhookClientConfig{URL: ptr("https://h")},
				FailurePolicy:      ptr(admissionregistrationv1.FailurePolicyType("")),
				MatchPolicy:        ptr(admissionregistrationv1.Exact),
				NamespaceSelector:  &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}},
				ObjectSelector:     &metav1.LabelSelector{},
				TimeoutSeconds:     ptr(int32(0)),
				ReinvocationPolicy: ptr(admissionregistrationv1.IfNeededReinvocationPolicy),
				SideEffects:        ptr(admissionregistrationv1.SideEffectClassNone),
			},
		},
	}
	before := in.DeepCopy()
	out := Default(in)
	if !reflect.DeepEqual(in, before) {
		t.Fatal("Default changed its argument")
	}

	want := before.DeepCopy()
	h := &want.Webhooks[0]
	h.FailurePolicy = ptr(admissionregistrationv1.Fail)
	h.MatchPolicy = ptr(admissionregistrationv1.Equivalent)
	h.NamespaceSelector = &metav1.LabelSelector{}
	h.ObjectSelector = &metav1.LabelSelector{}
	h.TimeoutSeconds = ptr(int32(10))
	h.ReinvocationPolicy = ptr(admissionregistrationv1.NeverReinvocationPolicy)
	h.ClientConfig.Service.Port = ptr(int32(443))
	h.Rules[0].Scope = ptr(admissionregistrationv1.AllScopes)
	// No defaults for sideEffects, admissionReviewVersions, url, path or anything explicit.
	if !reflect.DeepEqual(out, want) {
		t.Errorf("got  %+v\nwant %+v", out.Webhooks, want.Webhooks)
	}
	if Default(nil) != nil {
		t.Error("Default(nil)")
	}
	// Idempotent.
	if again := Default(out); !reflect.DeepEqual(again, out) {
		t.Error("Default is not idempotent")
	}
}
