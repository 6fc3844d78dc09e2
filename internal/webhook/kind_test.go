package webhook

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/core"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	admissionregistrationv1ac "k8s.io/client-go/applyconfigurations/admissionregistration/v1"
)

// A ValidatingWebhookConfiguration goes to the core's form and back
// unchanged, and its apply configuration carries its own kind and every
// field the core's object has.
func TestValidatingKindConversion(t *testing.T) {
	fail, none := admissionregistrationv1.Fail, admissionregistrationv1.SideEffectClassNone
	url, timeout := "https://hooks.example.com/v", int32(7)
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "v.example.com", Labels: map[string]string{"team": "platform"}, ResourceVersion: "12"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    "check.v.example.com",
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: []byte("pem")},
			Rules:                   []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{"CREATE"}, Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}},
			FailurePolicy:           &fail,
			SideEffects:             &none,
			TimeoutSeconds:          &timeout,
			AdmissionReviewVersions: []string{"v1"},
			MatchConditions:         []admissionregistrationv1.MatchCondition{{Name: "c", Expression: "true"}},
		}},
	}
	c, err := core.As[configuration](v)
	if err != nil {
		t.Fatal(err)
	}
	if c.Webhooks[0].ReinvocationPolicy != nil || c.Name != v.Name || string(c.Webhooks[0].ClientConfig.CABundle) != "pem" {
		t.Errorf("core form: %+v", c)
	}
	back := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	if err := convertJSON(c, back); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(v, back); d != "" {
		t.Errorf("validating → core → validating (-want +got):\n%s", d)
	}

	ac, err := core.ApplyConfiguration[admissionregistrationv1ac.ValidatingWebhookConfigurationApplyConfiguration](c, validating.API.Kind)
	if err != nil {
		t.Fatal(err)
	}
	if *ac.Kind != "ValidatingWebhookConfiguration" || *ac.APIVersion != "admissionregistration.k8s.io/v1" || *ac.Name != v.Name {
		t.Errorf("apply configuration: kind %s, apiVersion %s, name %s", *ac.Kind, *ac.APIVersion, *ac.Name)
	}
	if len(ac.Webhooks) != 1 || *ac.Webhooks[0].TimeoutSeconds != 7 || len(ac.Webhooks[0].MatchConditions) != 1 {
		t.Errorf("apply configuration webhooks: %+v", ac.Webhooks)
	}

	// The mutating kind's own objects are used as they are.
	m := &configuration{ObjectMeta: metav1.ObjectMeta{Name: "m"}}
	if got, _ := core.As[configuration](m); got != m {
		t.Error("toCore copied a MutatingWebhookConfiguration")
	}
	mac, err := core.ApplyConfiguration[admissionregistrationv1ac.MutatingWebhookConfigurationApplyConfiguration](m, mutating.API.Kind)
	if err != nil || *mac.Kind != "MutatingWebhookConfiguration" {
		t.Errorf("mutating apply configuration: %v, %v", mac, err)
	}
}

// State moves from hashicorp/kubernetes whichever registry host the CLI
// names it by, and from no other provider.
func TestFromHashicorpKubernetes(t *testing.T) {
	for address, want := range map[string]bool{
		"registry.terraform.io/hashicorp/kubernetes": true,
		"registry.opentofu.org/hashicorp/kubernetes": true,
		"registry.terraform.io/hashicorp/helm":       false,
		"registry.terraform.io/acme/kubernetes":      false,
		"hashicorp/kubernetes":                       false,
		"":                                           false,
	} {
		if got := core.FromHashicorpKubernetes(address); got != want {
			t.Errorf("%q: got %v, want %v", address, got, want)
		}
	}
}
