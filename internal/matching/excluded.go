package matching

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/rules"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// The requests the server never shows to an admission hook, whatever its rules.

// excludedFromWebhooks is why no webhook is called for attr, if none is: a request on an
// admission configuration kind (webhook configurations, admission policies and their
// bindings: rules.IsExemptAdmissionConfigurationResource, which the webhook plugin asks
// first), or on one of the virtual review resources (validation.ExcludedFromAdmission).
func excludedFromWebhooks(attr admission.Attributes) (Reason, string, bool) {
	if rules.IsExemptAdmissionConfigurationResource(attr) {
		return SkippedAdmissionConfiguration, "the API server does not call webhooks for " + attr.GetKind().Kind + " objects", true
	}
	if gr := attr.GetResource().GroupResource(); validation.ExcludedFromAdmission(gr) {
		return SkippedExcludedResource, "the API server does not call webhooks for " + gr.String(), true
	}
	return "", "", false
}

// ExcludedFromPolicies reports whether the server never applies admission policies to
// requests on gr: the policies and bindings themselves (k8s.io/apiserver
// pkg/admission/plugin/policy/generic Plugin.Dispatch, isExcludedFromAPIHooks), and the
// virtual review resources that no admission plugin sees (validation.ExcludedFromAdmission).
func ExcludedFromPolicies(gr schema.GroupResource) bool {
	if validation.ExcludedFromAdmission(gr) {
		return true
	}
	if gr.Group != "admissionregistration.k8s.io" {
		return false
	}
	switch gr.Resource {
	case "validatingadmissionpolicies", "validatingadmissionpolicybindings", "mutatingadmissionpolicies", "mutatingadmissionpolicybindings":
		return true
	}
	return false
}
