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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	admissionclient "k8s.io/client-go/kubernetes/typed/admissionregistration/v1"

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
	// answers are the responses of webhooks (by name) that do not simply allow.
	answers map[string]admissionv1.AdmissionResponse
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
	if a, ok := r.answer(strings.TrimPrefix(req.URL.Path, "/")); ok {
		a.UID = review.Request.UID
		review.Response = &a
	}
	review.Request = nil
	_ = json.NewEncoder(w).Encode(review)
}

// answer is the response webhook name is given, if it is not simply to allow.
func (r *recorder) answer(name string) (admissionv1.AdmissionResponse, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a, ok := r.answers[name]
	return a, ok
}

// setAnswer makes webhook name respond with a.
func (r *recorder) setAnswer(name string, a admissionv1.AdmissionResponse) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.answers == nil {
		r.answers = map[string]admissionv1.AdmissionResponse{}
	}
	r.answers[name] = a
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

func (c *webhookCase) create(ctx context.Context, a admissionclient.AdmissionregistrationV1Interface) error {
	var err error
	if c.mutating != nil {
		_, err = a.MutatingWebhookConfigurations().Create(ctx, c.mutating, metav1.CreateOptions{})
	} else {
		_, err = a.ValidatingWebhookConfigurations().Create(ctx, c.validating, metav1.CreateOptions{})
	}
	return err
}

func (c *webhookCase) complete(context.Context, admissionclient.AdmissionregistrationV1Interface) error {
	return nil
}

func (c *webhookCase) remove(ctx context.Context, a admissionclient.AdmissionregistrationV1Interface) {
	if c.mutating != nil {
		_ = a.MutatingWebhookConfigurations().Delete(ctx, c.mutating.Name, metav1.DeleteOptions{})
	} else {
		_ = a.ValidatingWebhookConfigurations().Delete(ctx, c.validating.Name, metav1.DeleteOptions{})
	}
}

func (c *webhookCase) requestList() []*request { return c.requests }

func TestWebhooksAgainstAPIServer(t *testing.T) {
	w := setup(t)
	ctx := context.Background()
	start := time.Now()
	rec := newRecorder(t)
	d := install(t, ctx, w, start, newGenerator(3), 50, func(g *generator, i int) *webhookCase {
		return g.webhookCase(i, rec.server.URL, rec.caPEM)
	})

	calls, skips, rejections := 0, 0, 0
	d.compare(t, func(c *webhookCase, r *request, sr *simulate.Request) answers {
		off, err := simulate.MatchConfiguration(ctx, c.mutating, c.validating, sr)
		if err != nil {
			t.Fatal(err)
		}
		calls += len(off.Called)
		skips += len(off.Skipped)
		if off.Rejected != "" {
			rejections++
		}
		key := r.object.GetNamespace() + "/" + r.object.GetName()
		want := off.Called
		if c.validating != nil {
			want = append([]string(nil), want...)
			sort.Strings(want)
		}
		var srv serverAnswer
		var called []string
		return answers{
			ask: func() {
				rec.take(key)
				srv = w.send(ctx, r)
				called = rec.take(key)
				if c.validating != nil {
					// Validating webhooks are called in parallel.
					sort.Strings(called)
				}
			},
			same: func() bool {
				if off.Rejected != "" {
					return !srv.allowed && srv.message == off.Rejected && len(called) == 0
				}
				return srv.allowed && sameStrings(called, want)
			},
			disagreement: func() string {
				cfg := any(c.validating)
				if c.mutating != nil {
					cfg = c.mutating
				}
				return fmt.Sprintf("%s %s (update %v):\n  offline: called %q skipped %+v rejected %q\n  server:  called %q allowed %v message %q\n  configuration: %s",
					r.object.GetKind(), key, r.old != nil, off.Called, off.Skipped, off.Rejected, called, srv.allowed, short(srv.message), jsonString(cfg))
			},
		}
	})
	d.report(t, "webhook requests agree on the webhooks called", "configurations",
		fmt.Sprintf("%d calls, %d skips, %d requests rejected by a match condition", calls, skips, rejections))
}
