package kube

import (
	"errors"
	"time"

	"k8s.io/apimachinery/pkg/types"
	admissionregistrationv1client "k8s.io/client-go/kubernetes/typed/admissionregistration/v1"
	"k8s.io/client-go/rest"
)

// DefaultFieldManager is the server-side apply field manager used unless the
// provider configuration names another.
const DefaultFieldManager = "terraform-provider-admission"

// Options are the provider settings that shape how objects are written.
type Options struct {
	FieldManager   string
	ForceConflicts bool
	// DryRunOnPlan sends the planned object to the server as a dry-run apply
	// during plan.
	DryRunOnPlan bool
	UserAgent    string
	// KubernetesVersion is the provider's kubernetes_version setting, the version
	// of the API server to validate for ("1.33"); empty: ask the server.
	KubernetesVersion string
	// Backoff is the retry schedule for transient failures; zero means
	// DefaultBackoff.
	Backoff Backoff
	// ImpactMaxObjects and ImpactTimeout bound the impact of a planned policy on the objects
	// the cluster runs (internal/impact): the objects examined per resource (0: its default;
	// below 0: no impact) and the time it may take (0: its default).
	ImpactMaxObjects int
	ImpactTimeout    time.Duration
	// CABundleExpiryWarning is how long before a certificate's notAfter the plan warns that
	// it expires (a webhook's ca_bundle, its serving certificate, a cert-manager Certificate);
	// 0: DefaultCABundleExpiryWarning.
	CABundleExpiryWarning time.Duration
	// NoWebhookTLSCheck turns off the TLS handshake that the plan makes with the backends of
	// URL webhooks (the provider's webhook_tls_check_on_plan = false).
	NoWebhookTLSCheck bool
	// NoWebhookProof turns off the proof at apply that the API server can call a webhook
	// before it is written (the provider's prove_webhooks = false; internal/webhook).
	NoWebhookProof bool
	// WaitForEnforcement: the apply of an admission policy or binding returns once the API
	// server enforces what it wrote (internal/policy).
	WaitForEnforcement bool
}

// DefaultCABundleExpiryWarning is the default of Options.CABundleExpiryWarning: 30 days.
const DefaultCABundleExpiryWarning = 30 * 24 * time.Hour

// ExpiryWarning is CABundleExpiryWarning with its default filled in.
func (o Options) ExpiryWarning() time.Duration {
	if o.CABundleExpiryWarning <= 0 {
		return DefaultCABundleExpiryWarning
	}
	return o.CABundleExpiryWarning
}

// Client is the one connection shared by every resource and data source of a
// configured provider.
type Client struct {
	Options
	// notReady explains why there is no connection yet (the provider
	// configuration depends on values known only at apply); nil when ready.
	notReady error
	api      admissionregistrationv1client.AdmissionregistrationV1Interface
	// version is the server's answer to /version, asked for once.
	version serverVersion
	// onRetry, when set, is told of every retried failure (tests).
	onRetry func(attempt int, err error)
	// rest is the connection's configuration, for the clients of other APIs (clients.go).
	rest   *rest.Config
	others others
}

// NewClient makes a client from a REST config. It makes no request.
func NewClient(cfg *rest.Config, opts Options) (*Client, error) {
	cfg = rest.CopyConfig(cfg)
	if opts.UserAgent != "" {
		cfg.UserAgent = opts.UserAgent
	}
	if opts.FieldManager == "" {
		opts.FieldManager = DefaultFieldManager
	}
	if cfg.QPS == 0 && cfg.RateLimiter == nil {
		// client-go's default, 5 requests a second, is what limited a
		// plan of a few hundred objects; the server's own fairness and
		// the retries on 429 protect it.
		cfg.QPS, cfg.Burst = 50, 100
	}
	rc, err := admissionregistrationv1client.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &Client{Options: opts, api: admissionregistrationv1client.New(noRetries{rc.RESTClient()}), rest: cfg}, nil
}

// noRetries makes every request without client-go's own retries (it waits
// out a Retry-After up to ten times, past any deadline of ours, and repeats
// some failed GETs): Client.retry decides alone what is retried and for how
// long, so a timeout is reported with what happened.
type noRetries struct{ rest.Interface }

func (c noRetries) Verb(verb string) *rest.Request { return c.Interface.Verb(verb).MaxRetries(0) }
func (c noRetries) Post() *rest.Request            { return c.Interface.Post().MaxRetries(0) }
func (c noRetries) Put() *rest.Request             { return c.Interface.Put().MaxRetries(0) }
func (c noRetries) Get() *rest.Request             { return c.Interface.Get().MaxRetries(0) }
func (c noRetries) Delete() *rest.Request          { return c.Interface.Delete().MaxRetries(0) }
func (c noRetries) Patch(pt types.PatchType) *rest.Request {
	return c.Interface.Patch(pt).MaxRetries(0)
}

// NotReady returns a client that explains why it cannot be used yet.
func NotReady(reason error) *Client { return &Client{notReady: reason} }

// Ready reports whether the client can make requests, and if not, why.
func (c *Client) Ready() error { return c.notReady }

// Host is the API server's address, as configured; "" when there is no connection.
func (c *Client) Host() string {
	if c == nil || c.rest == nil {
		return ""
	}
	return c.rest.Host
}

// ErrNotReady is wrapped by the reason of a client that cannot be used yet.
var ErrNotReady = errors.New("the provider configuration is not known yet")
