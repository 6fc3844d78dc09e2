// Package advice is what the plan warns about beyond the API server's own rules: what the
// server accepts but will hurt. For webhooks: fail-closed webhooks that intercept what keeps the
// cluster alive (lockout.go), fail-closed webhooks whose timeouts add up to a request's
// deadline, a caBundle that is not PEM certificates, a reinvoked webhook with side effects; for
// policies and bindings: fail-closed policies that reach what keeps the cluster alive
// (lockout_policy.go), JSON patch paths that are not JSON pointers (hints.go). Which requests a
// webhook or policy sees is the one matcher's answer (internal/matching), over synthetic
// namespaces; the package holds no state. Every warning has its kind (internal/warning).
package advice

import (
	"bytes"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

// The summaries of the hints on webhooks.
const (
	SummaryCABundleNotPEM       = "ca_bundle is not PEM certificates"
	SummaryCABundleBase64       = "ca_bundle is base64-encoded PEM"
	SummaryReinvokedSideEffects = "Reinvoked webhook has side effects"
)

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
func Advice(obj *admissionregistrationv1.MutatingWebhookConfiguration, scopes ScopeResolver, serial bool) []warning.Warning {
	if obj == nil {
		return nil
	}
	var warnings []warning.Warning
	webhooksPath := field.NewPath("webhooks")
	for i := range obj.Webhooks {
		hook := &obj.Webhooks[i]
		p := webhooksPath.Index(i)
		warnings = append(warnings, caBundleWarnings(hook, p.Child("clientConfig", "caBundle"))...)
		if hook.ReinvocationPolicy != nil && *hook.ReinvocationPolicy == admissionregistrationv1.IfNeededReinvocationPolicy &&
			hook.SideEffects != nil && *hook.SideEffects != admissionregistrationv1.SideEffectClassNone {
			warnings = append(warnings, warning.Warning{Path: p.Child("reinvocationPolicy"), Kind: warning.Hint, Summary: SummaryReinvokedSideEffects, Message: fmt.Sprintf(
				"reinvocationPolicy IfNeeded may call the webhook more than once for one request, but sideEffects is %q: "+
					"its side effects may happen more than once; make the webhook idempotent and side-effect free (sideEffects None)",
				*hook.SideEffects)})
		}
	}
	return append(warnings, lockoutWarnings(obj, scopes, serial)...)
}

// caBundleWarnings warns when a non-empty caBundle is not a sequence of PEM CERTIFICATE blocks
// that each parse as X.509. The server stores any bytes, but then cannot verify the webhook.
func caBundleWarnings(hook *admissionregistrationv1.MutatingWebhook, fldPath *field.Path) []warning.Warning {
	caBundle := hook.ClientConfig.CABundle
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
		return []warning.Warning{{Path: fldPath, Kind: warning.Hint, Summary: SummaryCABundleBase64, Message: "caBundle is the base64 encoding of PEM certificates, as a YAML manifest has it, " +
			"but the provider encodes it itself: give the PEM text (for example base64decode(...) of this value, or file(\"ca.crt\")); " +
			"as it is, the API server will not be able to load it (unable to load root certificates), every call to the webhook fails, and " + failureWords(hook)}}
	}
	return []warning.Warning{{Path: fldPath, Kind: warning.Hint, Summary: SummaryCABundleNotPEM, Message: "caBundle is not PEM-encoded certificates (" + problem +
		"); the API server will not be able to load it (unable to load root certificates) to verify the webhook's serving certificate: every call to the webhook fails, and " +
		failureWords(hook)}}
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
