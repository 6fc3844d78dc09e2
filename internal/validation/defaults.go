package validation

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The server's v1 defaults (k8s.io/kubernetes pkg/apis/admissionregistration/v1 defaults.go:
// SetDefaults_MutatingWebhook, SetDefaults_ValidatingWebhook, SetDefaults_Rule,
// SetDefaults_ServiceReference, SetDefaults_MatchResources, SetDefaults_*AdmissionPolicySpec),
// written once: the defaulting functions below, the resources' schema defaults (shown in the
// plan, so that what Terraform plans is what the server stores) and the advice read these.
const (
	DefaultFailurePolicy      = admissionregistrationv1.Fail
	DefaultMatchPolicy        = admissionregistrationv1.Equivalent
	DefaultReinvocationPolicy = admissionregistrationv1.NeverReinvocationPolicy
	DefaultScope              = admissionregistrationv1.AllScopes
	DefaultTimeoutSeconds     = int32(10)
	DefaultServicePort        = int32(443)
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
			hook.FailurePolicy = ptr(DefaultFailurePolicy)
		}
		if hook.MatchPolicy == nil {
			hook.MatchPolicy = ptr(DefaultMatchPolicy)
		}
		if hook.NamespaceSelector == nil {
			hook.NamespaceSelector = &metav1.LabelSelector{}
		}
		if hook.ObjectSelector == nil {
			hook.ObjectSelector = &metav1.LabelSelector{}
		}
		if hook.TimeoutSeconds == nil {
			hook.TimeoutSeconds = ptr(DefaultTimeoutSeconds)
		}
		if hook.ReinvocationPolicy == nil {
			hook.ReinvocationPolicy = ptr(DefaultReinvocationPolicy)
		}
		// No default for sideEffects or admissionReviewVersions in v1.
		if svc := hook.ClientConfig.Service; svc != nil && svc.Port == nil {
			svc.Port = ptr(DefaultServicePort)
		}
		for j := range hook.Rules {
			if hook.Rules[j].Scope == nil {
				hook.Rules[j].Scope = ptr(DefaultScope)
			}
		}
	}
	return out
}

// DefaultValidating applies the server's defaults to a validating configuration
// (SetDefaults_ValidatingWebhook): those of a mutating one (Default), but the reinvocation
// policy that validating webhooks do not have. It returns a deep copy.
func DefaultValidating(cfg *admissionregistrationv1.ValidatingWebhookConfiguration) *admissionregistrationv1.ValidatingWebhookConfiguration {
	if cfg == nil {
		return nil
	}
	m := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: cfg.ObjectMeta}
	for _, h := range cfg.Webhooks {
		m.Webhooks = append(m.Webhooks, admissionregistrationv1.MutatingWebhook{
			Name: h.Name, ClientConfig: h.ClientConfig, Rules: h.Rules, FailurePolicy: h.FailurePolicy, MatchPolicy: h.MatchPolicy,
			NamespaceSelector: h.NamespaceSelector, ObjectSelector: h.ObjectSelector, SideEffects: h.SideEffects, TimeoutSeconds: h.TimeoutSeconds,
			AdmissionReviewVersions: h.AdmissionReviewVersions, MatchConditions: h.MatchConditions,
		})
	}
	m = Default(m)
	out := cfg.DeepCopy()
	for i, h := range m.Webhooks {
		w := &out.Webhooks[i]
		w.ClientConfig, w.Rules, w.FailurePolicy, w.MatchPolicy = h.ClientConfig, h.Rules, h.FailurePolicy, h.MatchPolicy
		w.NamespaceSelector, w.ObjectSelector, w.TimeoutSeconds = h.NamespaceSelector, h.ObjectSelector, h.TimeoutSeconds
	}
	return out
}

func ptr[T any](v T) *T { return &v }
