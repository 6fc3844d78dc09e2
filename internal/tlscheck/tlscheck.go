// Package tlscheck makes, at plan, the TLS handshake that the API server makes when it calls a
// URL webhook, from where the provider runs: to the URL's host and port (443 when the URL has
// none), verifying the serving certificate against the webhook's caBundle (the system's roots
// without one) and for the URL's host name, as kube-apiserver does (k8s.io/apiserver
// pkg/util/webhook ClientManager.HookClient: the caBundle is the TLS client's CAData, the
// server name the URL's host; crypto/tls verifies the chain and the name, so the reasons are the
// server's own words). Each check is bounded (Checker's budget and the caller's context) and made
// once per host, port and caBundle for the life of its Checker: plans of many webhooks of one
// backend, made at the same time, share one handshake.
package tlscheck

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/url"
	"sync"
	"time"
)

// DefaultBudget is the longest one handshake may take, the connection included.
const DefaultBudget = 3 * time.Second

// Result is what one check found.
type Result struct {
	// Address is the host and port that was called ("webhook.example.com:443").
	Address string
	// Verify is why the serving certificate does not verify, in crypto/tls's words (those the
	// API server reports: "tls: failed to verify certificate: x509: certificate signed by
	// unknown authority"); nil when it verifies or when no certificate was seen.
	Verify error
	// Unchecked is why no certificate could be checked (the URL does not parse, nothing
	// answers, the time ran out, the handshake failed before the certificate); nil when one
	// was.
	Unchecked error
	// Leaf is the serving certificate the backend presented, when one was seen.
	Leaf *x509.Certificate
	// Took is how long the check took (the first caller's; those that shared it waited less).
	Took time.Duration
}

// Checker makes checks and keeps their results. The zero value is not ready: use New. It is
// safe for concurrent use.
type Checker struct {
	budget time.Duration
	dial   func(ctx context.Context, network, address string) (net.Conn, error)

	mu      sync.Mutex
	results map[key]*entry
}

type key struct {
	address  string
	caBundle string
}

type entry struct {
	done chan struct{}
	res  Result
}

// New is a Checker that gives each handshake at most budget (DefaultBudget when 0).
func New(budget time.Duration) *Checker {
	if budget <= 0 {
		budget = DefaultBudget
	}
	return &Checker{budget: budget, dial: (&net.Dialer{}).DialContext, results: map[key]*entry{}}
}

// Address is the host and port the API server calls for the webhook URL rawURL, and the host
// name it verifies the certificate for (k8s.io/apiserver pkg/util/webhook
// ClientManager.HookClient: port 443 when the URL names none).
func Address(rawURL string) (address, host string, err error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", "", err
	}
	if u.Scheme != "https" {
		return "", "", fmt.Errorf("the URL's scheme is %q, not https", u.Scheme)
	}
	host = u.Hostname()
	if host == "" {
		return "", "", errors.New("the URL has no host")
	}
	port := u.Port()
	if port == "" {
		port = "443"
	}
	return net.JoinHostPort(host, port), host, nil
}

// Check checks the webhook URL rawURL with caBundle (PEM; empty for the system's roots): the
// result of an earlier check of the same host, port and caBundle when there is one, else a
// handshake, which callers asking at the same time share. A caller whose context ends first
// gets Unchecked with its context's error.
func (c *Checker) Check(ctx context.Context, rawURL string, caBundle []byte) Result {
	address, host, err := Address(rawURL)
	if err != nil {
		return Result{Unchecked: err}
	}
	k := key{address, string(caBundle)}
	c.mu.Lock()
	e, ok := c.results[k]
	if !ok {
		e = &entry{done: make(chan struct{})}
		c.results[k] = e
	}
	c.mu.Unlock()
	if !ok {
		// The handshake is the first caller's, within its context: it ends within the
		// budget, and waiting callers share what it found.
		e.res = c.handshake(ctx, address, host, caBundle)
		if ctx.Err() != nil {
			// Cut short by this caller's own deadline, not the budget: not an answer
			// to keep for the others that come later.
			c.mu.Lock()
			delete(c.results, k)
			c.mu.Unlock()
		}
		close(e.done)
		return e.res
	}
	select {
	case <-e.done:
		return e.res
	case <-ctx.Done():
		return Result{Address: address, Unchecked: ctx.Err()}
	}
}

// handshake connects to address and verifies its certificate for host against caBundle.
func (c *Checker) handshake(ctx context.Context, address, host string, caBundle []byte) Result {
	start := time.Now()
	res := Result{Address: address}
	ctx, cancel := context.WithTimeout(ctx, c.budget)
	defer cancel()

	cfg := &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}
	if len(caBundle) > 0 {
		pool, err := Pool(caBundle)
		if err != nil {
			res.Unchecked = err
			res.Took = time.Since(start)
			return res
		}
		cfg.RootCAs = pool
	}
	raw, err := c.dial(ctx, "tcp", address)
	if err != nil {
		res.Unchecked = err
		res.Took = time.Since(start)
		return res
	}
	defer func() { _ = raw.Close() }()
	conn := tls.Client(raw, cfg)
	err = conn.HandshakeContext(ctx)
	var verr *tls.CertificateVerificationError
	switch {
	case errors.As(err, &verr):
		res.Verify = err
		if len(verr.UnverifiedCertificates) > 0 {
			res.Leaf = verr.UnverifiedCertificates[0]
		}
	case err != nil:
		res.Unchecked = err
	default:
		if certs := conn.ConnectionState().PeerCertificates; len(certs) > 0 {
			res.Leaf = certs[0]
		}
	}
	res.Took = time.Since(start)
	return res
}

// Pool is the certificate pool of a PEM caBundle as the API server's TLS client makes it
// (k8s.io/client-go transport rootCertPool, certutil.NewPoolFromBytes): every CERTIFICATE
// block; an error when one does not parse or there is none.
func Pool(caBundle []byte) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	n := 0
	for rest := caBundle; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("unable to load root certificates: %w", err)
		}
		pool.AddCert(cert)
		n++
	}
	if n == 0 {
		return nil, errors.New("unable to load root certificates: no certificate in the caBundle")
	}
	return pool, nil
}
