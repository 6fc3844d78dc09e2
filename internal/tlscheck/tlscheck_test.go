package tlscheck_test

import (
	"context"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/tlscheck"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tlscheck/tlstest"
)

// The handshake against HTTPS servers on loopback: what verifies, and each reason why not in
// crypto/tls's words, which are the API server's.
func TestCheck(t *testing.T) {
	ca := tlstest.CA(tlstest.Template{CommonName: "webhook-ca"})
	other := tlstest.CA(tlstest.Template{CommonName: "other-ca"})
	ip := []net.IP{tlstest.Loopback}
	good := tlstest.Serve(t, ca.Issue(tlstest.Template{CommonName: "good", IPs: ip, DNSNames: []string{"localhost"}}), nil)
	strange := tlstest.Serve(t, other.Issue(tlstest.Template{CommonName: "strange", IPs: ip}), nil)
	expired := tlstest.Serve(t, ca.Issue(tlstest.Template{CommonName: "expired", IPs: ip,
		NotBefore: time.Now().Add(-48 * time.Hour), NotAfter: time.Now().Add(-24 * time.Hour)}), nil)
	named := tlstest.Serve(t, ca.Issue(tlstest.Template{CommonName: "named", DNSNames: []string{"webhook.example.com"}}), nil)
	_, port, _ := net.SplitHostPort(named.Listener.Addr().String())

	c := tlscheck.New(0)
	ctx := context.Background()
	cases := []struct {
		name, url, bundle string
		verify, unchecked string
	}{
		{"healthy", good.URL + "/validate", ca.PEM(), "", ""},
		{"healthy by name", strings.Replace(good.URL, "127.0.0.1", "localhost", 1), ca.PEM(), "", ""},
		{"bundle of two", good.URL, other.PEM() + ca.PEM(), "", ""},
		{"another CA", strange.URL, ca.PEM(), "tls: failed to verify certificate: x509: certificate signed by unknown authority", ""},
		{"system roots", good.URL, "", "x509: certificate signed by unknown authority", ""},
		{"expired", expired.URL, ca.PEM(), "x509: certificate has expired or is not yet valid", ""},
		{"no IP SAN", named.URL, ca.PEM(), "x509: cannot validate certificate for 127.0.0.1 because it doesn't contain any IP SANs", ""},
		{"wrong name", "https://localhost:" + port, ca.PEM(), "x509: certificate is valid for webhook.example.com, not localhost", ""},
		{"nothing listening", "https://" + tlstest.Closed(t), ca.PEM(), "", "connection refused"},
		{"not https", "http://127.0.0.1:1", ca.PEM(), "", `scheme is "http"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := c.Check(ctx, tc.url, []byte(tc.bundle))
			if got := errString(r.Verify); tc.verify == "" && got != "" || !strings.Contains(got, tc.verify) {
				t.Errorf("verify: %q, want %q", got, tc.verify)
			}
			if got := errString(r.Unchecked); tc.unchecked == "" && got != "" || !strings.Contains(got, tc.unchecked) {
				t.Errorf("unchecked: %q, want %q", got, tc.unchecked)
			}
			t.Logf("%s: %s", tc.name, r.Took)
			if tc.verify == "" && tc.unchecked == "" && (r.Leaf == nil || r.Leaf.Subject.CommonName != "good") {
				t.Errorf("the serving certificate: %+v", r.Leaf)
			}
			if tc.verify != "" && r.Leaf == nil {
				t.Error("a certificate that does not verify is not kept")
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// A backend that accepts the connection but never answers the handshake is given the budget,
// not more; plans of many webhooks of one backend, at the same time, share one handshake, and
// later ones use its answer.
func TestCheckBudgetAndShared(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	var accepted atomic.Int32
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			defer func() { _ = conn.Close() }() // held open, silent
		}
	}()
	c := tlscheck.New(500 * time.Millisecond)
	url := "https://" + l.Addr().String() + "/validate"
	start := time.Now()
	var wg sync.WaitGroup
	results := make([]tlscheck.Result, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = c.Check(context.Background(), url, nil)
		}()
	}
	wg.Wait()
	took := time.Since(start)
	if took > 2*time.Second {
		t.Errorf("eight checks of a silent backend took %s with a budget of 500ms", took)
	}
	for _, r := range results {
		if r.Unchecked == nil || !strings.Contains(r.Unchecked.Error(), "deadline exceeded") {
			t.Errorf("a silent backend: %+v", r)
		}
	}
	if r := c.Check(context.Background(), url+"/other-path", nil); r.Unchecked == nil {
		t.Errorf("the same host, later: %+v", r)
	}
	if n := accepted.Load(); n != 1 {
		t.Errorf("%d connections for nine checks of one host and caBundle, want 1", n)
	}
	// Another caBundle is another check.
	c.Check(context.Background(), url, []byte(tlstest.CA(tlstest.Template{CommonName: "x"}).PEM()))
	if n := accepted.Load(); n != 2 {
		t.Errorf("%d connections after a check with another caBundle, want 2", n)
	}
}

func TestAddress(t *testing.T) {
	for in, want := range map[string]string{
		"https://webhook.example.com/validate": "webhook.example.com:443",
		"https://webhook.example.com:8443/x":   "webhook.example.com:8443",
		"https://[::1]:9443/x":                 "[::1]:9443",
		"https://10.0.0.1":                     "10.0.0.1:443",
	} {
		if got, _, err := tlscheck.Address(in); got != want || err != nil {
			t.Errorf("%s: %q, %v; want %q", in, got, err, want)
		}
	}
	if _, _, err := tlscheck.Address("https:///x"); err == nil {
		t.Error("a URL without a host")
	}
}
