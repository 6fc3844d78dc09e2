package validation

import (
	"fmt"
	"slices"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

// The summaries of the server's own warnings.
const (
	SummaryExcludedResource = "Rule names a resource that webhooks never see"
	SummaryReservedName     = "Name reserved for static configurations"
)

// excludedResources are the virtual resources that admission webhooks never see
// (k8s.io/kubernetes pkg/kubeapiserver/admission/exclusion, Excluded, in v1.37).
var excludedResources = []schema.GroupResource{
	{Group: "authentication.k8s.io", Resource: "selfsubjectreviews"},
	{Group: "authentication.k8s.io", Resource: "tokenreviews"},
	{Group: "authorization.k8s.io", Resource: "localsubjectaccessreviews"},
	{Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"},
	{Group: "authorization.k8s.io", Resource: "selfsubjectrulesreviews"},
	{Group: "authorization.k8s.io", Resource: "subjectaccessreviews"},
}

// ExcludedFromAdmission reports whether gr is one of the virtual resources
// that neither admission webhooks nor admission policies ever see
// (excludedResources).
func ExcludedFromAdmission(gr schema.GroupResource) bool {
	return slices.Contains(excludedResources, gr)
}

// ServerWarnings returns the warnings a kube-apiserver of version v gives when it accepts obj,
// on a create or an update, with its text (the strategy's WarningsOnCreate and
// WarningsOnUpdate): the reserved name suffix (StaticSuffixWarnings), and, from 1.37 (gate
// ExcludeAdmissionWebhookVirtualResources, beta and on by default), rules that name a virtual
// resource admission webhooks no longer see (WarningsForMutatingWebhookRules, at
// webhooks[i].rules[j], once per (group, resource) per rule). Before 1.37 webhooks are called
// for those resources, and the server says nothing.
func ServerWarnings(v Version, obj *admissionregistrationv1.MutatingWebhookConfiguration, update bool) []warning.Warning {
	if obj == nil {
		return nil
	}
	warnings := StaticSuffixWarnings(v, obj.Name, update)
	if !v.AtLeast(37) {
		return warnings
	}
	webhooksPath := field.NewPath("webhooks")
	for i := range obj.Webhooks {
		hook := &obj.Webhooks[i]
		for j := range hook.Rules {
			for _, gr := range excludedResourcesNamedByRule(hook.Rules[j].APIGroups, hook.Rules[j].Resources) {
				warnings = append(warnings, warning.Warning{Path: webhooksPath.Index(i).Child("rules").Index(j), Kind: warning.Server,
					Summary: SummaryExcludedResource, Message: fmt.Sprintf("%s is excluded from admission webhooks; this rule will have no effect", gr)})
			}
		}
	}
	return warnings
}

// excludedResourcesNamedByRule returns the excluded group/resources a rule names explicitly, each
// once, in the rule's order. A rule with "*" in apiGroups or resources names none
// (as the server's excludedResourcesNamedByRule).
func excludedResourcesNamedByRule(apiGroups, resources []string) []schema.GroupResource {
	if slices.Contains(apiGroups, "*") || slices.Contains(resources, "*") {
		return nil
	}
	var matched []schema.GroupResource
	for _, group := range apiGroups {
		for _, resource := range resources {
			gr := schema.GroupResource{Group: group, Resource: resource}
			if slices.Contains(excludedResources, gr) && !slices.Contains(matched, gr) {
				matched = append(matched, gr)
			}
		}
	}
	return matched
}
