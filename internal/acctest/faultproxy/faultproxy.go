// Package faultproxy is a fault-injecting reverse proxy for acceptance tests:
// it sits on loopback between the provider and the local kube-apiserver and,
// on a test's command, refuses, resets, drops or stalls connections, answers
// 429/5xx itself, delays requests, or cuts a response in the middle (after the
// server has acted on the request), while it counts every request it sees.
//
// It terminates TLS with a serving certificate of its own throwaway CA (CAPEM,
// which the test gives the provider as cluster_ca_certificate) and forwards
// each request to the real server over a new TLS connection. A request's
// Authorization header goes upstream as it is, so bearer tokens keep their
// identity; a request without one is sent with Options' client certificate,
// when set.
//
// It listens on 127.0.0.1 only, forwards only to a loopback server, and
// closes itself after Options.MaxLifetime.
package faultproxy

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Options configure New.
type Options struct {
	// Upstream is the URL of the API server, such as https://127.0.0.1:6443.
	// Its host must be a loopback address or "localhost".
	Upstream string
	// UpstreamCAPEM verifies the upstream server's certificate.
	UpstreamCAPEM []byte
	// ClientCertPEM and ClientKeyPEM, if set, authenticate upstream the
	// requests that carry no Authorization header.
	ClientCertPEM, ClientKeyPEM []byte
	// HTTP1Only offers only HTTP/1.1 to clients (the default offers HTTP/2
	// first, as kube-apiserver does).
	HTTP1Only bool
	// MaxLifetime closes the proxy by itself after this long, in case a
	// test forgets to. Zero means 15 minutes.
	MaxLifetime time.Duration
	// Logf, if set, is told of every fault the proxy injects.
	Logf func(format string, args ...any)
}

// ConnMode is what the proxy does with connections.
type ConnMode int

const (
	// Accept serves connections: the normal mode.
	Accept ConnMode = iota
	// Refuse closes the listening socket, so that connecting fails with
	// "connection refused", as when the server is down. The port is taken
	// again when the mode changes.
	Refuse
	// Reset accepts each connection and resets it at once (TCP RST):
	// "connection reset by peer" during the TLS handshake.
	Reset
	// Drop accepts each connection and closes it at once: EOF during the
	// TLS handshake.
	Drop
	// Blackhole accepts each connection and never answers, as a server
	// that hangs: the client's TLS handshake times out.
	Blackhole
)

func (m ConnMode) String() string {
	switch m {
	case Accept:
		return "accept"
	case Refuse:
		return "refuse"
	case Reset:
		return "reset"
	case Drop:
		return "drop"
	case Blackhole:
		return "blackhole"
	}
	return "ConnMode(" + strconv.Itoa(int(m)) + ")"
}

// Action is what a Fault does to a request it matches.
type Action int

const (
	// Respond answers with Fault.Status (and Retry-After, if set) and a
	// Kubernetes Status body, without forwarding the request.
	Respond Action = iota
	// Delay waits Fault.Delay, then forwards the request.
	Delay
	// CutConnection forwards the request (unless NoForward), so the server
	// acts on it, sends the status line, headers and part of the body, then
	// closes the TCP connection: the server's answer is lost.
	CutConnection
	// ResetStream is CutConnection that aborts only the request's stream
	// (an HTTP/2 RST_STREAM; with HTTP/1.1 the connection is closed).
	ResetStream
)

func (a Action) String() string {
	switch a {
	case Respond:
		return "respond"
	case Delay:
		return "delay"
	case CutConnection:
		return "cut-connection"
	case ResetStream:
		return "reset-stream"
	}
	return "Action(" + strconv.Itoa(int(a)) + ")"
}

// Match selects requests; nil matches every request.
type Match func(*http.Request) bool

// Method matches requests with the HTTP method.
func Method(method string) Match {
	return func(r *http.Request) bool { return r.Method == method }
}

// PathSuffix matches requests whose path ends with suffix.
func PathSuffix(suffix string) Match {
	return func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, suffix) }
}

// PathContains matches requests whose path contains s.
func PathContains(s string) Match {
	return func(r *http.Request) bool { return strings.Contains(r.URL.Path, s) }
}

// DryRun matches dry-run requests (?dryRun=All).
func DryRun(r *http.Request) bool { return r.URL.Query().Has("dryRun") }

// NotDryRun matches requests that are not dry runs.
func NotDryRun(r *http.Request) bool { return !DryRun(r) }

// All matches requests that every m matches.
func All(ms ...Match) Match {
	return func(r *http.Request) bool {
		for _, m := range ms {
			if m != nil && !m(r) {
				return false
			}
		}
		return true
	}
}

// Fault is an injected failure of the requests it matches.
type Fault struct {
	Match  Match
	Action Action

	// Status is the code Respond answers with (default 503), RetryAfter
	// the value of its Retry-After header ("" sends none).
	Status     int
	RetryAfter string
	// Delay is how long Delay waits before forwarding.
	Delay time.Duration
	// For CutConnection and ResetStream: NoForward cuts without sending
	// the request upstream; CutBeforeResponse sends nothing of the
	// answer; else BodyBytes bytes of the body are sent (0 means half).
	NoForward         bool
	CutBeforeResponse bool
	BodyBytes         int

	// Skip lets the first Skip matching requests through.
	Skip int
	// Times is how many requests the fault hits (0: no limit); For how
	// long it lasts from Inject (0: until removed).
	Times int
	For   time.Duration
	// Outage, after the fault has acted, refuses every connection for this
	// long, as when the server dies while answering.
	Outage time.Duration
}

// Injected is a fault in force.
type Injected struct {
	p       *Proxy
	f       Fault
	start   time.Time
	seen    int
	hits    int
	removed bool
	first   chan struct{}
}

// Hits is how many requests the fault has hit.
func (i *Injected) Hits() int {
	i.p.mu.Lock()
	defer i.p.mu.Unlock()
	return i.hits
}

// Hit is closed when the fault first hits a request.
func (i *Injected) Hit() <-chan struct{} { return i.first }

// Remove ends the fault.
func (i *Injected) Remove() {
	i.p.mu.Lock()
	defer i.p.mu.Unlock()
	i.removed = true
}

func (i *Injected) activeLocked(now time.Time) bool {
	return !i.removed && (i.f.Times == 0 || i.hits < i.f.Times) && (i.f.For == 0 || now.Before(i.start.Add(i.f.For)))
}

// Record is one request the proxy saw.
type Record struct {
	// Time is when the request arrived, Done when the proxy was done with
	// it (answered, cut, or the client gave up).
	Time, Done time.Time
	Method     string
	Path       string
	Query      string
	// Fault is the action taken ("" when the request passed through).
	Fault string
	// Forwarded tells whether the request reached the upstream server.
	Forwarded bool
	// Status is the status code the client was sent, or was being sent
	// when the answer was cut; 0 when there was none.
	Status int
}

// ConnStats count connections by what the proxy did with them.
type ConnStats struct {
	Accepted, Reset, Dropped, Blackholed int
	// RefusePeriods counts the times the listening socket was closed.
	RefusePeriods int
}

// Proxy is a running fault proxy.
type Proxy struct {
	// URL is https://127.0.0.1:PORT.
	URL string
	// CAPEM is the CA that signed the proxy's serving certificate.
	CAPEM []byte
	// Addr is 127.0.0.1:PORT.
	Addr string

	opts     Options
	upstream *url.URL
	plain    *http.Transport // requests with their own Authorization
	withCert *http.Transport // requests without; nil if no client cert
	tlsCfg   *tls.Config
	srv      *http.Server
	incoming *chanListener
	wg       sync.WaitGroup

	mu        sync.Mutex
	ln        net.Listener // nil while refusing
	mode      ConnMode
	modeGen   int
	modeTimer *time.Timer
	lifetime  *time.Timer
	faults    []*Injected
	records   []Record
	stats     ConnStats
	closed    bool
	err       error

	connMu sync.Mutex
	live   map[*trackedConn]struct{}
}

// New starts a proxy in front of opts.Upstream.
func New(opts Options) (*Proxy, error) {
	up, err := url.Parse(opts.Upstream)
	if err != nil {
		return nil, fmt.Errorf("faultproxy: upstream %q: %w", opts.Upstream, err)
	}
	if up.Scheme != "https" {
		return nil, fmt.Errorf("faultproxy: upstream %q: only https is supported", opts.Upstream)
	}
	if h := up.Hostname(); h != "localhost" {
		if ip := net.ParseIP(h); ip == nil || !ip.IsLoopback() {
			return nil, fmt.Errorf("faultproxy: upstream %q is not on loopback", opts.Upstream)
		}
	}
	pool := x509.NewCertPool()
	if len(opts.UpstreamCAPEM) > 0 && !pool.AppendCertsFromPEM(opts.UpstreamCAPEM) {
		return nil, errors.New("faultproxy: UpstreamCAPEM holds no certificate")
	}
	newTransport := func(certs []tls.Certificate) *http.Transport {
		return &http.Transport{
			TLSClientConfig:     &tls.Config{RootCAs: pool, Certificates: certs, MinVersion: tls.VersionTLS12},
			ForceAttemptHTTP2:   true,
			TLSHandshakeTimeout: 10 * time.Second,
			MaxIdleConnsPerHost: 10,
		}
	}
	p := &Proxy{opts: opts, upstream: up, plain: newTransport(nil), live: map[*trackedConn]struct{}{}}
	if len(opts.ClientCertPEM) > 0 {
		cert, err := tls.X509KeyPair(opts.ClientCertPEM, opts.ClientKeyPEM)
		if err != nil {
			return nil, fmt.Errorf("faultproxy: client certificate: %w", err)
		}
		p.withCert = newTransport([]tls.Certificate{cert})
	}

	caPEM, cert, err := servingCert()
	if err != nil {
		return nil, fmt.Errorf("faultproxy: serving certificate: %w", err)
	}
	p.CAPEM = caPEM
	p.tlsCfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"h2", "http/1.1"}}
	if opts.HTTP1Only {
		p.tlsCfg.NextProtos = []string{"http/1.1"}
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p.ln = ln
	p.Addr = ln.Addr().String()
	p.URL = "https://" + p.Addr
	p.incoming = &chanListener{ch: make(chan net.Conn), done: make(chan struct{}), addr: ln.Addr()}
	p.srv = &http.Server{
		Handler:           p,
		ReadHeaderTimeout: 30 * time.Second,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, c)
		},
		// Handshakes cut by the faults are expected; do not log them.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	if opts.HTTP1Only {
		p.srv.TLSNextProto = map[string]func(*http.Server, *tls.Conn, http.Handler){}
	}

	life := opts.MaxLifetime
	if life == 0 {
		life = 15 * time.Minute
	}
	p.lifetime = time.AfterFunc(life, func() {
		p.logf("faultproxy: closing after its maximum lifetime of %s", life)
		_ = p.Close()
	})

	p.wg.Add(2)
	go func() {
		defer p.wg.Done()
		_ = p.srv.Serve(p.incoming)
	}()
	go p.acceptLoop(ln)
	return p, nil
}

// Start is New for a test: it fails the test if the proxy cannot start, logs
// injected faults to the test, and closes the proxy when the test ends.
func Start(t testing.TB, opts Options) *Proxy {
	t.Helper()
	var mu sync.Mutex
	done := false
	if opts.Logf == nil {
		opts.Logf = func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			if !done {
				t.Logf(format, args...)
			}
		}
	}
	p, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		mu.Lock()
		done = true
		mu.Unlock()
		if err := p.Close(); err != nil {
			t.Errorf("faultproxy: %v", err)
		}
	})
	return p
}

func (p *Proxy) logf(format string, args ...any) {
	if p.opts.Logf != nil {
		p.opts.Logf(format, args...)
	}
}

// Close stops the proxy and closes every connection. It returns the first
// error the proxy met in the background (taking its port again after
// Refuse), if any. It is safe to call more than once.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		err := p.err
		p.mu.Unlock()
		return err
	}
	p.closed = true
	if p.ln != nil {
		_ = p.ln.Close()
		p.ln = nil
	}
	if p.modeTimer != nil {
		p.modeTimer.Stop()
	}
	p.lifetime.Stop()
	p.mu.Unlock()

	_ = p.incoming.Close()
	_ = p.srv.Close()
	p.closeConns(false, false)
	p.wg.Wait()
	p.plain.CloseIdleConnections()
	if p.withCert != nil {
		p.withCert.CloseIdleConnections()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Err is the first error the proxy met in the background, if any.
func (p *Proxy) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Inject puts a fault in force. Faults are tried in the order they were
// injected; the first active one that matches a request acts on it.
func (p *Proxy) Inject(f Fault) *Injected {
	if f.Action == Respond && f.Status == 0 {
		f.Status = http.StatusServiceUnavailable
	}
	i := &Injected{p: p, f: f, start: time.Now(), first: make(chan struct{})}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.faults = append(p.faults, i)
	return i
}

// Clear removes every fault and accepts connections again.
func (p *Proxy) Clear() {
	p.mu.Lock()
	for _, i := range p.faults {
		i.removed = true
	}
	p.faults = nil
	p.mu.Unlock()
	p.SetConnections(Accept, 0)
}

// SetConnections changes what the proxy does with connections. Any mode but
// Accept also closes the connections already open (resets them, for Reset),
// so that a client cannot go on over a kept-alive one. With d > 0 the proxy
// goes back to Accept after d.
func (p *Proxy) SetConnections(mode ConnMode, d time.Duration) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	if p.modeTimer != nil {
		p.modeTimer.Stop()
		p.modeTimer = nil
	}
	p.setModeLocked(mode)
	if d > 0 && mode != Accept {
		gen := p.modeGen
		p.modeTimer = time.AfterFunc(d, func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.modeGen == gen && !p.closed {
				p.setModeLocked(Accept)
				p.logf("faultproxy: %s ended after %s; accepting connections", mode, d)
			}
		})
	}
	p.mu.Unlock()
}

// Mode is the current connection mode.
func (p *Proxy) Mode() ConnMode {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mode
}

func (p *Proxy) setModeLocked(mode ConnMode) {
	p.modeGen++
	old := p.mode
	p.mode = mode
	if mode != old {
		p.logf("faultproxy: connections: %s -> %s", old, mode)
	}
	// Stop listening before closing the open connections, so that a client
	// that sees its connection go and dials again is refused.
	if mode == Refuse && p.ln != nil {
		_ = p.ln.Close()
		p.ln = nil
		p.stats.RefusePeriods++
	}
	// Connections held by Blackhole are let go on any change.
	p.closeConns(mode == Reset, mode == Accept)
	if mode != Refuse && p.ln == nil {
		ln, err := listenAgain(p.Addr)
		if err != nil {
			if p.err == nil {
				p.err = fmt.Errorf("faultproxy: cannot listen on %s again: %w", p.Addr, err)
			}
			p.logf("%v", p.err)
			return
		}
		p.ln = ln
		p.wg.Add(1)
		go p.acceptLoop(ln)
	}
}

// listenAgain takes the proxy's port again after a Refuse period.
func listenAgain(addr string) (net.Listener, error) {
	deadline := time.Now().Add(3 * time.Second)
	for {
		ln, err := net.Listen("tcp", addr)
		if err == nil || time.Now().After(deadline) {
			return ln, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// closeConns closes the open connections: all of them, or only those held
// by Blackhole.
func (p *Proxy) closeConns(reset, heldOnly bool) {
	p.connMu.Lock()
	var conns []*trackedConn
	for c := range p.live {
		if !heldOnly || c.held {
			conns = append(conns, c)
		}
	}
	p.connMu.Unlock()
	for _, c := range conns {
		if reset {
			c.reset()
		} else {
			_ = c.Close()
		}
	}
}

func (p *Proxy) acceptLoop(ln net.Listener) {
	defer p.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				p.mu.Lock()
				if p.err == nil && !p.closed {
					p.err = fmt.Errorf("faultproxy: accept: %w", err)
				}
				p.mu.Unlock()
			}
			return
		}
		p.admit(c)
	}
}

// admit does with a new connection what the mode says.
func (p *Proxy) admit(c net.Conn) {
	p.mu.Lock()
	mode, closed := p.mode, p.closed
	switch {
	case closed:
	case mode == Accept:
		p.stats.Accepted++
	case mode == Reset:
		p.stats.Reset++
	case mode == Drop:
		p.stats.Dropped++
	case mode == Blackhole:
		p.stats.Blackholed++
	}
	p.mu.Unlock()
	switch {
	case closed || mode == Refuse || mode == Drop:
		_ = c.Close()
	case mode == Reset:
		(&trackedConn{Conn: c}).reset()
	case mode == Blackhole:
		p.track(c, true)
	default:
		tc := p.track(c, false)
		select {
		case p.incoming.ch <- tls.Server(tc, p.tlsCfg):
		case <-p.incoming.done:
			_ = tc.Close()
		}
	}
}

func (p *Proxy) track(c net.Conn, held bool) *trackedConn {
	tc := &trackedConn{Conn: c, p: p, held: held}
	p.connMu.Lock()
	p.live[tc] = struct{}{}
	p.connMu.Unlock()
	return tc
}

// trackedConn is an accepted connection the proxy may have to close.
type trackedConn struct {
	net.Conn
	p    *Proxy
	held bool // Blackhole: accepted, never answered
	once sync.Once
}

func (c *trackedConn) Close() error {
	var err error
	c.once.Do(func() {
		if c.p != nil {
			c.p.connMu.Lock()
			delete(c.p.live, c)
			c.p.connMu.Unlock()
		}
		err = c.Conn.Close()
	})
	return err
}

// reset closes the connection with a TCP RST instead of a FIN.
func (c *trackedConn) reset() {
	if tcp, ok := c.Conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = c.Close()
}

// chanListener hands the HTTP server the connections the proxy admits.
type chanListener struct {
	ch   chan net.Conn
	done chan struct{}
	once sync.Once
	addr net.Addr
}

func (l *chanListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *chanListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *chanListener) Addr() net.Addr { return l.addr }

type connKey struct{}

// Records are the requests seen so far, oldest first.
func (p *Proxy) Records() []Record {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Record(nil), p.records...)
}

// Count is how many requests with the method ("" for any) and a path ending
// with pathSuffix the proxy has seen.
func (p *Proxy) Count(method, pathSuffix string) int {
	return p.CountWhere(func(r Record) bool {
		return (method == "" || r.Method == method) && strings.HasSuffix(r.Path, pathSuffix)
	})
}

// CountWhere is how many of the requests seen so far keep returns true for.
func (p *Proxy) CountWhere(keep func(Record) bool) int {
	n := 0
	for _, r := range p.Records() {
		if keep(r) {
			n++
		}
	}
	return n
}

// ResetRecords forgets the requests seen so far.
func (p *Proxy) ResetRecords() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.records = nil
}

// Connections counts the connections so far.
func (p *Proxy) Connections() ConnStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats
}

func (p *Proxy) record(r Record) {
	r.Done = time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.records = append(p.records, r)
}

// pick returns the fault that acts on r, if any.
func (p *Proxy) pick(r *http.Request) *Injected {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	for _, i := range p.faults {
		if !i.activeLocked(now) || (i.f.Match != nil && !i.f.Match(r)) {
			continue
		}
		i.seen++
		if i.seen <= i.f.Skip {
			continue
		}
		i.hits++
		if i.hits == 1 {
			close(i.first)
		}
		return i
	}
	return nil
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := Record{Time: time.Now(), Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery}
	inj := p.pick(r)
	if inj == nil {
		rec.Status, rec.Forwarded = p.forward(w, r)
		p.record(rec)
		return
	}
	f := inj.f
	rec.Fault = f.Action.String()
	what := r.Method + " " + r.URL.RequestURI()
	switch f.Action {
	case Respond:
		p.logf("faultproxy: %s: answering %d (Retry-After %q)", what, f.Status, f.RetryAfter)
		rec.Status = f.Status
		respond(w, f.Status, f.RetryAfter)
	case Delay:
		p.logf("faultproxy: %s: delaying %s", what, f.Delay)
		select {
		case <-time.After(f.Delay):
			rec.Status, rec.Forwarded = p.forward(w, r)
		case <-r.Context().Done():
			rec.Fault += " (client gave up)"
		}
	case CutConnection, ResetStream:
		p.cut(w, r, f, &rec)
		if f.Outage > 0 {
			p.outage(what, f.Outage)
		}
		if f.Action == CutConnection {
			if c, ok := r.Context().Value(connKey{}).(*tls.Conn); ok {
				_ = c.NetConn().Close()
			}
			return
		}
		panic(http.ErrAbortHandler)
	}
	p.record(rec)
	if f.Outage > 0 {
		p.outage(what, f.Outage)
	}
}

func (p *Proxy) outage(what string, d time.Duration) {
	p.logf("faultproxy: %s: refusing every connection for %s", what, d)
	p.SetConnections(Refuse, d)
}

// cut forwards the request, unless told not to, and sends part of the answer.
// It records the request.
func (p *Proxy) cut(w http.ResponseWriter, r *http.Request, f Fault, rec *Record) {
	defer func() { p.record(*rec) }()
	what := r.Method + " " + r.URL.RequestURI()
	if f.NoForward {
		p.logf("faultproxy: %s: %s before forwarding", what, f.Action)
		return
	}
	resp, err := p.roundTrip(r)
	if err != nil {
		p.logf("faultproxy: %s: upstream: %v", what, err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	rec.Forwarded = true
	if f.CutBeforeResponse {
		p.logf("faultproxy: %s: upstream answered %d; %s before answering", what, resp.StatusCode, f.Action)
		return
	}
	n := f.BodyBytes
	if n <= 0 || n > len(body) {
		n = len(body) / 2
	}
	p.logf("faultproxy: %s: upstream answered %d with %d bytes; %s after %d", what, resp.StatusCode, len(body), f.Action, n)
	rec.Status = resp.StatusCode
	copyHeader(w.Header(), resp.Header)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(body[:n])
	_ = http.NewResponseController(w).Flush()
	// HTTP/2 writes frames from another goroutine: let them go out first.
	time.Sleep(50 * time.Millisecond)
}

// forward sends the request upstream and copies the answer back.
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request) (status int, forwarded bool) {
	resp, err := p.roundTrip(r)
	if err != nil {
		if r.Context().Err() != nil {
			return 0, false
		}
		respondMessage(w, http.StatusBadGateway, "", "faultproxy: upstream: "+err.Error())
		return http.StatusBadGateway, false
	}
	defer func() { _ = resp.Body.Close() }()
	copyHeader(w.Header(), resp.Header)
	w.WriteHeader(resp.StatusCode)
	rc := http.NewResponseController(w)
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				break
			}
			_ = rc.Flush()
		}
		if err != nil {
			break
		}
	}
	return resp.StatusCode, true
}

func (p *Proxy) roundTrip(r *http.Request) (*http.Response, error) {
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.URL.Scheme = p.upstream.Scheme
	out.URL.Host = p.upstream.Host
	out.Host = p.upstream.Host
	if r.ContentLength == 0 {
		out.Body = nil
	}
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	rt := p.plain
	if out.Header.Get("Authorization") == "" && p.withCert != nil {
		rt = p.withCert
	}
	return rt.RoundTrip(out)
}

var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

func copyHeader(dst, src http.Header) {
	for k, vs := range src {
		for _, v := range vs {
			dst.Add(k, v)
		}
	}
	for _, h := range hopHeaders {
		dst.Del(h)
	}
}

// respond answers as kube-apiserver does: a metav1.Status body.
func respond(w http.ResponseWriter, code int, retryAfter string) {
	respondMessage(w, code, retryAfter, fmt.Sprintf("faultproxy: injected %d %s", code, http.StatusText(code)))
}

func respondMessage(w http.ResponseWriter, code int, retryAfter, message string) {
	reason := map[int]string{
		http.StatusTooManyRequests:     "TooManyRequests",
		http.StatusInternalServerError: "InternalError",
		http.StatusServiceUnavailable:  "ServiceUnavailable",
		http.StatusGatewayTimeout:      "Timeout",
		http.StatusBadGateway:          "InternalError",
	}[code]
	if reason == "" {
		reason = "Unknown"
	}
	details := ""
	if s, err := strconv.Atoi(retryAfter); err == nil {
		details = fmt.Sprintf(`,"details":{"retryAfterSeconds":%d}`, s)
	}
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":%s,"reason":%q%s,"code":%d}`+"\n",
		strconv.Quote(message), reason, details, code)
}
