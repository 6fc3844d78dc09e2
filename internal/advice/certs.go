package advice

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"math"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/tlscheck"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

// The certificates the API server needs to call a webhook: those of its caBundle, read offline
// (CABundleExpiry); the serving certificate of a URL webhook's backend, seen from where the
// provider runs (ServingCertificates); the cert-manager Certificate that a configuration's
// cert-manager.io/inject-ca-from annotation names (certmanager.go).

// The summaries of the warnings on certificates.
const (
	SummaryCABundleExpired     = "ca_bundle certificate has expired"
	SummaryCABundleNotYetValid = "ca_bundle certificate is not valid yet"
	SummaryCABundleExpiring    = "ca_bundle certificate expires soon"
	SummaryServingUnverified   = "Webhook's serving certificate does not verify"
	SummaryServingExpiring     = "Webhook's serving certificate expires soon"
	SummaryServingUnchecked    = "Could not check the webhook's serving certificate"
)

// CertificateNames names a certificate: its subject and when it expires.
func CertificateNames(c *x509.Certificate) string {
	subject := c.Subject.String()
	if subject == "" {
		subject = "with an empty subject"
	} else {
		subject = fmt.Sprintf("%q", subject)
	}
	return fmt.Sprintf("%s (not after %s)", subject, c.NotAfter.UTC().Format(time.RFC3339))
}

// BundleCertificates are the certificates of a PEM caBundle that parse, in order, as the API
// server's TLS client loads them (tlscheck.Pool): blocks of another type or that do not parse
// are left out (caBundleWarnings reports them).
func BundleCertificates(caBundle []byte) []*x509.Certificate {
	var out []*x509.Certificate
	for rest := caBundle; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return out
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		if c, err := x509.ParseCertificate(block.Bytes); err == nil {
			out = append(out, c)
		}
	}
}

// failureWords says what the API server does with the requests the webhook matches when it
// cannot call it: rejects them (fail closed), or lets them through without the webhook.
func failureWords(h *admissionregistrationv1.MutatingWebhook) string {
	if failsClosed(h.FailurePolicy) {
		return fmt.Sprintf("the webhook %q fails closed (failurePolicy Fail), so every request it matches (%s) is rejected", h.Name, matchedWords(h))
	}
	return fmt.Sprintf("the webhook %q fails open (failurePolicy Ignore), so it is skipped: every request it matches (%s) goes through without it", h.Name, matchedWords(h))
}

// days says how long d is in days, rounded down, at least "less than a day".
func days(d time.Duration) string {
	switch n := int(math.Floor(d.Hours() / 24)); {
	case n < 1:
		return "less than a day"
	case n == 1:
		return "1 day"
	default:
		return fmt.Sprintf("%d days", n)
	}
}

// CABundleExpiry warns, at webhooks[i].clientConfig.caBundle, of each certificate of a
// webhook's caBundle that has expired, is not valid yet, or expires within window of now. The
// API server verifies the backend's serving certificate against the caBundle (crypto/x509
// Certificate.Verify, which checks the validity of every certificate of the chain, the root
// included): once no certificate of the bundle is valid, every call fails with "x509:
// certificate has expired or is not yet valid", and the webhook fails as its failurePolicy
// says. A bundle that holds other certificates still valid (a rotation in progress) is said
// so. Healthy bundles say nothing; a bundle that is not PEM is caBundleWarnings'.
func CABundleExpiry(obj *admissionregistrationv1.MutatingWebhookConfiguration, window time.Duration, now time.Time) []warning.Warning {
	if obj == nil {
		return nil
	}
	var out []warning.Warning
	for i := range obj.Webhooks {
		h := &obj.Webhooks[i]
		certs := BundleCertificates(h.ClientConfig.CABundle)
		p := field.NewPath("webhooks").Index(i).Child("clientConfig", "caBundle")
		valid := 0
		for _, c := range certs {
			if !now.Before(c.NotBefore) && !now.After(c.NotAfter) {
				valid++
			}
		}
		for n, c := range certs {
			which := fmt.Sprintf("Certificate %d of the ca_bundle of webhook %q, %s,", n+1, h.Name, CertificateNames(c))
			others := ""
			if valid > 0 && len(certs) > 1 {
				others = " The bundle holds other certificates that are valid now: the API server still verifies a serving certificate that one of them issued; remove this one once none of the backend's certificates chain to it."
			}
			switch {
			case now.After(c.NotAfter):
				hurt := ""
				if valid == 0 {
					hurt = fmt.Sprintf(" No certificate of the bundle is valid, so the API server cannot verify the backend's serving certificate: every call fails with "+
						"\"x509: certificate has expired or is not yet valid\", and %s.", failureWords(h))
				}
				out = append(out, warning.Warning{Path: p, Kind: warning.Certificate, Summary: SummaryCABundleExpired, Message: fmt.Sprintf(
					"%s expired %s ago.%s%s Put the current CA of the webhook's backend in ca_bundle.", which, days(now.Sub(c.NotAfter)), hurt, others)})
			case now.Before(c.NotBefore):
				hurt := ""
				if valid == 0 {
					hurt = fmt.Sprintf(" Until then the API server cannot verify the backend's serving certificate with it: every call fails with "+
						"\"x509: certificate has expired or is not yet valid\", and %s.", failureWords(h))
				}
				out = append(out, warning.Warning{Path: p, Kind: warning.Certificate, Summary: SummaryCABundleNotYetValid, Message: fmt.Sprintf(
					"%s is valid only from %s (the clocks of the machine that made it and of this one may differ).%s%s",
					which, c.NotBefore.UTC().Format(time.RFC3339), hurt, others)})
			case c.NotAfter.Sub(now) <= window:
				out = append(out, warning.Warning{Path: p, Kind: warning.Certificate, Summary: SummaryCABundleExpiring, Message: fmt.Sprintf(
					"%s expires in %s (the provider warns %s ahead: ca_bundle_expiry_warning). Once it has expired, unless another certificate of the "+
						"bundle issued the backend's serving certificate, the API server cannot verify it: every call fails with \"x509: certificate has "+
						"expired or is not yet valid\", and %s. Rotate it ahead: put the new CA beside the old one in ca_bundle, apply, move the backend to a "+
						"serving certificate of the new CA, then remove the old one.", which, days(c.NotAfter.Sub(now)), window, failureWords(h))})
			}
		}
	}
	return out
}

// ServingCertificates checks, with check (a tlscheck.Checker's Check), the serving certificate
// of the backend of each URL webhook of obj for which want(i) holds (nil: all), and warns at
// webhooks[i].clientConfig.url: of a certificate that does not verify against the caBundle
// (the system's roots without one) or for the URL's host, in crypto/tls's words, which are the
// API server's when it calls the webhook; of one that expires within window of now; and, when
// the backend cannot be reached from where the provider runs, that it could not check (the
// provider's network is not the API server's, so this is no claim that the API server cannot
// call it). A caBundle that gives no certificate is caBundleWarnings'.
func ServingCertificates(ctx context.Context, obj *admissionregistrationv1.MutatingWebhookConfiguration, check func(ctx context.Context, url string, caBundle []byte) tlscheck.Result,
	want func(i int) bool, window time.Duration, now time.Time) []warning.Warning {
	if obj == nil || check == nil {
		return nil
	}
	var out []warning.Warning
	for i := range obj.Webhooks {
		h := &obj.Webhooks[i]
		u := h.ClientConfig.URL
		if u == nil || *u == "" || (want != nil && !want(i)) {
			continue
		}
		if len(h.ClientConfig.CABundle) > 0 && len(BundleCertificates(h.ClientConfig.CABundle)) == 0 {
			continue
		}
		roots := "its ca_bundle"
		if len(h.ClientConfig.CABundle) == 0 {
			roots = "the system's roots (it has no ca_bundle)"
		}
		p := field.NewPath("webhooks").Index(i).Child("clientConfig", "url")
		r := check(ctx, *u, h.ClientConfig.CABundle)
		switch {
		case r.Unchecked != nil:
			out = append(out, warning.Warning{Path: p, Kind: warning.Unread, Summary: SummaryServingUnchecked, Message: fmt.Sprintf(
				"The plan could not check the serving certificate of the webhook %q at %s from where Terraform runs: %v. This network is not the API server's, "+
					"so this says nothing of whether the API server can call it; set webhook_tls_check_on_plan = false in the provider to skip the check.",
				h.Name, hostOf(r, *u), r.Unchecked)})
		case r.Verify != nil:
			leaf := ""
			if r.Leaf != nil {
				leaf = fmt.Sprintf(" (it presents %s, issued by %q)", CertificateNames(r.Leaf), r.Leaf.Issuer.String())
			}
			out = append(out, warning.Warning{Path: p, Kind: warning.Certificate, Summary: SummaryServingUnverified, Message: fmt.Sprintf(
				"The serving certificate of the webhook %q at %s%s does not verify against %s for the host the URL names: %v. The API server verifies it the same way, "+
					"so it cannot call the webhook (failed calling webhook %q: failed to call webhook: Post %q: %v), and %s. %s",
				h.Name, r.Address, leaf, roots, r.Verify, h.Name, *u, r.Verify, failureWords(h), servingFix(r.Verify.Error()))})
		case r.Leaf != nil && r.Leaf.NotAfter.Sub(now) <= window:
			out = append(out, warning.Warning{Path: p, Kind: warning.Certificate, Summary: SummaryServingExpiring, Message: fmt.Sprintf(
				"The serving certificate of the webhook %q at %s, %s, expires in %s (the provider warns %s ahead: ca_bundle_expiry_warning). Once it has expired "+
					"the API server cannot call the webhook (x509: certificate has expired or is not yet valid), and %s. Renew it before then.",
				h.Name, r.Address, CertificateNames(r.Leaf), days(r.Leaf.NotAfter.Sub(now)), window, failureWords(h))})
		}
	}
	return out
}

// hostOf is the address the check called, or the URL when it did not get that far.
func hostOf(r tlscheck.Result, url string) string {
	if r.Address != "" {
		return r.Address
	}
	return url
}

// servingFix says what to change for a verification failure.
func servingFix(reason string) string {
	switch {
	case strings.Contains(reason, "unknown authority"):
		return "Put the CA that issued the backend's serving certificate in ca_bundle (beside the old one during a rotation)."
	case strings.Contains(reason, "expired or is not yet valid"):
		return "Renew the backend's serving certificate (or the CA in ca_bundle, if it is the one that expired)."
	case strings.Contains(reason, "IP SANs"), strings.Contains(reason, "not valid for"), strings.Contains(reason, "is valid for"):
		return "Issue the serving certificate for the host the URL names (a DNS name, or an IP address SAN for an IP host), or change the URL to a name it is valid for."
	}
	return ""
}
