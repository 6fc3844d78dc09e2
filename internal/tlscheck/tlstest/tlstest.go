// Package tlstest makes, for tests, certificate authorities, certificates they sign, and HTTPS
// servers on loopback that present them: the backends of URL webhooks whose certificates the
// plan checks (internal/tlscheck) and the API server calls.
package tlstest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// Cert is a certificate and its key.
type Cert struct {
	Cert *x509.Certificate
	Key  crypto.Signer
}

// PEM is the certificate in PEM, as a ca_bundle has it.
func (c *Cert) PEM() string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Cert.Raw}))
}

// TLS is the certificate as a server presents it.
func (c *Cert) TLS() tls.Certificate {
	return tls.Certificate{Certificate: [][]byte{c.Cert.Raw}, PrivateKey: c.Key, Leaf: c.Cert}
}

// Template is what a certificate is made of; zero times are an hour ago and a year from now.
type Template struct {
	CommonName          string
	NotBefore, NotAfter time.Time
	DNSNames            []string
	IPs                 []net.IP
}

func (t Template) x509(ca bool) *x509.Certificate {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		panic(err)
	}
	if t.NotBefore.IsZero() {
		t.NotBefore = time.Now().Add(-time.Hour)
	}
	if t.NotAfter.IsZero() {
		t.NotAfter = time.Now().Add(365 * 24 * time.Hour)
	}
	c := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: t.CommonName},
		NotBefore: t.NotBefore, NotAfter: t.NotAfter, DNSNames: t.DNSNames, IPAddresses: t.IPs,
		BasicConstraintsValid: true, IsCA: ca,
	}
	if ca {
		c.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature
	} else {
		c.KeyUsage = x509.KeyUsageDigitalSignature
		c.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	}
	return c
}

func newCert(tmpl, parent *x509.Certificate, parentKey crypto.Signer) *Cert {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, key.Public(), parentKey)
	if err != nil {
		panic(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		panic(err)
	}
	return &Cert{Cert: cert, Key: key}
}

// CA is a self-signed certificate authority.
func CA(t Template) *Cert { return newCert(t.x509(true), nil, nil) }

// Issue is a serving certificate that ca signs.
func (c *Cert) Issue(t Template) *Cert { return newCert(t.x509(false), c.Cert, c.Key) }

// Loopback is the address a test server listens at.
var Loopback = net.ParseIP("127.0.0.1")

// Serve starts an HTTPS server on loopback that presents cert and answers handler (every
// request with 200 and an empty body when nil), stopped when the test ends: its URL
// ("https://127.0.0.1:port").
func Serve(t testing.TB, cert *Cert, handler http.Handler) *httptest.Server {
	t.Helper()
	if handler == nil {
		handler = http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	}
	srv := httptest.NewUnstartedServer(handler)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert.TLS()}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// Closed is an address on loopback where nothing listens (a port that was just free).
func Closed(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}
