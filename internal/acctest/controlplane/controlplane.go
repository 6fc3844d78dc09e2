// Package controlplane runs a real Kubernetes control plane, etcd and
// kube-apiserver, on the loopback interface for the acceptance tests and for
// `make demo`.
//
// Nothing is left behind: the processes run in their own process group and
// are killed by the kernel when the process that started them dies, Stop kills
// them and removes the temporary directory, SIGINT and SIGTERM stop every
// running control plane, and Start removes the directories of earlier runs
// whose owner died.
//
// The binaries come from Options, else from the environment variables
// ADMISSION_KUBE_APISERVER and ADMISSION_ETCD, else from tools/bin.sh, which
// builds them once from the Go module proxy and caches them.
//
// It is an API server only: no controller-manager, scheduler or kubelet runs.
// So the aggregated ClusterRoles (view, edit, admin) have no rules (give the
// test users roles of their own), a deleted namespace stays Terminating, no
// pod ever runs, and webhooks are only called if a test serves them itself.
package controlplane

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Options configure Start. The zero value is ready to use.
type Options struct {
	// KubeAPIServer and Etcd are the paths of the binaries. Empty means the
	// environment variable ADMISSION_KUBE_APISERVER or ADMISSION_ETCD, else
	// the binary built by tools/bin.sh of this repository.
	KubeAPIServer, Etcd string
	// ExtraAPIServerFlags are appended to the flags of kube-apiserver, so
	// they override the defaults.
	ExtraAPIServerFlags []string
	// Log, if set, receives progress messages and the output of etcd and
	// kube-apiserver, one prefixed line at a time. Their output is always
	// written to etcd.log and kube-apiserver.log in Dir.
	Log io.Writer
	// NoBuild makes Start return ErrBinariesMissing instead of building a
	// binary that tools/bin.sh has not built yet.
	NoBuild bool
	// NoSignalHandler keeps Start from calling HandleSignals, for programs
	// that handle SIGINT and SIGTERM themselves (and call Stop).
	NoSignalHandler bool
	// StartTimeout bounds the wait for kube-apiserver to become ready.
	// Zero means 60 seconds.
	StartTimeout time.Duration
}

// Users of the static token file besides the admin. They belong to no group
// (other than system:authenticated), so they may do nothing until a test
// gives them RBAC rules.
var tokenUsers = []string{"reader", "writer", "nobody"}

// ControlPlane is a running etcd and kube-apiserver.
type ControlPlane struct {
	Host         string // https://127.0.0.1:PORT
	CAPEM        []byte // CA of the serving certificate
	AdminCertPEM []byte // client certificate of CN=admin, O=system:masters
	AdminKeyPEM  []byte // its private key
	AdminToken   string // static token of user "admin" in group system:masters
	// KubeconfigPath is a kubeconfig with cluster "local" and contexts
	// "admin-cert" (the current one: client certificate), "admin-token"
	// (static token) and "reader", "writer", "nobody" (their static tokens).
	KubeconfigPath string
	Dir            string // temporary directory with certificates, data and logs

	tokens    map[string]string
	etcdURL   string
	etcd      *process
	apiserver *process
	log       io.Writer
	// How kube-apiserver was started, to start it again (StartAPIServer).
	apiserverBin   string
	apiserverExtra []string
	startTimeout   time.Duration
	port           int
	// mu guards apiserver against StopAPIServer/StartAPIServer running
	// beside Stop (from a signal handler).
	mu sync.Mutex

	stopOnce sync.Once
	stopErr  error
}

// Start starts etcd and kube-apiserver and returns when kube-apiserver is
// ready. Call Stop when done, also when a test fails.
func Start(ctx context.Context, opts Options) (*ControlPlane, error) {
	began := time.Now()
	var log io.Writer
	if opts.Log != nil {
		log = &syncWriter{w: opts.Log}
	}
	kubeAPIServer, etcd, err := opts.binaries(ctx, log)
	if err != nil {
		return nil, err
	}

	removeStaleDirs(os.TempDir())
	dir, err := os.MkdirTemp("", dirPrefix)
	if err != nil {
		return nil, err
	}
	c := &ControlPlane{Dir: dir, log: log}
	if err := writeOwner(dir); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	register(c)
	if !opts.NoSignalHandler {
		HandleSignals()
	}
	ok := false
	defer func() {
		if !ok {
			_ = c.Stop()
		}
	}()

	if err := c.writeCredentials(); err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		err = c.startEtcd(ctx, etcd)
		if err == nil {
			break
		}
		if !errors.Is(err, errPortInUse) || attempt == 3 {
			return nil, err
		}
		c.logf("etcd: port taken, retrying with other ports")
	}
	c.logf("etcd ready at %s after %s", c.etcdURL, time.Since(began).Round(time.Millisecond))
	timeout := opts.StartTimeout
	if timeout == 0 {
		timeout = 60 * time.Second
	}
	c.apiserverBin, c.apiserverExtra, c.startTimeout = kubeAPIServer, opts.ExtraAPIServerFlags, timeout
	for attempt := 1; ; attempt++ {
		err = c.startAPIServer(ctx, 0)
		if err == nil {
			break
		}
		if !errors.Is(err, errPortInUse) || attempt == 3 {
			return nil, err
		}
		c.logf("kube-apiserver: port taken, retrying with another port")
	}
	if err := c.writeKubeconfig(); err != nil {
		return nil, err
	}
	c.logf("kube-apiserver ready at %s after %s", c.Host, time.Since(began).Round(time.Millisecond))
	ok = true
	return c, nil
}

func (c *ControlPlane) logf(format string, args ...any) {
	if c.log != nil {
		_, _ = fmt.Fprintf(c.log, "controlplane: "+format+"\n", args...)
	}
}

func (c *ControlPlane) path(name string) string { return filepath.Join(c.Dir, name) }

// RESTConfig returns a new client configuration of the admin, who
// authenticates with the client certificate.
func (c *ControlPlane) RESTConfig() *rest.Config {
	return &rest.Config{
		Host: c.Host,
		TLSClientConfig: rest.TLSClientConfig{
			CAData:   append([]byte(nil), c.CAPEM...),
			CertData: append([]byte(nil), c.AdminCertPEM...),
			KeyData:  append([]byte(nil), c.AdminKeyPEM...),
		},
		QPS:   100,
		Burst: 200,
	}
}

// TokenRESTConfig returns a new client configuration that authenticates with
// the bearer token, such as AdminToken or UserToken("reader").
func (c *ControlPlane) TokenRESTConfig(token string) *rest.Config {
	return &rest.Config{
		Host:            c.Host,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{CAData: append([]byte(nil), c.CAPEM...)},
		QPS:             100,
		Burst:           200,
	}
}

// UserToken returns the static token of a user of the token file: "admin"
// (same as AdminToken), or one of "reader", "writer" and "nobody", which have
// no group and no permission until a test grants some with RBAC (the names
// are only names). It returns "" for any other name.
func (c *ControlPlane) UserToken(name string) string {
	return c.tokens[name]
}

// Stop stops kube-apiserver, then etcd (kube-apiserver hangs on shutdown
// when etcd goes first), and removes Dir. It is safe to call more than once,
// and concurrently.
func (c *ControlPlane) Stop() error {
	c.stopOnce.Do(func() {
		c.StopAPIServer()
		if c.etcd != nil {
			c.etcd.stop(5 * time.Second)
		}
		c.stopErr = os.RemoveAll(c.Dir)
		unregister(c)
	})
	return c.stopErr
}

// StopAPIServer stops kube-apiserver and leaves etcd, with the stored
// objects, running: an outage of the API server. StartAPIServer ends it.
func (c *ControlPlane) StopAPIServer() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.apiserver != nil {
		c.apiserver.stop(5 * time.Second)
		c.apiserver = nil
	}
}

// StartAPIServer starts kube-apiserver again after StopAPIServer, at the
// same address and on the same etcd, and returns when it is ready.
func (c *ControlPlane) StartAPIServer(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.apiserver != nil {
		return errors.New("kube-apiserver is running")
	}
	return c.startAPIServer(ctx, c.port)
}

func randomToken() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// writeCredentials writes the certificates, keys and the token file to Dir.
func (c *ControlPlane) writeCredentials() error {
	servingCA, err := newCA("admission-controlplane-serving-ca")
	if err != nil {
		return err
	}
	serving, err := servingCA.issue(pkix.Name{CommonName: "kube-apiserver"}, x509.ExtKeyUsageServerAuth,
		[]string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
		[]net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback})
	if err != nil {
		return err
	}
	clientCA, err := newCA("admission-controlplane-client-ca")
	if err != nil {
		return err
	}
	admin, err := clientCA.issue(pkix.Name{CommonName: "admin", Organization: []string{"system:masters"}},
		x509.ExtKeyUsageClientAuth, nil, nil)
	if err != nil {
		return err
	}
	saKey, err := newKey()
	if err != nil {
		return err
	}

	c.CAPEM = servingCA.certPEM()
	c.AdminCertPEM = admin.certPEM()
	if c.AdminKeyPEM, err = admin.keyPEM(); err != nil {
		return err
	}
	servingKey, err := serving.keyPEM()
	if err != nil {
		return err
	}
	saKeyPEM, err := privateKeyPEM(saKey)
	if err != nil {
		return err
	}
	saPubDER, err := x509.MarshalPKIXPublicKey(saKey.Public())
	if err != nil {
		return err
	}

	c.tokens = map[string]string{}
	if c.AdminToken, err = randomToken(); err != nil {
		return err
	}
	c.tokens["admin"] = c.AdminToken
	// token,user,uid,"group1,group2"
	lines := []string{fmt.Sprintf("%s,admin,admin,\"system:masters\"", c.AdminToken)}
	for _, u := range tokenUsers {
		t, err := randomToken()
		if err != nil {
			return err
		}
		c.tokens[u] = t
		lines = append(lines, fmt.Sprintf("%s,%s,%s", t, u, u))
	}

	files := map[string][]byte{
		"ca.crt":        c.CAPEM,
		"serving.crt":   serving.certPEM(),
		"serving.key":   servingKey,
		"client-ca.crt": clientCA.certPEM(),
		"admin.crt":     c.AdminCertPEM,
		"admin.key":     c.AdminKeyPEM,
		"sa.key":        saKeyPEM,
		"sa.pub":        pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: saPubDER}),
		"tokens.csv":    []byte(strings.Join(lines, "\n") + "\n"),
	}
	for name, data := range files {
		if err := os.WriteFile(c.path(name), data, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// errPortInUse marks a start that failed because a chosen port was taken in
// the meantime; Start then tries again with other ports.
var errPortInUse = errors.New("address already in use")

// freePorts returns n distinct free TCP ports of 127.0.0.1.
func freePorts(n int) ([]int, error) {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer func() { _ = l.Close() }()
		addr, ok := l.Addr().(*net.TCPAddr)
		if !ok {
			return nil, fmt.Errorf("a tcp listener with the address %v", l.Addr())
		}
		ports = append(ports, addr.Port)
	}
	return ports, nil
}

// exitError describes a process that exited during start, with its log tail.
func exitError(p *process) error {
	tail := p.tail(40)
	err := fmt.Errorf("%s exited during start (%v); last lines of %s:\n%s", p.name, p.waitErr, p.logPath, indent(tail))
	if strings.Contains(tail, "address already in use") {
		return fmt.Errorf("%w: %w", errPortInUse, err)
	}
	return err
}

func (c *ControlPlane) startEtcd(ctx context.Context, bin string) error {
	ports, err := freePorts(2)
	if err != nil {
		return err
	}
	client := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	peer := "http://127.0.0.1:" + strconv.Itoa(ports[1])
	args := []string{
		"--name=admission",
		"--data-dir=" + c.path("etcd-data"),
		"--listen-client-urls=" + client,
		"--advertise-client-urls=" + client,
		"--listen-peer-urls=" + peer,
		"--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=admission=" + peer,
		"--initial-cluster-state=new",
		"--unsafe-no-fsync=true",
		"--quota-backend-bytes=" + strconv.Itoa(256<<20),
		"--snapshot-count=10000",
		"--log-level=warn",
	}
	p, err := startProcess("etcd", bin, args, c.Dir, c.log)
	if err != nil {
		return err
	}
	c.etcd = p
	c.etcdURL = client

	httpClient := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if p.exited() {
			return exitError(p)
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, client+"/health", nil)
		if resp, err := httpClient.Do(req); err == nil {
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK && strings.Contains(string(body), `"true"`) {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("etcd not healthy at %s after 30s; last lines of %s:\n%s", client, p.logPath, indent(p.tail(40)))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// startAPIServer starts kube-apiserver on port, or on a free port if it is
// 0, and waits until it is ready.
func (c *ControlPlane) startAPIServer(ctx context.Context, port int) error {
	if c.apiserver != nil {
		// A failed earlier attempt.
		c.apiserver.stop(time.Second)
		c.apiserver = nil
	}
	if port == 0 {
		ports, err := freePorts(1)
		if err != nil {
			return err
		}
		port = ports[0]
	}
	args := []string{
		"--etcd-servers=" + c.etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		// The endpoint reconciler refuses a loopback address; nothing here
		// uses the endpoints of the "kubernetes" service anyway.
		"--endpoint-reconciler-type=none",
		"--secure-port=" + strconv.Itoa(port),
		"--cert-dir=" + c.path("cert-dir"),
		"--tls-cert-file=" + c.path("serving.crt"),
		"--tls-private-key-file=" + c.path("serving.key"),
		"--client-ca-file=" + c.path("client-ca.crt"),
		"--token-auth-file=" + c.path("tokens.csv"),
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + c.path("sa.pub"),
		"--service-account-signing-key-file=" + c.path("sa.key"),
		"--service-cluster-ip-range=10.0.0.0/24",
		"--allow-privileged=true",
		// No controller-manager runs to create service accounts.
		"--disable-admission-plugins=ServiceAccount",
		// Fewer start-up hooks and goroutines; not needed by one client.
		"--enable-priority-and-fairness=false",
		"--profiling=false",
	}
	args = append(args, c.apiserverExtra...)
	p, err := startProcess("kube-apiserver", c.apiserverBin, args, c.Dir, c.log)
	if err != nil {
		return err
	}
	c.apiserver = p
	c.port = port
	c.Host = "https://127.0.0.1:" + strconv.Itoa(port)

	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(c.CAPEM)
	cert, err := tls.X509KeyPair(c.AdminCertPEM, c.AdminKeyPEM)
	if err != nil {
		return err
	}
	httpClient := &http.Client{
		Timeout: 5 * time.Second,
		Transport: &http.Transport{
			TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}},
		},
	}
	defer httpClient.CloseIdleConnections()
	timeout := c.startTimeout
	deadline := time.Now().Add(timeout)
	var lastStatus string
	for {
		if p.exited() {
			return exitError(p)
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.Host+"/readyz", nil)
		if resp, err := httpClient.Do(req); err == nil {
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			lastStatus = fmt.Sprintf("%s: %s", resp.Status, failedChecks(string(body)))
		} else {
			lastStatus = err.Error()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("kube-apiserver not ready at %s after %s (/readyz: %s); last lines of %s:\n%s",
				c.Host, timeout, lastStatus, p.logPath, indent(p.tail(40)))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// failedChecks picks the failed checks out of a /readyz answer.
func failedChecks(body string) string {
	var failed []string
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "[-]") {
			failed = append(failed, strings.Fields(strings.TrimPrefix(line, "[-]"))[0])
		}
	}
	if len(failed) == 0 {
		return strings.TrimSpace(body)
	}
	return "failed " + strings.Join(failed, ", ")
}

func (c *ControlPlane) writeKubeconfig() error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["local"] = &clientcmdapi.Cluster{Server: c.Host, CertificateAuthorityData: c.CAPEM}
	cfg.AuthInfos["admin-cert"] = &clientcmdapi.AuthInfo{ClientCertificateData: c.AdminCertPEM, ClientKeyData: c.AdminKeyPEM}
	cfg.Contexts["admin-cert"] = &clientcmdapi.Context{Cluster: "local", AuthInfo: "admin-cert"}
	cfg.AuthInfos["admin-token"] = &clientcmdapi.AuthInfo{Token: c.AdminToken}
	cfg.Contexts["admin-token"] = &clientcmdapi.Context{Cluster: "local", AuthInfo: "admin-token"}
	users := append([]string(nil), tokenUsers...)
	sort.Strings(users)
	for _, u := range users {
		cfg.AuthInfos[u] = &clientcmdapi.AuthInfo{Token: c.tokens[u]}
		cfg.Contexts[u] = &clientcmdapi.Context{Cluster: "local", AuthInfo: u}
	}
	cfg.CurrentContext = "admin-cert"
	c.KubeconfigPath = c.path("kubeconfig")
	return clientcmd.WriteToFile(*cfg, c.KubeconfigPath)
}
