package matching

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/rules"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// The requests the server never shows to an admission hook, whatever its rules.

// excludedFromWebhooks is why no webhook is called for attr by a server of version v, if none
// is: a request on an admission configuration kind (webhook configurations, admission
// policies and their bindings: rules.IsExemptAdmissionConfigurationResource, which the webhook
// plugin asks first), or, from 1.37, on one of the virtual review resources
// (validation.ExcludedFromAdmission; WebhooksSeeReviews).
func excludedFromWebhooks(attr admission.Attributes, v validation.Version) (Reason, string, bool) {
	if rules.IsExemptAdmissionConfigurationResource(attr) {
		return SkippedAdmissionConfiguration, "the API server does not call webhooks for " + attr.GetKind().Kind + " objects", true
	}
	if gr := attr.GetResource().GroupResource(); validation.ExcludedFromAdmission(gr) && !WebhooksSeeReviews(v) {
		return SkippedExcludedResource, "the API server does not call webhooks for " + gr.String(), true
	}
	return "", "", false
}

// ExcludedFromWebhooks reports whether the matcher's server (Config.Version) never calls a
// webhook for attr, whatever its rules (excludedFromWebhooks): what the simulator's webhook
// stages skip, as the server's webhook plugins do.
func (m *Matcher) ExcludedFromWebhooks(attr admission.Attributes) bool {
	_, _, excluded := excludedFromWebhooks(attr, m.version)
	return excluded
}

// WebhooksSeeReviews reports whether a kube-apiserver of version v (zero: validation.Assumed)
// calls webhooks for the virtual review resources (tokenreviews, subjectaccessreviews, ...:
// validation.ExcludedFromAdmission). Their list, k8s.io/kubernetes
// pkg/kubeapiserver/admission/exclusion Excluded, arrived in 1.31 and went to the admission
// policy plugins only (k8s.io/apiserver pkg/admission/plugin/policy/generic
// Plugin.SetExcludedAdmissionResources); from 1.37 the webhook plugin leaves them out too
// (pkg/admission/plugin/webhook/generic Webhook.isExcludedFromAllHooks, feature gate
// ExcludeAdmissionWebhookVirtualResources, KEP-5793, beta and on by default in 1.37). So
// servers 1.31 to 1.36 call webhooks for them, and 1.37 and later do not.
func WebhooksSeeReviews(v validation.Version) bool {
	if !v.Known() {
		v = validation.Assumed
	}
	return !v.AtLeast(37)
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
