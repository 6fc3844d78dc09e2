package validation

import (
	"bytes"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"slices"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Warning is advice about a configuration the server accepts. Path is a server field path, as in
// Validate's errors, so the same mapping finds its attribute. Summary names the kind of warning,
// one per kind, so that Terraform folds only warnings of the same kind together.
type Warning struct {
	Path    *field.Path
	Summary string
	Message string
}

// The summaries of the warnings.
const (
	SummaryCABundleNotPEM       = "ca_bundle is not PEM certificates"
	SummaryCABundleBase64       = "ca_bundle is base64-encoded PEM"
	SummaryFailClosedSystem     = "Fail-closed webhook intercepts kube-system"
	SummaryFailClosedOwn        = "Fail-closed webhook intercepts its own namespace"
	SummaryReinvokedSideEffects = "Reinvoked webhook has side effects"
	SummaryExcludedResource     = "Rule names a resource that webhooks never see"
	SummaryReservedName         = "Name reserved for static configurations"
)

// String gives the warning as the server prints its own: "<path>: <message>".
func (w Warning) String() string {
	if w.Path == nil {
		return w.Message
	}
	return w.Path.String() + ": " + w.Message
}

// namespaceNameLabel is the label every namespace carries with its own name.
const namespaceNameLabel = "kubernetes.io/metadata.name"

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

// Warnings returns Advice and the warnings of a kube-apiserver of version Assumed (1.37) on a
// create (ServerWarnings).
func Warnings(obj *admissionregistrationv1.MutatingWebhookConfiguration) []Warning {
	return append(Advice(obj, nil, true), ServerWarnings(Assumed, obj, false)...)
}

// Advice returns advice for configs the server accepts but that will hurt (never errors),
// whatever the server's version:
//   - a caBundle that is not PEM certificates (at webhooks[i].clientConfig.caBundle);
//   - failurePolicy Fail on a webhook that the API server would call for a request that keeps
//     the cluster alive (lockout.go: kube-system's workloads and leader election, the nodes'
//     heartbeats and certificates, kube-apiserver's own RBAC, the webhook's own pods), asked
//     of k8s.io/apiserver's own matcher (at webhooks[i].failurePolicy);
//   - when serial (the webhooks of a mutating configuration, called one after another), the
//     timeouts of fail-closed webhooks that one request calls adding up to 30 s (at
//     webhooks[i].timeoutSeconds);
//   - reinvocationPolicy IfNeeded with sideEffects other than None (at webhooks[i].reinvocationPolicy).
//
// scopes tells which resources named in rules are namespaced (nil: none known; the lockout
// check then makes no claim about them). obj is expected to be defaulted (see Default);
// absent fields are read as their defaults.
func Advice(obj *admissionregistrationv1.MutatingWebhookConfiguration, scopes ScopeResolver, serial bool) []Warning {
	if obj == nil {
		return nil
	}
	var warnings []Warning
	webhooksPath := field.NewPath("webhooks")
	for i := range obj.Webhooks {
		hook := &obj.Webhooks[i]
		p := webhooksPath.Index(i)
		warnings = append(warnings, caBundleWarnings(hook.ClientConfig.CABundle, p.Child("clientConfig", "caBundle"))...)
		if hook.ReinvocationPolicy != nil && *hook.ReinvocationPolicy == admissionregistrationv1.IfNeededReinvocationPolicy &&
			hook.SideEffects != nil && *hook.SideEffects != admissionregistrationv1.SideEffectClassNone {
			warnings = append(warnings, Warning{p.Child("reinvocationPolicy"), SummaryReinvokedSideEffects, fmt.Sprintf(
				"reinvocationPolicy IfNeeded may call the webhook more than once for one request, but sideEffects is %q: "+
					"its side effects may happen more than once; make the webhook idempotent and side-effect free (sideEffects None)",
				*hook.SideEffects)})
		}
	}
	return append(warnings, lockoutWarnings(obj, scopes, serial)...)
}

// ServerWarnings returns the warnings a kube-apiserver of version v gives when it accepts obj,
// on a create or an update, with its text (the strategy's WarningsOnCreate and
// WarningsOnUpdate): the reserved name suffix (StaticSuffixWarnings), and, from 1.37 (gate
// ExcludeAdmissionWebhookVirtualResources, beta and on by default), rules that name a virtual
// resource admission webhooks no longer see (WarningsForMutatingWebhookRules, at
// webhooks[i].rules[j], once per (group, resource) per rule). Before 1.37 webhooks are called
// for those resources, and the server says nothing.
func ServerWarnings(v Version, obj *admissionregistrationv1.MutatingWebhookConfiguration, update bool) []Warning {
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
				warnings = append(warnings, Warning{webhooksPath.Index(i).Child("rules").Index(j), SummaryExcludedResource,
					fmt.Sprintf("%s is excluded from admission webhooks; this rule will have no effect", gr)})
			}
		}
	}
	return warnings
}

// caBundleWarnings warns when a non-empty caBundle is not a sequence of PEM CERTIFICATE blocks
// that each parse as X.509. The server stores any bytes, but then cannot verify the webhook.
func caBundleWarnings(caBundle []byte, fldPath *field.Path) []Warning {
	if len(caBundle) == 0 {
		return nil
	}
	problem := pemCertificatesProblem(caBundle)
	if problem == "" {
		return nil
	}
	if decoded, err := base64.StdEncoding.DecodeString(string(bytes.TrimSpace(caBundle))); err == nil && pemCertificatesProblem(decoded) == "" {
		// As a kubectl manifest has it: the provider already does the
		// API's base64, so this would be encoded twice.
		return []Warning{{fldPath, SummaryCABundleBase64, "caBundle is the base64 encoding of PEM certificates, as a YAML manifest has it, " +
			"but the provider encodes it itself: give the PEM text (for example base64decode(...) of this value, or file(\"ca.crt\")); " +
			"as it is, the API server will not be able to verify the webhook's serving certificate and calls to it will fail"}}
	}
	return []Warning{{fldPath, SummaryCABundleNotPEM, "caBundle is not PEM-encoded certificates (" + problem +
		"); the API server will not be able to verify the webhook's serving certificate and calls to it will fail"}}
}

// pemCertificatesProblem returns what is wrong with data as a PEM certificate bundle, or "".
func pemCertificatesProblem(data []byte) string {
	rest := data
	n := 0
	for {
		block, r := pem.Decode(rest)
		if block == nil {
			break
		}
		n++
		if block.Type != "CERTIFICATE" {
			return fmt.Sprintf("PEM block %d is of type %q, not CERTIFICATE", n, block.Type)
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return fmt.Sprintf("PEM block %d: %v", n, err)
		}
		rest = r
	}
	switch {
	case n == 0:
		return "no PEM block found"
	case len(bytes.TrimSpace(rest)) != 0:
		return fmt.Sprintf("unexpected data after PEM block %d", n)
	}
	return ""
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
