package faultproxy

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
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// upstream is a stand-in for kube-apiserver that remembers what it served.
type upstream struct {
	*httptest.Server
	mu   sync.Mutex
	seen []seen
}

type seen struct {
	method, path, auth, clientCN string
}

// body is what the upstream answers: 8 KiB of JSON.
var body = `{"kind":"Thing","data":"` + strings.Repeat("x", 8<<10-26) + `"}`

const bodySize = 8 << 10

func newUpstream(t *testing.T) *upstream {
	t.Helper()
	u := &upstream{}
	u.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := seen{method: r.Method, path: r.URL.Path, auth: r.Header.Get("Authorization")}
		if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
			s.clientCN = r.TLS.PeerCertificates[0].Subject.CommonName
		}
		u.mu.Lock()
		u.seen = append(u.seen, s)
		u.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, body)
	}))
	u.EnableHTTP2 = true
	u.TLS = &tls.Config{ClientAuth: tls.RequestClientCert}
	u.StartTLS()
	t.Cleanup(u.Close)
	return u
}

func (u *upstream) requests() []seen {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]seen(nil), u.seen...)
}

func (u *upstream) caPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: u.Certificate().Raw})
}

// clientCertPEM makes a client certificate with the common name.
func clientCertPEM(t *testing.T, cn string) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(7),
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
}

func startProxy(t *testing.T, u *upstream, mutate ...func(*Options)) *Proxy {
	t.Helper()
	cert, key := clientCertPEM(t, "admin")
	opts := Options{Upstream: u.URL, UpstreamCAPEM: u.caPEM(), ClientCertPEM: cert, ClientKeyPEM: key}
	for _, m := range mutate {
		m(&opts)
	}
	return Start(t, opts)
}

// client trusts the proxy's CA. Each client has its own connection pool.
func client(t *testing.T, p *Proxy) *http.Client {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(p.CAPEM) {
		t.Fatal("CAPEM holds no certificate")
	}
	tr := &http.Transport{
		TLSClientConfig:     &tls.Config{RootCAs: pool},
		ForceAttemptHTTP2:   true,
		TLSHandshakeTimeout: 500 * time.Millisecond,
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 5 * time.Second}
}

func (r result) String() string {
	return fmt.Sprintf("status %d HTTP/%d Retry-After %q, %d body bytes, error %v", r.status, r.proto, r.retryAfter, len(r.body), r.err)
}

type result struct {
	status     int
	proto      int
	body       string
	retryAfter string
	err        error
}

func do(c *http.Client, p *Proxy, method, path, token string) result {
	var body io.Reader
	if method != http.MethodGet {
		body = strings.NewReader(`{"apply":true}`)
	}
	req, _ := http.NewRequest(method, p.URL+path, body)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return result{err: err}
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	return result{status: resp.StatusCode, proto: resp.ProtoMajor, body: string(b), retryAfter: resp.Header.Get("Retry-After"), err: err}
}

func TestPassThroughKeepsIdentityAndCounts(t *testing.T) {
	u := newUpstream(t)
	p := startProxy(t, u)
	c := client(t, p)

	r := do(c, p, "GET", "/api/v1/things/a", "tok-1")
	if r.err != nil || r.status != 200 || len(r.body) != bodySize {
		t.Fatalf("GET through the proxy: %v", r)
	}
	if r.proto != 2 {
		t.Errorf("proto = HTTP/%d, want HTTP/2 as kube-apiserver offers", r.proto)
	}
	if r := do(c, p, "PATCH", "/api/v1/things/a", ""); r.err != nil || r.status != 200 {
		t.Fatalf("PATCH through the proxy: %v", r)
	}

	got := u.requests()
	if len(got) != 2 {
		t.Fatalf("upstream saw %d requests, want 2", len(got))
	}
	if got[0].auth != "Bearer tok-1" || got[0].clientCN != "" {
		t.Errorf("a request with a token must go upstream with that token only; got %v", got[0])
	}
	if got[1].auth != "" || got[1].clientCN != "admin" {
		t.Errorf("a request without Authorization must go upstream with the client certificate; got %v", got[1])
	}
	if n := p.Count("GET", "/things/a"); n != 1 {
		t.Errorf("Count(GET) = %d", n)
	}
	if n := p.Count("", "/things/a"); n != 2 {
		t.Errorf("Count(any) = %d", n)
	}
	if rec := p.Records()[0]; !rec.Forwarded || rec.Status != 200 || rec.Fault != "" {
		t.Errorf("record = %v", rec)
	}
}

func TestHTTP1Only(t *testing.T) {
	u := newUpstream(t)
	p := startProxy(t, u, func(o *Options) { o.HTTP1Only = true })
	if r := do(client(t, p), p, "GET", "/x", "t"); r.err != nil || r.proto != 1 {
		t.Fatalf("%v", r)
	}
}

func TestRespondTimesWithRetryAfter(t *testing.T) {
	u := newUpstream(t)
	p := startProxy(t, u)
	c := client(t, p)
	f := p.Inject(Fault{Match: Method("PATCH"), Action: Respond, Status: 429, RetryAfter: "2", Times: 2})

	if r := do(c, p, "GET", "/x", "t"); r.status != 200 {
		t.Fatalf("GET does not match the fault: %v", r)
	}
	for i := range 2 {
		r := do(c, p, "PATCH", "/x", "t")
		if r.status != 429 || r.retryAfter != "2" {
			t.Fatalf("PATCH %d: %v", i, r)
		}
		var st struct {
			Kind, Reason string
			Code         int
			Details      struct{ RetryAfterSeconds int }
		}
		if err := json.Unmarshal([]byte(r.body), &st); err != nil || st.Kind != "Status" || st.Reason != "TooManyRequests" || st.Code != 429 || st.Details.RetryAfterSeconds != 2 {
			t.Fatalf("body is not a 429 Status: %q (%v)", r.body, err)
		}
	}
	if r := do(c, p, "PATCH", "/x", "t"); r.status != 200 {
		t.Fatalf("after Times the fault ends: %v", r)
	}
	if f.Hits() != 2 {
		t.Errorf("Hits = %d", f.Hits())
	}
	select {
	case <-f.Hit():
	default:
		t.Error("Hit() not closed")
	}
	if n := len(u.requests()); n != 2 {
		t.Errorf("upstream saw %d requests, want 2 (answered ones never reach it)", n)
	}
	if n := p.CountWhere(func(r Record) bool { return r.Fault == "respond" && r.Status == 429 && !r.Forwarded }); n != 2 {
		t.Errorf("records of injected answers = %d", n)
	}
}

func TestRespondForADurationWithoutRetryAfter(t *testing.T) {
	u := newUpstream(t)
	p := startProxy(t, u)
	c := client(t, p)
	p.Inject(Fault{Action: Respond, For: 300 * time.Millisecond})
	r := do(c, p, "GET", "/x", "t")
	if r.status != 503 || r.retryAfter != "" || !strings.Contains(r.body, `"reason":"ServiceUnavailable"`) {
		t.Fatalf("%v", r)
	}
	time.Sleep(400 * time.Millisecond)
	if r := do(c, p, "GET", "/x", "t"); r.status != 200 {
		t.Fatalf("after For the fault ends: %v", r)
	}
}

func TestSkipRemoveAndDryRun(t *testing.T) {
	u := newUpstream(t)
	p := startProxy(t, u)
	c := client(t, p)
	f := p.Inject(Fault{Match: All(Method("PATCH"), NotDryRun), Action: Respond, Status: 500, Skip: 1})
	if r := do(c, p, "PATCH", "/x", "t"); r.status != 200 {
		t.Fatalf("first is skipped: %v", r)
	}
	if r := do(c, p, "PATCH", "/x?dryRun=All", "t"); r.status != 200 {
		t.Fatalf("dry runs do not match: %v", r)
	}
	if r := do(c, p, "PATCH", "/x", "t"); r.status != 500 {
		t.Fatalf("second is hit: %v", r)
	}
	f.Remove()
	if r := do(c, p, "PATCH", "/x", "t"); r.status != 200 {
		t.Fatalf("removed: %v", r)
	}
}

func TestDelay(t *testing.T) {
	u := newUpstream(t)
	p := startProxy(t, u)
	c := client(t, p)
	p.Inject(Fault{Action: Delay, Delay: 300 * time.Millisecond, Times: 1})
	start := time.Now()
	if r := do(c, p, "GET", "/x", "t"); r.status != 200 {
		t.Fatal(r)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("answered after %s, want at least 300ms", d)
	}
}

func TestDelayedRequestTheClientGivesUpOnIsNotForwarded(t *testing.T) {
	u := newUpstream(t)
	p := startProxy(t, u)
	c := client(t, p)
	c.Timeout = 100 * time.Millisecond
	p.Inject(Fault{Action: Delay, Delay: time.Second, Times: 1})
	if r := do(c, p, "GET", "/x", "t"); r.err == nil {
		t.Fatalf("want a client timeout, got %v", r)
	}
	time.Sleep(100 * time.Millisecond)
	if n := len(u.requests()); n != 0 {
		t.Errorf("upstream saw %d requests", n)
	}
}

func TestCutConnectionMidBody(t *testing.T) {
	for _, http1 := range []bool{false, true} {
		t.Run(map[bool]string{false: "h2", true: "http1"}[http1], func(t *testing.T) {
			u := newUpstream(t)
			p := startProxy(t, u, func(o *Options) { o.HTTP1Only = http1 })
			c := client(t, p)
			p.Inject(Fault{Match: Method("PATCH"), Action: CutConnection, Times: 1})
			r := do(c, p, "PATCH", "/x", "t")
			if r.err == nil {
				t.Fatalf("want an error reading a cut answer, got %v", r)
			}
			if !errors.Is(r.err, io.ErrUnexpectedEOF) && !strings.Contains(r.err.Error(), "connection lost") && !strings.Contains(r.err.Error(), "EOF") {
				t.Errorf("unexpected error: %v", r.err)
			}
			t.Logf("client saw: status %d, %d body bytes, error %v", r.status, len(r.body), r.err)
			if r.status != 200 || len(r.body) != bodySize/2 {
				t.Errorf("want the status and half the body before the cut, got status %d and %d bytes", r.status, len(r.body))
			}
			if n := len(u.requests()); n != 1 {
				t.Errorf("upstream saw %d requests, want 1: the server acts before the cut", n)
			}
			if rec := p.Records()[0]; rec.Fault != "cut-connection" || !rec.Forwarded || rec.Status != 200 {
				t.Errorf("record = %v", rec)
			}
			if r := do(c, p, "PATCH", "/x", "t"); r.err != nil || r.status != 200 {
				t.Fatalf("next request: %v", r)
			}
		})
	}
}

func TestCutBeforeResponse(t *testing.T) {
	u := newUpstream(t)
	p := startProxy(t, u)
	c := client(t, p)
	p.Inject(Fault{Action: CutConnection, CutBeforeResponse: true, Times: 1})
	r := do(c, p, "PATCH", "/x", "t")
	if r.err == nil || r.status != 0 {
		t.Fatalf("want an error and no answer, got %v", r)
	}
	t.Logf("client saw: %v", r.err)
	if n := len(u.requests()); n != 1 {
		t.Errorf("upstream saw %d requests, want 1", n)
	}
}

func TestResetStream(t *testing.T) {
	u := newUpstream(t)
	p := startProxy(t, u)
	c := client(t, p)
	p.Inject(Fault{Action: ResetStream, BodyBytes: 100, Times: 1})
	r := do(c, p, "GET", "/x", "t")
	if r.err == nil || !strings.Contains(r.err.Error(), "stream error") {
		t.Fatalf("want an HTTP/2 stream error, got %v", r)
	}
	t.Logf("client saw: status %d, %d body bytes, error %v", r.status, len(r.body), r.err)
}

func TestNoForward(t *testing.T) {
	u := newUpstream(t)
	p := startProxy(t, u)
	c := client(t, p)
	p.Inject(Fault{Action: CutConnection, NoForward: true, Times: 1})
	if r := do(c, p, "PATCH", "/x", "t"); r.err == nil {
		t.Fatalf("%v", r)
	}
	if n := len(u.requests()); n != 0 {
		t.Errorf("upstream saw %d requests, want 0", n)
	}
}

func TestRefuseThenRecover(t *testing.T) {
	u := newUpstream(t)
	p := startProxy(t, u)
	c := client(t, p)
	if r := do(c, p, "GET", "/x", "t"); r.status != 200 {
		t.Fatal(r)
	}
	p.SetConnections(Refuse, 400*time.Millisecond)
	// The kept-alive connection is closed: the client finds out when it
	// uses it (a reset, or refused if it noticed first), then it dials.
	if r := do(c, p, "GET", "/x", "t"); r.err == nil {
		t.Fatalf("want an error over the closed kept-alive connection, got %v", r)
	}
	if r := do(c, p, "GET", "/x", "t"); !errors.Is(r.err, syscall.ECONNREFUSED) {
		t.Fatalf("want connection refused, got %v", r)
	}
	time.Sleep(600 * time.Millisecond)
	if p.Mode() != Accept {
		t.Fatalf("mode = %s after the refuse period", p.Mode())
	}
	if r := do(c, p, "GET", "/x", "t"); r.err != nil || r.status != 200 {
		t.Fatalf("after the refuse period: %v", r)
	}
	if s := p.Connections(); s.RefusePeriods != 1 || s.Accepted != 2 {
		t.Errorf("stats = %v", s)
	}
}

func TestResetAndDropConnections(t *testing.T) {
	u := newUpstream(t)
	p := startProxy(t, u)
	for _, mode := range []ConnMode{Reset, Drop} {
		p.SetConnections(mode, 0)
		r := do(client(t, p), p, "GET", "/x", "t")
		if r.err == nil {
			t.Fatalf("%s: want an error, got %v", mode, r)
		}
		t.Logf("%s: client saw %v", mode, r.err)
		if mode == Reset && !errors.Is(r.err, syscall.ECONNRESET) {
			t.Errorf("reset: want ECONNRESET, got %v", r.err)
		}
	}
	p.SetConnections(Accept, 0)
	if r := do(client(t, p), p, "GET", "/x", "t"); r.status != 200 {
		t.Fatal(r)
	}
	if s := p.Connections(); s.Reset < 1 || s.Dropped < 1 {
		t.Errorf("stats = %v", s)
	}
	if n := len(u.requests()); n != 1 {
		t.Errorf("upstream saw %d requests", n)
	}
}

func TestModeChangeClosesKeptAliveConnections(t *testing.T) {
	u := newUpstream(t)
	p := startProxy(t, u)
	c := client(t, p)
	if r := do(c, p, "GET", "/x", "t"); r.status != 200 {
		t.Fatal(r)
	}
	p.SetConnections(Drop, 0)
	if r := do(c, p, "GET", "/x", "t"); r.err == nil {
		t.Fatalf("the kept-alive connection must be gone: %v", r)
	}
}

func TestBlackholeTimesOutTheHandshake(t *testing.T) {
	u := newUpstream(t)
	p := startProxy(t, u)
	p.SetConnections(Blackhole, 0)
	r := do(client(t, p), p, "GET", "/x", "t")
	if r.err == nil || !strings.Contains(r.err.Error(), "TLS handshake timeout") {
		t.Fatalf("want a TLS handshake timeout, got %v", r)
	}
	p.SetConnections(Accept, 0)
	if r := do(client(t, p), p, "GET", "/x", "t"); r.status != 200 {
		t.Fatal(r)
	}
	if s := p.Connections(); s.Blackholed != 1 {
		t.Errorf("stats = %v", s)
	}
}

func TestOutageAfterTheServerActs(t *testing.T) {
	u := newUpstream(t)
	p := startProxy(t, u)
	c := client(t, p)
	f := p.Inject(Fault{Match: Method("PATCH"), Action: CutConnection, CutBeforeResponse: true, Outage: 500 * time.Millisecond, Times: 1})
	if r := do(c, p, "PATCH", "/x", "t"); r.err == nil {
		t.Fatalf("%v", r)
	}
	<-f.Hit()
	if r := do(c, p, "GET", "/x", "t"); !errors.Is(r.err, syscall.ECONNREFUSED) {
		t.Fatalf("during the outage: %v", r)
	}
	time.Sleep(700 * time.Millisecond)
	if r := do(c, p, "GET", "/x", "t"); r.status != 200 {
		t.Fatalf("after the outage: %v", r)
	}
	if n := len(u.requests()); n != 2 {
		t.Errorf("upstream saw %d requests, want the cut PATCH and the last GET", n)
	}
}

func TestClear(t *testing.T) {
	u := newUpstream(t)
	p := startProxy(t, u)
	p.Inject(Fault{Action: Respond})
	p.SetConnections(Refuse, time.Hour)
	p.Clear()
	if r := do(client(t, p), p, "GET", "/x", "t"); r.status != 200 {
		t.Fatal(r)
	}
}

func TestOnlyLoopback(t *testing.T) {
	for _, up := range []string{"https://example.com", "https://10.0.0.1:6443", "http://127.0.0.1:1"} {
		if _, err := New(Options{Upstream: up}); err == nil {
			t.Errorf("New(%q) must fail", up)
		}
	}
	p, err := New(Options{Upstream: "https://localhost:1"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = p.Close() }()
	if !strings.HasPrefix(p.URL, "https://127.0.0.1:") {
		t.Errorf("URL = %s", p.URL)
	}
}

func TestClosesByItselfAndTwice(t *testing.T) {
	u := newUpstream(t)
	p := startProxy(t, u, func(o *Options) { o.MaxLifetime = 200 * time.Millisecond })
	time.Sleep(400 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", p.URL+"/x", nil)
	resp, err := client(t, p).Do(req)
	if err == nil {
		_ = resp.Body.Close()
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("after MaxLifetime: %v", err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	p.SetConnections(Accept, 0) // no effect once closed
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
}
