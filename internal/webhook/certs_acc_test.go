package webhook_test

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/advice"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tlscheck/tlstest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

// certSummaries are the summaries of the warnings on certificates, with their kinds: a summary
// is of one kind only (internal/advice), so the kind of a warning the CLI prints is its
// summary's.
var certSummaries = map[string]warning.Kind{
	advice.SummaryCABundleExpired:      warning.Certificate,
	advice.SummaryCABundleNotYetValid:  warning.Certificate,
	advice.SummaryCABundleExpiring:     warning.Certificate,
	advice.SummaryCABundleNotPEM:       warning.Hint,
	advice.SummaryServingUnverified:    warning.Certificate,
	advice.SummaryServingExpiring:      warning.Certificate,
	advice.SummaryServingUnchecked:     warning.Unread,
	advice.SummaryCertManagerNotReady:  warning.Certificate,
	advice.SummaryCertManagerExpiring:  warning.Certificate,
	advice.SummaryCertManagerMissing:   warning.Certificate,
	advice.SummaryCertManagerUnchecked: warning.Unread,
}

// certsConfig is a validating configuration named name with one webhook on configmaps in
// namespaces labelled certs-acc=yes (none: it intercepts nothing of the cluster's own), with
// clientConfig as the body of its client_config block and annotations (HCL map entries).
func certsConfig(provider, name, failurePolicy, clientConfig, annotations string) string {
	return provider + fmt.Sprintf(`
resource "admission_validating_webhook_configuration" "test" {
  metadata {
    name        = %q
    annotations = {
      %s
    }
  }
  webhook {
    name                      = "check.certs.example.com"
    admission_review_versions = ["v1"]
    side_effects              = "None"
    failure_policy            = %q
    client_config {
      %s
    }
    rule {
      operations   = ["CREATE"]
      api_groups   = [""]
      api_versions = ["v1"]
      resources    = ["configmaps"]
    }
    namespace_selector {
      match_labels = {
        "certs-acc" = "yes"
      }
    }
  }
}
`, name, annotations, failurePolicy, clientConfig)
}

// urlClientConfig is a client_config body: a URL and a ca_bundle (none when "").
func urlClientConfig(url, caBundle string) string {
	s := fmt.Sprintf("url = %q", url)
	if caBundle != "" {
		s += fmt.Sprintf("\n      ca_bundle = %q", caBundle)
	}
	return s
}

// certWarnings plans cfg and returns its warnings on certificates; any error, or another
// warning, fails the test.
func certWarnings(t *testing.T, cfg string) []acctest.Diagnostic {
	t.Helper()
	diags, ok := acctest.Plan(t, cfg)
	if !ok {
		t.Fatalf("the plan failed: %+v", diags)
	}
	var out []acctest.Diagnostic
	for _, d := range diags {
		if _, ok := certSummaries[d.Summary]; ok && d.Severity == "warning" {
			out = append(out, d)
			t.Logf("%s: %s", d.Summary, oneWord(d.Detail))
			continue
		}
		t.Errorf("unexpected %s: %s: %s", d.Severity, d.Summary, oneWord(d.Detail))
	}
	return out
}

// expectCert finds the one warning of summary among got, on the attribute attr (its snippet,
// and the API field the detail ends with), saying each of says.
func expectCert(t *testing.T, got []acctest.Diagnostic, summary, attr, apiField string, says ...string) {
	t.Helper()
	i := slices.IndexFunc(got, func(d acctest.Diagnostic) bool { return d.Summary == summary })
	if i < 0 {
		t.Fatalf("no warning %q (kind %s) among %+v", summary, certSummaries[summary], got)
	}
	d := got[i]
	if d.Snippet == nil || !strings.Contains(d.Snippet.Code, attr) {
		t.Errorf("%q is not on %s: %+v", summary, attr, d.Snippet)
	}
	detail := oneWord(d.Detail)
	if !strings.HasSuffix(detail, "(API field "+apiField+")") {
		t.Errorf("%q is not at %s: %s", summary, apiField, detail)
	}
	for _, s := range says {
		if !strings.Contains(detail, s) {
			t.Errorf("%q does not say %q: %s", summary, s, detail)
		}
	}
}

const (
	caBundleField = "webhooks[0].clientConfig.caBundle"
	urlField      = "webhooks[0].clientConfig.url"
	day           = 24 * time.Hour
)

// The certificates of URL webhooks at plan, against HTTPS backends on loopback: the ca_bundle
// read offline, and the serving certificate seen through a TLS handshake; each warning by its
// kind (summary), on its attribute, in the API server's words; none when all is well.
func TestAccCertificatesAtPlan(t *testing.T) {
	t.Parallel() // plans only
	provider := acctest.ProviderBlock(t)
	ip := []net.IP{tlstest.Loopback}
	ca := tlstest.CA(tlstest.Template{CommonName: "certs-acc-ca"})
	good := tlstest.Serve(t, ca.Issue(tlstest.Template{CommonName: "good.certs-acc", IPs: ip}), nil)
	plan := func(t *testing.T, clientConfig, failurePolicy string) []acctest.Diagnostic {
		t.Helper()
		return certWarnings(t, certsConfig(provider, randomName(), failurePolicy, clientConfig, ""))
	}

	t.Run("healthy", func(t *testing.T) {
		if got := plan(t, urlClientConfig(good.URL+"/validate", ca.PEM()), "Fail"); len(got) != 0 {
			t.Errorf("a healthy backend: %+v", got)
		}
	})
	t.Run("time", func(t *testing.T) {
		// What the check adds to the plan of a healthy URL webhook on loopback: the median of
		// three plans each way, each plan a run of its own (a handshake each).
		off := acctest.ProviderBlock(t, "webhook_tls_check_on_plan = false")
		median := func(provider string) time.Duration {
			var took []time.Duration
			for range 3 {
				start := time.Now()
				certWarnings(t, certsConfig(provider, randomName(), "Fail", urlClientConfig(good.URL+"/validate", ca.PEM()), ""))
				took = append(took, time.Since(start))
			}
			slices.Sort(took)
			return took[1]
		}
		on, without := median(provider), median(off)
		t.Logf("plan of a healthy URL webhook: %s with the TLS check, %s without (median of 3)", on.Round(time.Millisecond), without.Round(time.Millisecond))
	})
	t.Run("serving certificate of another CA", func(t *testing.T) {
		other := tlstest.CA(tlstest.Template{CommonName: "other-ca"})
		srv := tlstest.Serve(t, other.Issue(tlstest.Template{CommonName: "stranger", IPs: ip}), nil)
		got := plan(t, urlClientConfig(srv.URL+"/validate", ca.PEM()), "Fail")
		expectCert(t, got, advice.SummaryServingUnverified, "url", urlField,
			`failed calling webhook "check.certs.example.com": failed to call webhook: Post "`+srv.URL+`/validate": tls: failed to verify certificate: x509: certificate signed by unknown authority`,
			`"CN=stranger"`, `issued by "CN=other-ca"`, "so every request it matches (CREATE of configmaps, in the namespaces its namespace selector takes) is rejected")
		if len(got) != 1 {
			t.Errorf("want one warning, got %+v", got)
		}
	})
	t.Run("expired serving certificate", func(t *testing.T) {
		srv := tlstest.Serve(t, ca.Issue(tlstest.Template{CommonName: "expired", IPs: ip, NotBefore: time.Now().Add(-60 * day), NotAfter: time.Now().Add(-day)}), nil)
		got := plan(t, urlClientConfig(srv.URL+"/validate", ca.PEM()), "Ignore")
		expectCert(t, got, advice.SummaryServingUnverified, "url", urlField,
			"tls: failed to verify certificate: x509: certificate has expired or is not yet valid", "fails open (failurePolicy Ignore), so it is skipped", "Renew")
	})
	t.Run("wrong host name", func(t *testing.T) {
		srv := tlstest.Serve(t, ca.Issue(tlstest.Template{CommonName: "named", DNSNames: []string{"webhook.example.com"}}), nil)
		got := plan(t, urlClientConfig(srv.URL+"/validate", ca.PEM()), "Fail")
		expectCert(t, got, advice.SummaryServingUnverified, "url", urlField,
			"x509: cannot validate certificate for 127.0.0.1 because it doesn't contain any IP SANs", "Issue the serving certificate for the host the URL names")
		byName := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
		got = plan(t, urlClientConfig(byName+"/validate", ca.PEM()), "Fail")
		expectCert(t, got, advice.SummaryServingUnverified, "url", urlField, "x509: certificate is valid for webhook.example.com, not localhost")
	})
	t.Run("nothing listening", func(t *testing.T) {
		addr := tlstest.Closed(t)
		got := plan(t, urlClientConfig("https://"+addr+"/validate", ca.PEM()), "Fail")
		expectCert(t, got, advice.SummaryServingUnchecked, "url", urlField,
			"could not check the serving certificate", "connection refused", "says nothing of whether the API server can call it", "webhook_tls_check_on_plan = false")
		if len(got) != 1 {
			t.Errorf("want one warning, got %+v", got)
		}
	})
	t.Run("the check turned off", func(t *testing.T) {
		off := acctest.ProviderBlock(t, "webhook_tls_check_on_plan = false")
		other := tlstest.CA(tlstest.Template{CommonName: "other-ca"})
		srv := tlstest.Serve(t, other.Issue(tlstest.Template{CommonName: "stranger", IPs: ip}), nil)
		if got := certWarnings(t, certsConfig(off, randomName(), "Fail", urlClientConfig(srv.URL, ca.PEM()), "")); len(got) != 0 {
			t.Errorf("with webhook_tls_check_on_plan = false: %+v", got)
		}
	})
	t.Run("ca_bundle CA expired", func(t *testing.T) {
		old := tlstest.CA(tlstest.Template{CommonName: "old-ca", NotBefore: time.Now().Add(-400 * day), NotAfter: time.Now().Add(-3 * day)})
		srv := tlstest.Serve(t, old.Issue(tlstest.Template{CommonName: "by-old", IPs: ip}), nil)
		got := plan(t, urlClientConfig(srv.URL, old.PEM()), "Fail")
		expectCert(t, got, advice.SummaryCABundleExpired, "ca_bundle", caBundleField,
			`Certificate 1 of the ca_bundle of webhook "check.certs.example.com", "CN=old-ca" (not after `+old.Cert.NotAfter.UTC().Format(time.RFC3339)+")",
			"expired 3 days ago", `every call fails with "x509: certificate has expired or is not yet valid"`, "is rejected")
		// The API server's verification fails the same way, seen from here.
		expectCert(t, got, advice.SummaryServingUnverified, "url", urlField, "x509: certificate has expired or is not yet valid")
	})
	t.Run("ca_bundle CA expires in 10 days", func(t *testing.T) {
		soon := tlstest.CA(tlstest.Template{CommonName: "soon-ca", NotAfter: time.Now().Add(10*day + time.Hour)})
		srv := tlstest.Serve(t, soon.Issue(tlstest.Template{CommonName: "by-soon", IPs: ip}), nil)
		got := plan(t, urlClientConfig(srv.URL, soon.PEM()), "Fail")
		expectCert(t, got, advice.SummaryCABundleExpiring, "ca_bundle", caBundleField, `"CN=soon-ca"`, "expires in 10 days", "720h0m0s ahead")
		if len(got) != 1 {
			t.Errorf("want one warning, got %+v", got)
		}
		// With a window of a week, nothing.
		week := acctest.ProviderBlock(t, `ca_bundle_expiry_warning = "168h"`)
		if got := certWarnings(t, certsConfig(week, randomName(), "Fail", urlClientConfig(srv.URL, soon.PEM()), "")); len(got) != 0 {
			t.Errorf("with ca_bundle_expiry_warning = 168h: %+v", got)
		}
	})
	t.Run("malformed PEM", func(t *testing.T) {
		bad := "-----BEGIN CERTIFICATE-----\nMIIBnotacertificate\n-----END CERTIFICATE-----\n"
		got := plan(t, urlClientConfig(good.URL, bad), "Fail")
		expectCert(t, got, advice.SummaryCABundleNotPEM, "ca_bundle", caBundleField, "unable to load root certificates", "is rejected")
		if len(got) != 1 {
			t.Errorf("want one warning (no handshake with a bundle that does not load), got %+v", got)
		}
	})
	t.Run("no ca_bundle: the system's roots", func(t *testing.T) {
		got := plan(t, urlClientConfig(good.URL, ""), "Fail")
		expectCert(t, got, advice.SummaryServingUnverified, "url", urlField, "the system's roots (it has no ca_bundle)", "x509: certificate signed by unknown authority")
	})
}

var (
	crdResource         = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	certificateResource = schema.GroupVersionResource{Group: "cert-manager.io", Version: "v1", Resource: "certificates"}
)

// installCertificateCRD installs a minimal cert-manager Certificate CRD (any fields, no status
// subresource, so that a test writes the status a controller would) and waits for discovery to
// serve it.
func installCertificateCRD(t *testing.T, dyn dynamic.Interface) {
	t.Helper()
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "certificates.cert-manager.io"},
		"spec": map[string]any{
			"group": "cert-manager.io", "scope": "Namespaced",
			"names": map[string]any{"plural": "certificates", "singular": "certificate", "kind": "Certificate", "listKind": "CertificateList"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}},
		},
	}}
	ctx := context.Background()
	if _, err := dyn.Resource(crdResource).Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dyn.Resource(crdResource).Delete(ctx, crd.GetName(), metav1.DeleteOptions{}) })
	dc, err := discovery.NewDiscoveryClientForConfig(acctest.Cluster(t).RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		list, err := dc.ServerResourcesForGroupVersion("cert-manager.io/v1")
		if err == nil && slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == "certificates" }) {
			// And the API server's handler of the new resource is ready.
			if _, err := dyn.Resource(certificateResource).Namespace("default").List(ctx, metav1.ListOptions{}); err == nil {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("certificates.cert-manager.io/v1 not served after 60 s: %v", err)
		}
	}
}

// createCertificate makes the Certificate namespace/name with status.
func createCertificate(t *testing.T, dyn dynamic.Interface, namespace, name string, status map[string]any) {
	t.Helper()
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
		"metadata": map[string]any{"name": name, "namespace": namespace},
		"spec":     map[string]any{"secretName": name + "-tls", "dnsNames": []any{"hooks." + namespace + ".svc"}, "issuerRef": map[string]any{"name": "selfsigned"}},
		"status":   status,
	}}
	if _, err := dyn.Resource(certificateResource).Namespace(namespace).Create(context.Background(), obj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func readyStatus(ready string, notAfter, renewal time.Time) map[string]any {
	s := map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": ready, "reason": "Issuing",
		"message": "Issuing certificate as Secret does not exist"}}}
	if !notAfter.IsZero() {
		s["notAfter"] = notAfter.UTC().Format(time.RFC3339)
	}
	if !renewal.IsZero() {
		s["renewalTime"] = renewal.UTC().Format(time.RFC3339)
	}
	return s
}

// A service webhook whose caBundle cert-manager injects (cert-manager.io/inject-ca-from): its
// Certificate read at plan, with the Certificate kind installed in the local API server and
// Certificates whose status says what cert-manager would.
func TestAccCertManagerAtPlan(t *testing.T) {
	cs := acctest.Clientset(t)
	const ns = "certs-cm"
	backendNamespace(t, cs, ns)
	// A service with a ready endpoint, so that the only warnings are the certificates'.
	createService(t, cs, ns, "hooks")
	if err := createReadyEndpoint(t, cs, ns, "hooks"); err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(acctest.Cluster(t).RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	provider := acctest.ProviderBlock(t)
	service := fmt.Sprintf("service {\n        namespace = %q\n        name = \"hooks\"\n      }", ns)
	plan := func(t *testing.T, provider, certificate string) []acctest.Diagnostic {
		t.Helper()
		return certWarnings(t, certsConfig(provider, randomName(), "Fail", service, fmt.Sprintf("%q = %q", advice.InjectCAFrom, ns+"/"+certificate)))
	}
	annotation := `"cert-manager.io/inject-ca-from" =`
	annotationField := "metadata.annotations[cert-manager.io/inject-ca-from]"

	t.Run("cert-manager not installed", func(t *testing.T) {
		got := plan(t, provider, "webhook-cert")
		expectCert(t, got, advice.SummaryCertManagerUnchecked, annotation, annotationField,
			"could not check the cert-manager Certificate \"webhook-cert\" in namespace \"certs-cm\"", "does not serve certificates.cert-manager.io/v1", "It makes no claim")
		if len(got) != 1 {
			t.Errorf("want one line, got %+v", got)
		}
	})

	installCertificateCRD(t, dyn)
	createCertificate(t, dyn, ns, "ready", readyStatus("True", time.Now().Add(60*day), time.Now().Add(30*day)))
	createCertificate(t, dyn, ns, "not-ready", readyStatus("False", time.Time{}, time.Time{}))
	createCertificate(t, dyn, ns, "no-status", nil)
	createCertificate(t, dyn, ns, "not-renewed", readyStatus("True", time.Now().Add(5*day), time.Now().Add(-day)))
	createCertificate(t, dyn, ns, "short-lived", readyStatus("True", time.Now().Add(20*time.Hour), time.Now().Add(12*time.Hour)))

	t.Run("ready", func(t *testing.T) {
		if got := plan(t, provider, "ready"); len(got) != 0 {
			t.Errorf("a ready Certificate: %+v", got)
		}
	})
	t.Run("a short-lived one, its renewal scheduled", func(t *testing.T) {
		if got := plan(t, provider, "short-lived"); len(got) != 0 {
			t.Errorf("a Certificate of 20 h whose renewal is due in 12 h: %+v", got)
		}
	})
	t.Run("not ready", func(t *testing.T) {
		got := plan(t, provider, "not-ready")
		expectCert(t, got, advice.SummaryCertManagerNotReady, annotation, annotationField,
			`The cert-manager Certificate "not-ready" in namespace "certs-cm"`, `webhooks ("check.certs.example.com")`,
			"is not ready: its Ready condition is False (Issuing: Issuing certificate as Secret does not exist)",
			`the requests that "check.certs.example.com" match are rejected: failurePolicy Fail`)
		if len(got) != 1 {
			t.Errorf("want one warning, got %+v", got)
		}
	})
	t.Run("no status", func(t *testing.T) {
		got := plan(t, provider, "no-status")
		expectCert(t, got, advice.SummaryCertManagerNotReady, annotation, annotationField, "it has no Ready condition")
	})
	t.Run("not renewed", func(t *testing.T) {
		got := plan(t, provider, "not-renewed")
		expectCert(t, got, advice.SummaryCertManagerExpiring, annotation, annotationField, "expires in 4 days", "its renewal was due at")
	})
	t.Run("missing", func(t *testing.T) {
		got := plan(t, provider, "nowhere")
		expectCert(t, got, advice.SummaryCertManagerMissing, annotation, annotationField, "does not exist: no caBundle is injected")
	})
	t.Run("forbidden", func(t *testing.T) {
		nobody := fmt.Sprintf("provider \"admission\" {\n  host = %q\n  token = %q\n  cluster_ca_certificate = %q\n  dry_run_on_plan = false\n}\n",
			acctest.Cluster(t).Host, acctest.Cluster(t).UserToken("nobody"), string(acctest.Cluster(t).CAPEM))
		diags, ok := acctest.Plan(t, certsConfig(nobody, randomName(), "Fail", service, fmt.Sprintf("%q = %q", advice.InjectCAFrom, ns+"/ready")))
		if !ok {
			t.Fatalf("the plan failed: %+v", diags)
		}
		i := slices.IndexFunc(diags, func(d acctest.Diagnostic) bool { return d.Summary == advice.SummaryCertManagerUnchecked })
		if i < 0 || !strings.Contains(oneWord(diags[i].Detail), "forbidden") || !strings.Contains(oneWord(diags[i].Detail), "get certificates.cert-manager.io") {
			t.Errorf("want a warning that the Certificate could not be read, got %+v", diags)
		}
	})
}
