package validation

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Default applies the server's v1 defaults (k8s.io/kubernetes pkg/apis/admissionregistration/v1
// SetDefaults_MutatingWebhook, SetDefaults_Rule, SetDefaults_ServiceReference) to a deep copy and returns it.
// A field is defaulted only when it is nil; explicit values, even invalid ones, are kept.
func Default(obj *admissionregistrationv1.MutatingWebhookConfiguration) *admissionregistrationv1.MutatingWebhookConfiguration {
	if obj == nil {
		return nil
	}
	out := obj.DeepCopy()
	for i := range out.Webhooks {
		hook := &out.Webhooks[i]
		if hook.FailurePolicy == nil {
			hook.FailurePolicy = ptr(admissionregistrationv1.Fail)
		}
		if hook.MatchPolicy == nil {
			hook.MatchPolicy = ptr(admissionregistrationv1.Equivalent)
		}
		if hook.NamespaceSelector == nil {
			hook.NamespaceSelector = &metav1.LabelSelector{}
		}
		if hook.ObjectSelector == nil {
			hook.ObjectSelector = &metav1.LabelSelector{}
		}
		if hook.TimeoutSeconds == nil {
			hook.TimeoutSeconds = ptr(int32(10))
		}
		if hook.ReinvocationPolicy == nil {
			hook.ReinvocationPolicy = ptr(admissionregistrationv1.NeverReinvocationPolicy)
		}
		// No default for sideEffects or admissionReviewVersions in v1.
		if svc := hook.ClientConfig.Service; svc != nil && svc.Port == nil {
			svc.Port = ptr(int32(443))
		}
		for j := range hook.Rules {
			if hook.Rules[j].Scope == nil {
				hook.Rules[j].Scope = ptr(admissionregistrationv1.AllScopes)
			}
		}
	}
	return out
}

func ptr[T any](v T) *T { return &v }
