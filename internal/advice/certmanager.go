package advice

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/live"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

// InjectCAFrom is the annotation by which cert-manager's CA injector (cainjector) fills the
// caBundle of every webhook of a configuration with the CA of a Certificate's Secret:
// "<namespace>/<certificate name>".
const InjectCAFrom = "cert-manager.io/inject-ca-from"

// The summaries of the warnings on a configuration's cert-manager Certificate.
const (
	SummaryCertManagerNotReady  = "cert-manager Certificate is not ready"
	SummaryCertManagerExpiring  = "cert-manager Certificate expires soon"
	SummaryCertManagerMissing   = "cert-manager Certificate does not exist"
	SummaryCertManagerUnchecked = "Could not check the cert-manager Certificate"
)

// CertManagerWarnings reads, with r, the cert-manager Certificate (cert-manager.io/v1) that
// obj's cert-manager.io/inject-ca-from annotation names, and warns at that annotation when it
// does not exist, when its Ready condition is not True (or missing), or when its
// status.notAfter is within window of now and cert-manager has not scheduled its renewal
// ahead (status.renewalTime missing or past: a renewal that is due and has not happened). The
// CA injector and the webhook's backend both take the certificate from the Certificate's
// Secret: a Certificate that is not issued, or not renewed, leaves the webhooks' caBundle
// empty or stale and the backend without a valid certificate, so the API server cannot call
// the webhooks. No Secret is read. A cluster that does not serve the kind (cert-manager not
// installed) or that forbids the read is said once per run (Kind Unread); one that cannot be
// reached says nothing, as for the other checks that read the cluster.
func CertManagerWarnings(ctx context.Context, r *live.Reader, obj *admissionregistrationv1.MutatingWebhookConfiguration, window time.Duration, now time.Time) []warning.Warning {
	if r == nil || obj == nil || len(obj.Webhooks) == 0 {
		return nil
	}
	ref, ok := obj.Annotations[InjectCAFrom]
	if !ok {
		return nil
	}
	p := field.NewPath("metadata", "annotations").Key(InjectCAFrom)
	namespace, name, ok := strings.Cut(ref, "/")
	if !ok || namespace == "" || name == "" || strings.Contains(name, "/") {
		return []warning.Warning{{Path: p, Kind: warning.Certificate, Summary: SummaryCertManagerMissing, Message: fmt.Sprintf(
			"The annotation %s is %q, not <namespace>/<certificate name>: cert-manager's CA injector injects no caBundle into the webhooks (%s).",
			InjectCAFrom, ref, hooksWords(obj))}}
	}
	cert, err := r.Get(ctx, "cert-manager.io/v1", "Certificate", namespace, name)
	if err != nil {
		var re *live.ReadError
		if !r.Report(err) || !errors.As(err, &re) {
			return nil
		}
		why := err.Error()
		if meta.IsNoMatchError(err) {
			why = "the cluster does not serve certificates.cert-manager.io/v1 (cert-manager is not installed, or not this version of it)"
		} else if re.Failure == live.Forbidden {
			why += " (the check needs to get certificates.cert-manager.io)"
		}
		return []warning.Warning{{Path: p, Kind: warning.Unread, Summary: SummaryCertManagerUnchecked, Message: fmt.Sprintf(
			"The plan could not check the cert-manager Certificate %q in namespace %q named by %s: %s. It makes no claim about it.", name, namespace, InjectCAFrom, why)}}
	}
	what := fmt.Sprintf("The cert-manager Certificate %q in namespace %q, from which cert-manager's CA injector fills the caBundle of the webhooks (%s),", name, namespace, hooksWords(obj))
	if cert == nil {
		return []warning.Warning{{Path: p, Kind: warning.Certificate, Summary: SummaryCertManagerMissing, Message: what +
			" does not exist: no caBundle is injected, and the API server cannot verify the webhooks' backend (" + outcomeWords(obj) + "). Create the Certificate before the webhooks, or fix the annotation."}}
	}
	var out []warning.Warning
	ready, reason := readyCondition(cert)
	if !ready {
		out = append(out, warning.Warning{Path: p, Kind: warning.Certificate, Summary: SummaryCertManagerNotReady, Message: fmt.Sprintf(
			"%s is not ready: %s. Until cert-manager issues it, the caBundle injected and the backend's serving certificate are missing or stale, "+
				"and the API server may not be able to call the webhooks (%s). See kubectl describe certificate -n %s %s.", what, reason, outcomeWords(obj), namespace, name)})
	}
	notAfter, okAfter := statusTime(cert, "notAfter")
	renewal, okRenewal := statusTime(cert, "renewalTime")
	if okAfter && (now.After(notAfter) || notAfter.Sub(now) <= window && (!okRenewal || !renewal.After(now))) {
		state := "expires in " + days(notAfter.Sub(now))
		if now.After(notAfter) {
			state = "expired " + days(now.Sub(notAfter)) + " ago"
		}
		renewed := "cert-manager has scheduled no renewal"
		if okRenewal {
			renewed = "its renewal was due at " + renewal.UTC().Format(time.RFC3339) + " and has not happened"
		}
		out = append(out, warning.Warning{Path: p, Kind: warning.Certificate, Summary: SummaryCertManagerExpiring, Message: fmt.Sprintf(
			"%s %s (not after %s; the provider warns %s ahead: ca_bundle_expiry_warning), and %s. Once it has expired the API server cannot verify the "+
				"webhooks' backend (%s). Check cert-manager's logs and the Certificate's issuer.", what, state, notAfter.UTC().Format(time.RFC3339), window, renewed, outcomeWords(obj))})
	}
	return out
}

// readyCondition reports whether the Certificate's Ready condition is True, and if not, in
// words, what it says.
func readyCondition(cert *unstructured.Unstructured) (bool, string) {
	conditions, _, _ := unstructured.NestedSlice(cert.Object, "status", "conditions")
	for _, c := range conditions {
		m, ok := c.(map[string]any)
		if !ok || m["type"] != "Ready" {
			continue
		}
		if m["status"] == "True" {
			return true, ""
		}
		s := fmt.Sprintf("its Ready condition is %v", m["status"])
		if reason, _ := m["reason"].(string); reason != "" {
			s += " (" + reason
			if msg, _ := m["message"].(string); msg != "" {
				s += ": " + msg
			}
			s += ")"
		}
		return false, s
	}
	return false, "it has no Ready condition (cert-manager has not issued it, or is not running)"
}

// statusTime is the RFC 3339 time at status.<name>, if there is one.
func statusTime(cert *unstructured.Unstructured, name string) (time.Time, bool) {
	s, ok, _ := unstructured.NestedString(cert.Object, "status", name)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, s)
	return t, err == nil
}

// hooksWords names the webhooks of obj.
func hooksWords(obj *admissionregistrationv1.MutatingWebhookConfiguration) string {
	var names []string
	for _, h := range obj.Webhooks {
		names = append(names, fmt.Sprintf("%q", h.Name))
	}
	return strings.Join(names, ", ")
}

// outcomeWords says what happens to the requests of obj's webhooks when the API server
// cannot call them.
func outcomeWords(obj *admissionregistrationv1.MutatingWebhookConfiguration) string {
	var closed, open []string
	for _, h := range obj.Webhooks {
		if failsClosed(h.FailurePolicy) {
			closed = append(closed, fmt.Sprintf("%q", h.Name))
		} else {
			open = append(open, fmt.Sprintf("%q", h.Name))
		}
	}
	var parts []string
	if len(closed) > 0 {
		parts = append(parts, "the requests that "+strings.Join(closed, ", ")+" match are rejected: failurePolicy Fail")
	}
	if len(open) > 0 {
		parts = append(parts, strings.Join(open, ", ")+" are skipped and the requests they match go through without them: failurePolicy Ignore")
	}
	return strings.Join(parts, "; ")
}
