package advice

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/tlscheck"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tlscheck/tlstest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

const window = 30 * 24 * time.Hour

func ca(cn string, notBefore, notAfter time.Duration) string {
	return tlstest.CA(tlstest.Template{CommonName: cn, NotBefore: time.Now().Add(notBefore), NotAfter: time.Now().Add(notAfter)}).PEM()
}

// Each certificate of a caBundle read offline: silent when valid beyond the window, a warning
// of kind Certificate at the webhook's caBundle naming the certificate otherwise.
func TestCABundleExpiry(t *testing.T) {
	const day = 24 * time.Hour
	healthy := ca("healthy-ca", -day, 365*day)
	cases := []struct {
		name, bundle, summary string
		policy                admissionregistrationv1.FailurePolicyType
		says                  []string
	}{
		{"healthy", healthy, "", admissionregistrationv1.Fail, nil},
		{"empty", "", "", admissionregistrationv1.Fail, nil},
		{"expired", ca("old-ca", -400*day, -2*day), SummaryCABundleExpired, admissionregistrationv1.Fail,
			[]string{`Certificate 1 of the ca_bundle of webhook "a.example.com", "CN=old-ca" (not after `, "expired 2 days ago", "No certificate of the bundle is valid",
				`x509: certificate has expired or is not yet valid`, "fails closed (failurePolicy Fail), so every request it matches (CREATE of pods) is rejected"}},
		{"expired, fail open", ca("old-ca", -400*day, -2*day), SummaryCABundleExpired, admissionregistrationv1.Ignore,
			[]string{"fails open (failurePolicy Ignore), so it is skipped: every request it matches (CREATE of pods) goes through without it"}},
		{"expires in 10 days", ca("soon-ca", -day, 10*day+time.Hour), SummaryCABundleExpiring, admissionregistrationv1.Fail,
			[]string{`"CN=soon-ca"`, "expires in 10 days", "ca_bundle_expiry_warning", "put the new CA beside the old one"}},
		{"not yet valid", ca("future-ca", 2*day, 400*day), SummaryCABundleNotYetValid, admissionregistrationv1.Fail,
			[]string{`"CN=future-ca"`, "is valid only from"}},
		{"rotation: the old one expired", ca("old-ca", -400*day, -day) + healthy, SummaryCABundleExpired, admissionregistrationv1.Fail,
			[]string{"Certificate 1 of", "other certificates that are valid now"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := valid()
			hook0(o).ClientConfig.CABundle = []byte(c.bundle)
			hook0(o).FailurePolicy = ptr(c.policy)
			ws := CABundleExpiry(o, window, time.Now())
			if c.summary == "" {
				if len(ws) != 0 {
					t.Fatalf("want none, got %v", ws)
				}
				return
			}
			if len(ws) != 1 {
				t.Fatalf("want one warning, got %v", ws)
			}
			w := ws[0]
			if w.Summary != c.summary || w.Kind != warning.Certificate || w.Path.String() != "webhooks[0].clientConfig.caBundle" {
				t.Errorf("got %s %q at %s", w.Kind, w.Summary, w.Path)
			}
			for _, s := range c.says {
				if !strings.Contains(w.Message, s) {
					t.Errorf("the warning does not say %q: %s", s, w.Message)
				}
			}
		})
	}
	// The window is the setting's.
	o := valid()
	hook0(o).ClientConfig.CABundle = []byte(ca("soon-ca", -day, 10*day))
	if ws := CABundleExpiry(o, 7*day, time.Now()); len(ws) != 0 {
		t.Errorf("a CA that expires in 10 days with a window of 7: %v", ws)
	}
}

// A malformed caBundle is the existing hint, which now says what hurts.
func TestCABundleMalformed(t *testing.T) {
	o := valid()
	hook0(o).ClientConfig.CABundle = []byte("-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n")
	var ws []warning.Warning
	for _, w := range Advice(o, nil, true) {
		if w.Path.String() == "webhooks[0].clientConfig.caBundle" {
			ws = append(ws, w)
		}
	}
	if len(ws) != 1 || ws[0].Kind != warning.Hint || ws[0].Summary != SummaryCABundleNotPEM || ws[0].Path.String() != "webhooks[0].clientConfig.caBundle" ||
		!strings.Contains(ws[0].Message, "unable to load root certificates") || !strings.Contains(ws[0].Message, "is rejected") {
		t.Fatalf("got %v", ws)
	}
	if ws := CABundleExpiry(o, window, time.Now()); len(ws) != 0 {
		t.Errorf("the expiry check on a bundle that does not parse: %v", ws)
	}
}

// The warnings of the TLS check's results, at the webhook's url.
func TestServingCertificates(t *testing.T) {
	leaf := tlstest.CA(tlstest.Template{CommonName: "root"}).Issue(tlstest.Template{CommonName: "svc", NotAfter: time.Now().Add(5 * 24 * time.Hour)}).Cert
	verr := errors.New("tls: failed to verify certificate: x509: certificate signed by unknown authority")
	cases := []struct {
		name    string
		res     tlscheck.Result
		kind    warning.Kind
		summary string
		says    []string
	}{
		{"verifies", tlscheck.Result{Address: "h:443", Leaf: tlstest.CA(tlstest.Template{CommonName: "x"}).Cert}, 0, "", nil},
		{"unknown authority", tlscheck.Result{Address: "h:443", Verify: verr, Leaf: leaf}, warning.Certificate, SummaryServingUnverified,
			[]string{`failed calling webhook "a.example.com": failed to call webhook: Post "https://h/validate": tls: failed to verify certificate: x509: certificate signed by unknown authority`,
				`"CN=svc"`, "Put the CA that issued"}},
		{"expiring", tlscheck.Result{Address: "h:443", Leaf: leaf}, warning.Certificate, SummaryServingExpiring, []string{"expires in 4 days"}},
		{"unreachable", tlscheck.Result{Address: "h:443", Unchecked: errors.New("dial tcp: connection refused")}, warning.Unread, SummaryServingUnchecked,
			[]string{"could not check", "connection refused", "says nothing of whether the API server can call it"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := valid()
			hook0(o).ClientConfig = admissionregistrationv1.WebhookClientConfig{URL: ptr("https://h/validate")}
			calls := 0
			ws := ServingCertificates(context.Background(), o, func(_ context.Context, url string, _ []byte) tlscheck.Result {
				calls++
				return c.res
			}, nil, window, time.Now())
			if calls != 1 {
				t.Errorf("%d checks", calls)
			}
			if c.summary == "" {
				if len(ws) != 0 {
					t.Fatalf("want none, got %v", ws)
				}
				return
			}
			if len(ws) != 1 || ws[0].Kind != c.kind || ws[0].Summary != c.summary || ws[0].Path.String() != "webhooks[0].clientConfig.url" {
				t.Fatalf("got %v", ws)
			}
			for _, s := range c.says {
				if !strings.Contains(ws[0].Message, s) {
					t.Errorf("the warning does not say %q: %s", s, ws[0].Message)
				}
			}
		})
	}
	// A service webhook, or one whose values are not known, is not checked.
	o := valid()
	if ws := ServingCertificates(context.Background(), o, func(context.Context, string, []byte) tlscheck.Result {
		t.Error("a service webhook checked")
		return tlscheck.Result{}
	}, nil, window, time.Now()); len(ws) != 0 {
		t.Error(ws)
	}
	hook0(o).ClientConfig = admissionregistrationv1.WebhookClientConfig{URL: ptr("https://h/validate")}
	ServingCertificates(context.Background(), o, func(context.Context, string, []byte) tlscheck.Result {
		t.Error("a webhook not wanted checked")
		return tlscheck.Result{}
	}, func(int) bool { return false }, window, time.Now())
}
