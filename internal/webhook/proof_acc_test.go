package webhook_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/advice"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tlscheck/tlstest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/webhook"
)

// testCA is a certificate authority of the proof's tests: it signs serving certificates.
type testCA struct {
	*tlstest.Cert
	pem string
}

func newTestCA(t *testing.T, cn string) *testCA {
	t.Helper()
	c := tlstest.CA(tlstest.Template{CommonName: cn})
	return &testCA{Cert: c, pem: c.PEM()}
}

// earliest is the earlier of a and b.
func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// serving is a serving certificate signed by ca for the IP addresses ips and the names dns,
// valid until notAfter (and from two days before it at the latest).
func (ca *testCA) serving(t *testing.T, ips []net.IP, dns []string, notAfter time.Time) tls.Certificate {
	t.Helper()
	return ca.Issue(tlstest.Template{CommonName: "webhook", IPs: ips, DNSNames: dns,
		NotBefore: earliest(time.Now().Add(-time.Hour), notAfter.Add(-48*time.Hour)), NotAfter: notAfter}).TLS()
}

// proofBackend is an HTTPS webhook backend on loopback: it answers every AdmissionReview with
// allowed (or fails as the test asks), and counts the requests carrying the proof's label.
type proofBackend struct {
	addr   string
	probes atomic.Int64
}

// allow answers an AdmissionReview with allowed, counting the proof's requests.
func (b *proofBackend) allow(w http.ResponseWriter, r *http.Request) {
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
		http.Error(w, "not an AdmissionReview", http.StatusBadRequest)
		return
	}
	var obj metav1.PartialObjectMetadata
	if json.Unmarshal(review.Request.Object.Raw, &obj) == nil && obj.Labels[webhook.ProbeLabel] != "" {
		b.probes.Add(1)
	}
	review.Response = &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
	review.Request = nil
	_ = json.NewEncoder(w).Encode(review)
}

// startBackend serves handler (nil: allow) over TLS with cert on l, until the test ends.
func startBackend(t *testing.T, l net.Listener, cert tls.Certificate, handler func(b *proofBackend) http.HandlerFunc) *proofBackend {
	t.Helper()
	b := &proofBackend{addr: l.Addr().String()}
	h := http.HandlerFunc(b.allow)
	if handler != nil {
		h = handler(b)
	}
	srv := &http.Server{Handler: h, TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}}, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.ServeTLS(l, "", "") }()
	t.Cleanup(func() { _ = srv.Close() })
	return b
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// freeAddress is a loopback address where nothing listens (yet).
func freeAddress(t *testing.T) string {
	t.Helper()
	l := listen(t)
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// proofConfig is a provider block with the proof on and a configuration of kind ("validating"
// or "mutating") named name, with one webhook named hook calling url with caBundle, on
// CREATE of configmaps in namespaces labelled proof-acc=<name>; extra goes in the resource's
// body.
func proofConfig(t *testing.T, kind, name, hook, url, caBundle, failurePolicy string, timeoutSeconds int, extra string) string {
	return acctest.ProviderBlock(t, "prove_webhooks = true") + fmt.Sprintf(`
resource "admission_%s_webhook_configuration" "test" {
  metadata {
    name = %q
  }
  %s
  webhook {
    name                      = %q
    admission_review_versions = ["v1"]
    side_effects              = "None"
    failure_policy            = %q
    timeout_seconds           = %d
    client_config {
      url       = %q
      ca_bundle = %q
    }
    rule {
      operations   = ["CREATE"]
      api_groups   = [""]
      api_versions = ["v1"]
      resources    = ["configmaps"]
    }
    namespace_selector {
      match_labels = {
        "proof-acc" = %q
      }
    }
  }
}
`, kind, name, extra, hook, failurePolicy, timeoutSeconds, url, caBundle, name)
}

// proofNamespace makes the namespace that the configuration name's webhook matches.
func proofNamespace(t *testing.T, cs kubernetes.Interface, name string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "proof-" + name, Labels: map[string]string{"proof-acc": name}}}
	if _, err := cs.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{}) })
	return ns.Name
}

// writeSucceeds reports whether a write that the configuration name's webhook matches goes
// through: the cluster's writes keep working.
func writeSucceeds(t *testing.T, cs kubernetes.Interface, namespace string) error {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "write-", Namespace: namespace}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := cs.CoreV1().ConfigMaps(namespace).Create(ctx, cm, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	return err
}

// diagsOf are the diagnostics of severity whose summary is summary.
func diagsOf(diags []acctest.Diagnostic, severity, summary string) []acctest.Diagnostic {
	var out []acctest.Diagnostic
	for _, d := range diags {
		if d.Severity == severity && d.Summary == summary {
			out = append(out, d)
		}
	}
	return out
}

// withoutUnchecked are diags without the plan's warning that it could not reach a URL
// webhook's backend to check its certificate: true, and expected, where nothing listens when
// the plan runs.
func withoutUnchecked(diags []acctest.Diagnostic) []acctest.Diagnostic {
	var out []acctest.Diagnostic
	for _, d := range diags {
		if d.Severity != "warning" || d.Summary != advice.SummaryServingUnchecked {
			out = append(out, d)
		}
	}
	return out
}

// storedValidating is the stored validating configuration name, nil when there is none.
func storedValidating(t *testing.T, cs kubernetes.Interface, name string) *struct {
	caBundle string
	policy   string
} {
	t.Helper()
	got, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(context.Background(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return &struct {
		caBundle string
		policy   string
	}{string(got.Webhooks[0].ClientConfig.CABundle), string(*got.Webhooks[0].FailurePolicy)}
}

// probesLeft are the temporary configurations of proofs that are still in the cluster.
func probesLeft(t *testing.T, cs kubernetes.Interface) []string {
	t.Helper()
	list, err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range list.Items {
		if strings.HasPrefix(c.Name, "admission-probe-") {
			names = append(names, c.Name)
		}
	}
	return names
}

// The proof at apply, against the local kube-apiserver, which calls URL webhooks on loopback
// itself: for each case, the apply's outcome and the API server's words, whether the real
// configuration was written, whether a write the webhook matches still goes through, and that
// no temporary configuration is left.
func TestAccProof(t *testing.T) {
	t.Parallel() // each webhook matches only a namespace of its own
	cs := acctest.Clientset(t)
	ca, otherCA := newTestCA(t, "proof CA"), newTestCA(t, "other CA")
	loopback := []net.IP{net.ParseIP("127.0.0.1")}
	good := ca.serving(t, loopback, nil, time.Now().Add(365*24*time.Hour))
	healthy := startBackend(t, listen(t), good, nil)
	url := func(addr string) string { return "https://" + addr + "/check" }
	failed := func(hook string) string {
		return `failed calling webhook "` + hook + `": failed to call webhook:`
	}
	// A proof that fails retries until its deadline: the operation's timeout less a tenth of it
	// (the prover's prove in proof.go). Eight seconds leave the server time to load the temporary configuration
	// and to answer a few attempts.
	const short = `timeouts {
    create = "8s"
    update = "8s"
  }`

	// failing is one apply of a fail-closed webhook that the API server cannot call.
	type failing struct {
		name, url, caBundle string
		timeout             int
		reason              string // the API server's words, after failed to call webhook:
	}
	otherBackend := startBackend(t, listen(t), otherCA.serving(t, loopback, nil, time.Now().Add(365*24*time.Hour)), nil)
	expired := startBackend(t, listen(t), ca.serving(t, loopback, nil, time.Now().Add(-time.Hour)), nil)
	wrongName := startBackend(t, listen(t), ca.serving(t, nil, []string{"webhook.example.com"}, time.Now().Add(365*24*time.Hour)), nil)
	serverError := startBackend(t, listen(t), good, func(*proofBackend) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "broken", http.StatusInternalServerError) }
	})
	hanging := startBackend(t, listen(t), good, func(*proofBackend) http.HandlerFunc {
		return func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
	})
	cases := []failing{
		{"proof-other-ca", url(otherBackend.addr), ca.pem, 5, `x509: certificate signed by unknown authority`},
		{"proof-expired", url(expired.addr), ca.pem, 5, `x509: certificate has expired or is not yet valid`},
		{"proof-wrong-name", url(wrongName.addr), ca.pem, 5, `x509: cannot validate certificate for 127.0.0.1 because it doesn't contain any IP SANs`},
		{"proof-http-500", url(serverError.addr), ca.pem, 5, `an error on the server`},
		{"proof-hangs", url(hanging.addr), ca.pem, 2, `context deadline exceeded`},
		{"proof-nothing", url(freeAddress(t)), ca.pem, 5, `connection refused`},
	}

	t.Run("group", func(t *testing.T) {
		t.Run("healthy", func(t *testing.T) {
			t.Parallel()
			// A temporary configuration that an interrupted apply left, expired: the next apply
			// deletes it.
			left := `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingWebhookConfiguration","metadata":{"name":"admission-probe-leftover",` +
				`"labels":{"admission.seed-a73d233f.io/probe-configuration":"true"},"annotations":{"admission.seed-a73d233f.io/probe-expires":"2020-01-01T00:00:00Z"}}}`
			if err := cs.AdmissionregistrationV1().RESTClient().Post().Resource("mutatingwebhookconfigurations").Body([]byte(left)).Do(context.Background()).Error(); err != nil {
				t.Fatal(err)
			}
			ns := proofNamespace(t, cs, "proof-healthy")
			w := acctest.NewWorkdir(t)
			cfg := proofConfig(t, "validating", "proof-healthy", "check.proof.example.com", url(healthy.addr), ca.pem, "Fail", 5, "")
			before := healthy.probes.Load()
			diags, ok := w.Apply(cfg)
			if !ok || len(diags) > 0 {
				t.Fatalf("apply: ok = %v, %+v", ok, diags)
			}
			if healthy.probes.Load() == before {
				t.Error("the backend got no request of the proof: the proof did not go through the API server")
			}
			if storedValidating(t, cs, "proof-healthy") == nil {
				t.Error("the configuration was not written")
			}
			if err := writeSucceeds(t, cs, ns); err != nil {
				t.Errorf("a write the webhook matches: %v", err)
			}
			if _, err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(context.Background(), "admission-probe-leftover", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("the leftover probe is still there: %v", err)
			}
			// An update that changes nothing the proof weighs (a label) proves nothing.
			before = healthy.probes.Load()
			if diags, ok := w.Apply(strings.Replace(cfg, "metadata {", "metadata {\n    labels = { tier = \"x\" }", 1)); !ok || len(diags) > 0 {
				t.Fatalf("update: ok = %v, %+v", ok, diags)
			}
			if n := healthy.probes.Load() - before; n != 0 {
				t.Errorf("an update of a label called the backend %d times", n)
			}
			w.Destroy(cfg)
		})

		t.Run("mutating on deployments", func(t *testing.T) {
			t.Parallel()
			// A webhook whose first rule names another resource: the proof creates (dry run) a
			// Deployment, which the backend answers for.
			w := acctest.NewWorkdir(t)
			cfg := strings.Replace(proofConfig(t, "mutating", "proof-mutating", "mutate.proof.example.com", url(healthy.addr), ca.pem, "Fail", 5, ""),
				"api_groups   = [\"\"]\n      api_versions = [\"v1\"]\n      resources    = [\"configmaps\"]",
				"api_groups   = [\"apps\"]\n      api_versions = [\"v1\"]\n      resources    = [\"deployments\"]", 1)
			diags, ok := w.Apply(cfg)
			if !ok || len(diags) > 0 {
				t.Fatalf("apply: ok = %v, %+v", ok, diags)
			}
			if _, err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(context.Background(), "proof-mutating", metav1.GetOptions{}); err != nil {
				t.Errorf("the configuration was not written: %v", err)
			}
			w.Destroy(cfg)
		})

		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				ns := proofNamespace(t, cs, c.name)
				hook := "check." + c.name + ".example.com"
				start := time.Now()
				diags, ok := acctest.NewWorkdir(t).Apply(proofConfig(t, "validating", c.name, hook, c.url, c.caBundle, "Fail", c.timeout, short))
				t.Logf("the apply took %s", time.Since(start).Round(time.Second))
				if ok {
					t.Fatalf("the apply succeeded: %+v", diags)
				}
				errs := diagsOf(diags, "error", webhook.SummaryNotProven)
				if len(errs) != 1 || !strings.Contains(errs[0].Detail, failed(hook)) || !strings.Contains(errs[0].Detail, c.reason) {
					t.Fatalf("want one error %q with %q and %q, got %+v", webhook.SummaryNotProven, failed(hook), c.reason, diags)
				}
				t.Logf("the error: %s", errs[0].Detail)
				if !strings.Contains(errs[0].Detail, "Nothing was written") {
					t.Errorf("the error does not say that nothing was written: %s", errs[0].Detail)
				}
				if storedValidating(t, cs, c.name) != nil {
					t.Error("the configuration was written")
				}
				if err := writeSucceeds(t, cs, ns); err != nil {
					t.Errorf("a write the webhook matches: %v", err)
				}
			})
		}

		t.Run("service without a resolvable name", func(t *testing.T) {
			t.Parallel()
			// The local control plane has no cluster DNS: kube-apiserver resolves a service
			// webhook to <name>.<namespace>.svc (k8s.io/apiserver/pkg/util/webhook.defaultServiceResolver)
			// and cannot look that name up, as when a Service is missing.
			cfg := strings.Replace(proofConfig(t, "validating", "proof-service", "check.proof-service.example.com", "", ca.pem, "Fail", 5, short),
				"url       = \"\"", "service {\n        namespace = \"default\"\n        name      = \"proof-backend\"\n      }", 1)
			diags, ok := acctest.NewWorkdir(t).Apply(cfg)
			errs := diagsOf(diags, "error", webhook.SummaryNotProven)
			if ok || len(errs) != 1 || !strings.Contains(errs[0].Detail, failed("check.proof-service.example.com")) ||
				!strings.Contains(errs[0].Detail, "proof-backend.default.svc") {
				t.Fatalf("want one error naming the service's host, got ok = %v, %+v", ok, diags)
			}
			if storedValidating(t, cs, "proof-service") != nil {
				t.Error("the configuration was written")
			}
		})

		t.Run("backend starts 15 s into the apply", func(t *testing.T) {
			t.Parallel()
			l := listen(t)
			addr := l.Addr().String()
			_ = l.Close()
			cfg := proofConfig(t, "validating", "proof-late", "check.proof-late.example.com", url(addr), ca.pem, "Fail", 5, `timeouts {
    create = "60s"
  }`)
			w := acctest.NewWorkdir(t)
			var late *proofBackend
			started := make(chan struct{})
			timer := time.AfterFunc(15*time.Second, func() {
				defer close(started)
				l, err := net.Listen("tcp", addr)
				if err != nil {
					t.Errorf("listen again on %s: %v", addr, err)
					return
				}
				late = startBackend(t, l, good, nil)
			})
			defer timer.Stop()
			start := time.Now()
			diags, ok := w.Apply(cfg)
			took := time.Since(start)
			<-started
			if !ok || len(withoutUnchecked(diags)) > 0 || len(diagsOf(diags, "warning", advice.SummaryServingUnchecked)) == 0 {
				t.Fatalf("apply: ok = %v, %+v (want only the plan's warning that it could not check the certificate)", ok, diags)
			}
			if took < 15*time.Second || late == nil || late.probes.Load() == 0 {
				t.Errorf("the apply took %s; the late backend got probes: %v", took, late != nil && late.probes.Load() > 0)
			}
			if storedValidating(t, cs, "proof-late") == nil {
				t.Error("the configuration was not written")
			}
			t.Logf("apply succeeded after %s", took.Round(time.Second))
			w.Destroy(cfg)
		})

		t.Run("fail-open broken", func(t *testing.T) {
			t.Parallel()
			cfg := proofConfig(t, "validating", "proof-fail-open", "check.proof-fail-open.example.com", url(freeAddress(t)), ca.pem, "Ignore", 5, short)
			w := acctest.NewWorkdir(t)
			diags, ok := w.Apply(cfg)
			warns := diagsOf(diags, "warning", webhook.SummaryFailOpenProof)
			if !ok || len(warns) != 1 || !strings.Contains(warns[0].Detail, failed("check.proof-fail-open.example.com")) ||
				!strings.Contains(warns[0].Detail, "connection refused") {
				t.Fatalf("want success with one warning, got ok = %v, %+v", ok, diags)
			}
			if storedValidating(t, cs, "proof-fail-open") == nil {
				t.Error("the configuration was not written")
			}
			w.Destroy(cfg)
		})

		t.Run("ca_bundle left to cert-manager", func(t *testing.T) {
			t.Parallel()
			// The injector fills the bundle in after the write: no proof can come before it,
			// and the apply says so.
			cfg := proofConfig(t, "validating", "proof-injected", "check.proof-injected.example.com", url(healthy.addr), "", "Fail", 5,
				"")
			cfg = strings.Replace(cfg, "      ca_bundle = \"\"\n", "", 1)
			cfg = strings.Replace(cfg, "    name = \"proof-injected\"\n", "    name = \"proof-injected\"\n    annotations = {\n      \"cert-manager.io/inject-ca-from\" = \"default/webhook\"\n    }\n", 1)
			w := acctest.NewWorkdir(t)
			diags, ok := w.Apply(cfg)
			warns := diagsOf(diags, "warning", webhook.SummaryCouldNotProve)
			if !ok || len(warns) != 1 || !strings.Contains(warns[0].Detail, "cert-manager") {
				t.Fatalf("want success with one warning that the proof could not be made, got ok = %v, %+v", ok, diags)
			}
			if storedValidating(t, cs, "proof-injected") == nil {
				t.Error("the configuration was not written")
			}
			w.Destroy(cfg)
		})

		t.Run("forbidden", func(t *testing.T) {
			t.Parallel()
			// A user who may write validating configurations but not create mutating ones:
			// the proof cannot be made, and says so; the configuration is written.
			rbac := cs.RbacV1()
			role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "proof-acc-writer"}, Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{"validatingwebhookconfigurations"}, Verbs: []string{"*"}},
				{APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{"mutatingwebhookconfigurations"}, Verbs: []string{"get", "list"}},
			}}
			binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "proof-acc-writer"},
				RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role.Name},
				Subjects: []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: "writer"}}}
			if _, err := rbac.ClusterRoles().Create(context.Background(), role, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = rbac.ClusterRoles().Delete(context.Background(), role.Name, metav1.DeleteOptions{}) })
			if _, err := rbac.ClusterRoleBindings().Create(context.Background(), binding, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				_ = rbac.ClusterRoleBindings().Delete(context.Background(), binding.Name, metav1.DeleteOptions{})
			})
			cp := acctest.Cluster(t)
			writer := fmt.Sprintf("provider \"admission\" {\n  host = %q\n  token = %q\n  cluster_ca_certificate = %q\n  prove_webhooks = true\n}\n",
				cp.Host, cp.UserToken("writer"), string(cp.CAPEM))
			cfg := proofConfig(t, "validating", "proof-forbidden", "check.proof-forbidden.example.com", url(healthy.addr), ca.pem, "Fail", 5, "")
			cfg = writer + cfg[strings.Index(cfg, "\nresource "):]
			w := acctest.NewWorkdir(t)
			diags, ok := w.Apply(cfg)
			warns := diagsOf(diags, "warning", webhook.SummaryCouldNotProve)
			if !ok || len(warns) != 1 || !strings.Contains(warns[0].Detail, "forbidden") || !strings.Contains(warns[0].Detail, "mutatingwebhookconfigurations") {
				t.Fatalf("want success with one warning that the proof could not be made, got ok = %v, %+v", ok, diags)
			}
			t.Logf("the warning: %s", warns[0].Detail)
			if storedValidating(t, cs, "proof-forbidden") == nil {
				t.Error("the configuration was not written")
			}
			w.Destroy(cfg)
		})

		t.Run("update: ca_bundle rotated to a CA that does not sign", func(t *testing.T) {
			t.Parallel()
			ns := proofNamespace(t, cs, "proof-rotate")
			w := acctest.NewWorkdir(t)
			cfg := proofConfig(t, "validating", "proof-rotate", "check.proof-rotate.example.com", url(healthy.addr), ca.pem, "Fail", 5, short)
			if diags, ok := w.Apply(cfg); !ok || len(diags) > 0 {
				t.Fatalf("create: ok = %v, %+v", ok, diags)
			}
			diags, ok := w.Apply(proofConfig(t, "validating", "proof-rotate", "check.proof-rotate.example.com", url(healthy.addr), otherCA.pem, "Fail", 5, short))
			errs := diagsOf(diags, "error", webhook.SummaryNotProven)
			if ok || len(errs) != 1 || !strings.Contains(errs[0].Detail, "x509: certificate signed by unknown authority") {
				t.Fatalf("want one error, got ok = %v, %+v", ok, diags)
			}
			if got := storedValidating(t, cs, "proof-rotate"); got == nil || got.caBundle != ca.pem {
				t.Errorf("the configuration changed: %+v", got)
			}
			// The old configuration still calls the backend, which allows.
			if err := writeSucceeds(t, cs, ns); err != nil {
				t.Errorf("a write the webhook matches: %v", err)
			}
			w.Destroy(cfg)
		})

		t.Run("update: Ignore to Fail with nothing listening", func(t *testing.T) {
			t.Parallel()
			ns := proofNamespace(t, cs, "proof-tighten")
			nothing := url(freeAddress(t))
			w := acctest.NewWorkdir(t)
			// Created without the proof, as a fail-open webhook nobody noticed was broken.
			open := strings.Replace(proofConfig(t, "validating", "proof-tighten", "check.proof-tighten.example.com", nothing, ca.pem, "Ignore", 5, short),
				"prove_webhooks = true", "prove_webhooks = false", 1)
			if diags, ok := w.Apply(open); !ok || len(withoutUnchecked(diags)) > 0 {
				t.Fatalf("create: ok = %v, %+v", ok, diags)
			}
			diags, ok := w.Apply(proofConfig(t, "validating", "proof-tighten", "check.proof-tighten.example.com", nothing, ca.pem, "Fail", 5, short))
			errs := diagsOf(diags, "error", webhook.SummaryNotProven)
			if ok || len(errs) != 1 || !strings.Contains(errs[0].Detail, "connection refused") {
				t.Fatalf("want one error, got ok = %v, %+v", ok, diags)
			}
			if got := storedValidating(t, cs, "proof-tighten"); got == nil || got.policy != "Ignore" {
				t.Errorf("the configuration changed: %+v", got)
			}
			if err := writeSucceeds(t, cs, ns); err != nil {
				t.Errorf("a write the webhook matches: %v", err)
			}
			w.Destroy(open)
		})
	})
	if left := probesLeft(t, cs); len(left) > 0 {
		t.Errorf("temporary configurations left: %v", left)
	}
}

// The request budget of a proof and the time it adds to the apply of a healthy webhook: the
// median of five creates with the proof on and five with it off.
func TestAccProofCost(t *testing.T) {
	cs := acctest.Clientset(t)
	ca := newTestCA(t, "proof CA")
	healthy := startBackend(t, listen(t), ca.serving(t, []net.IP{net.ParseIP("127.0.0.1")}, nil, time.Now().Add(365*24*time.Hour)), nil)
	url := "https://" + healthy.addr + "/check"
	median := func(prove bool) (time.Duration, int64) {
		var times []time.Duration
		requests := webhook.ProofRequests.Load()
		for range 5 {
			cfg := proofConfig(t, "validating", "proof-cost", "check.proof-cost.example.com", url, ca.pem, "Fail", 5, "")
			if !prove {
				cfg = strings.Replace(cfg, "prove_webhooks = true", "prove_webhooks = false", 1)
			}
			w := acctest.NewWorkdir(t)
			start := time.Now()
			if diags, ok := w.Apply(cfg); !ok || len(diags) > 0 {
				t.Fatalf("apply: ok = %v, %+v", ok, diags)
			}
			times = append(times, time.Since(start))
			w.Destroy(cfg)
		}
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		return times[len(times)/2], (webhook.ProofRequests.Load() - requests) / 5
	}
	off, none := median(false)
	proofs := len(webhook.ProofTimes())
	on, requests := median(true)
	took := webhook.ProofTimes()[proofs:]
	if len(took) != 5 {
		t.Fatalf("%d proofs for five creates", len(took))
	}
	slices.Sort(took)
	t.Logf("apply of one healthy fail-closed webhook: median %s with the proof, %s without; the proof itself: median %s (%s to %s); %d requests per proof",
		on.Round(time.Millisecond), off.Round(time.Millisecond), took[2].Round(time.Microsecond), took[0].Round(time.Microsecond),
		took[4].Round(time.Microsecond), requests)
	if none != 0 {
		t.Errorf("with prove_webhooks = false the provider made %d proof requests", none)
	}
	// A list of leftovers, the create and delete of the temporary configuration, and the
	// dry-run creates until the server has loaded it (one or two on loopback).
	if requests < 4 || requests > 8 {
		t.Errorf("a proof of one webhook made %d requests", requests)
	}
	if left := probesLeft(t, cs); len(left) > 0 {
		t.Errorf("temporary configurations left: %v", left)
	}
}
