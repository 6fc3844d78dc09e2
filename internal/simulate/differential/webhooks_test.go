package differential

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/simulate"
)

// recorder is an HTTPS admission webhook on 127.0.0.1 that allows every
// request and records which webhooks (by URL path) were called for which
// object, in the order of the calls.
type recorder struct {
	server *httptest.Server
	caPEM  []byte
	mu     sync.Mutex
	calls  map[string][]string // namespace/name → webhook names
}

func newRecorder(t *testing.T) *recorder {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "sim-webhook-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage: x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(key)
	cert, err := tls.X509KeyPair(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{caPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), calls: map[string][]string{}}
	r.server = httptest.NewUnstartedServer(http.HandlerFunc(r.serve))
	r.server.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	r.server.StartTLS()
	t.Cleanup(r.server.Close)
	return r
}

func (r *recorder) serve(w http.ResponseWriter, req *http.Request) {
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(req.Body).Decode(&review); err != nil || review.Request == nil {
		http.Error(w, "bad review", http.StatusBadRequest)
		return
	}
	key := review.Request.Namespace + "/" + review.Request.Name
	r.mu.Lock()
	r.calls[key] = append(r.calls[key], strings.TrimPrefix(req.URL.Path, "/"))
	r.mu.Unlock()
	review.Response = &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
	review.Request = nil
	_ = json.NewEncoder(w).Encode(review)
}

func (r *recorder) take(key string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.calls[key]
	delete(r.calls, key)
	return out
}

var webhookConditions = []string{
	"request.userInfo.username == 'writer'",
	"object.kind == 'Deployment'",
	"has(object.metadata.labels) && 'tier' in object.metadata.labels",
	"request.namespace != 'sim-bare'",
	"object.spec.replicas > 2",
	"authorizer.group('').resource('secrets').check('list').allowed()",
	"oldObject == null",
}

type webhookCase struct {
	mutating   *admissionregistrationv1.MutatingWebhookConfiguration
	validating *admissionregistrationv1.ValidatingWebhookConfiguration
	requests   []*request
}

func (g *generator) webhookCase(i int, url string, caPEM []byte) *webhookCase {
	label := fmt.Sprintf("w%d", i)
	name := fmt.Sprintf("sim-w%d", i)
	var hooks []admissionregistrationv1.MutatingWebhook
	for j := 0; j < 2+g.r.IntN(3); j++ {
		hookName := fmt.Sprintf("h%d.%s.example.com", j, name)
		fp := admissionregistrationv1.FailurePolicyType(g.pick("Fail", "Ignore"))
		mp := admissionregistrationv1.MatchPolicyType(g.pick("Equivalent", "Exact"))
		se := admissionregistrationv1.SideEffectClassNone
		timeout := int32(5)
		objSel := g.selector("team", "tier", "inject")
		if objSel.MatchLabels == nil {
			objSel.MatchLabels = map[string]string{}
		}
		objSel.MatchLabels["sim-case"] = label
		h := admissionregistrationv1.MutatingWebhook{
			Name:                    hookName,
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr(url + "/" + hookName), CABundle: caPEM},
			FailurePolicy:           &fp,
			MatchPolicy:             &mp,
			SideEffects:             &se,
			TimeoutSeconds:          &timeout,
			AdmissionReviewVersions: []string{"v1"},
			NamespaceSelector:       g.selector("env", "team", "kubernetes.io/metadata.name"),
			ObjectSelector:          objSel,
		}
		for _, r := range g.rules("CREATE", "UPDATE", "*") {
			h.Rules = append(h.Rules, r.RuleWithOperations)
		}
		for k := 0; k < g.r.IntN(3); k++ {
			h.MatchConditions = append(h.MatchConditions, admissionregistrationv1.MatchCondition{Name: fmt.Sprintf("c%d", k), Expression: g.pick(webhookConditions...)})
		}
		hooks = append(hooks, h)
	}
	c := &webhookCase{}
	if i%2 == 0 {
		c.mutating = &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}, Webhooks: hooks}
		for j := range c.mutating.Webhooks {
			rp := admissionregistrationv1.ReinvocationPolicyType(g.pick("Never", "IfNeeded"))
			c.mutating.Webhooks[j].ReinvocationPolicy = &rp
		}
	} else {
		c.validating = &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}}
		for _, h := range hooks {
			c.validating.Webhooks = append(c.validating.Webhooks, admissionregistrationv1.ValidatingWebhook{
				Name: h.Name, ClientConfig: h.ClientConfig, Rules: h.Rules, FailurePolicy: h.FailurePolicy, MatchPolicy: h.MatchPolicy,
				NamespaceSelector: h.NamespaceSelector, ObjectSelector: h.ObjectSelector, SideEffects: h.SideEffects,
				TimeoutSeconds: h.TimeoutSeconds, AdmissionReviewVersions: h.AdmissionReviewVersions, MatchConditions: h.MatchConditions,
			})
		}
	}
	for j := 0; j < 8; j++ {
		c.requests = append(c.requests, &request{object: g.object(label, j)})
	}
	return c
}

func ptr[T any](v T) *T { return &v }

func TestWebhooksAgainstAPIServer(t *testing.T) {
	w := setup(t)
	ctx := context.Background()
	start := time.Now()
	rec := newRecorder(t)
	g := newGenerator(3)
	const n = 50
	var cases []*webhookCase
	for i := 0; i < n; i++ {
		cases = append(cases, g.webhookCase(i, rec.server.URL, rec.caPEM))
	}
	for _, c := range cases {
		for j, r := range c.requests {
			if j%3 != 0 {
				continue
			}
			old, err := w.stored(ctx, r.object)
			if err != nil {
				t.Fatal(err)
			}
			r.old = old
			r.object = g.changed(old)
		}
	}
	admission := w.admin.AdmissionregistrationV1()
	created := cases[:0]
	rejected := 0
	for _, c := range cases {
		var err error
		if c.mutating != nil {
			_, err = admission.MutatingWebhookConfigurations().Create(ctx, c.mutating, metav1.CreateOptions{})
		} else {
			_, err = admission.ValidatingWebhookConfigurations().Create(ctx, c.validating, metav1.CreateOptions{})
		}
		if err != nil {
			if !apierrors.IsInvalid(err) {
				t.Fatal(err)
			}
			rejected++
			t.Logf("rejected by the server: %v", err)
			continue
		}
		created = append(created, c)
	}
	cases = created
	t.Cleanup(func() {
		for _, c := range cases {
			if c.mutating != nil {
				_ = admission.MutatingWebhookConfigurations().Delete(ctx, c.mutating.Name, metav1.DeleteOptions{})
			} else {
				_ = admission.ValidatingWebhookConfigurations().Delete(ctx, c.validating.Name, metav1.DeleteOptions{})
			}
		}
		settle()
	})
	settle()

	total, agree, calls, skips, rejections, retried := 0, 0, 0, 0, 0, 0
	for _, c := range cases {
		for _, r := range c.requests {
			total++
			sr, err := r.offline(w)
			if err != nil {
				t.Fatal(err)
			}
			off, err := simulate.MatchConfiguration(ctx, c.mutating, c.validating, sr)
			if err != nil {
				t.Fatal(err)
			}
			key := r.object.GetNamespace() + "/" + r.object.GetName()
			var srv serverAnswer
			var called []string
			ask := func() {
				rec.take(key)
				srv = w.send(ctx, r)
				called = rec.take(key)
				if c.validating != nil {
					// Validating webhooks are called in parallel.
					sort.Strings(called)
				}
			}
			want := off.Called
			if c.validating != nil {
				want = append([]string(nil), want...)
				sort.Strings(want)
			}
			same := func() bool {
				if off.Rejected != "" {
					return !srv.allowed && srv.message == off.Rejected && len(called) == 0
				}
				return srv.allowed && sameStrings(called, want)
			}
			ask()
			if !same() {
				time.Sleep(time.Second)
				ask()
				if same() {
					retried++
				}
			}
			calls += len(off.Called)
			skips += len(off.Skipped)
			if off.Rejected != "" {
				rejections++
			}
			if same() {
				agree++
				continue
			}
			cfg := any(c.validating)
			if c.mutating != nil {
				cfg = c.mutating
			}
			t.Errorf("%s %s (update %v):\n  offline: called %q skipped %+v rejected %q\n  server:  called %q allowed %v message %q\n  configuration: %s",
				r.object.GetKind(), key, r.old != nil, off.Called, off.Skipped, off.Rejected, called, srv.allowed, short(srv.message), jsonString(cfg))
		}
	}
	line := fmt.Sprintf("differential: %d/%d webhook requests agree on the webhooks called (%d configurations, %d more rejected by the server; %d calls, %d skips, %d requests rejected by a match condition, %d agreed only when asked again); kube-apiserver %s, %s",
		agree, total, len(cases), rejected, calls, skips, rejections, retried, w.version, time.Since(start).Round(time.Millisecond))
	t.Log(line)
	// make test prints the lines of go test -v that start with "differential:".
	fmt.Println(line)
}
