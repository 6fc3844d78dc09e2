package kube

import (
	"context"
	"errors"
	"fmt"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	admissionregistrationv1ac "k8s.io/client-go/applyconfigurations/admissionregistration/v1"
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
	// Backoff is the retry schedule for transient failures; zero means
	// DefaultBackoff.
	Backoff Backoff
}

// Client is the one connection shared by every resource and data source of a
// configured provider.
type Client struct {
	Options
	// notReady explains why there is no connection yet (the provider
	// configuration depends on values known only at apply); nil when ready.
	notReady error
	api      admissionregistrationv1client.AdmissionregistrationV1Interface
	// onRetry, when set, is told of every retried failure (tests).
	onRetry func(attempt int, err error)
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
	return &Client{Options: opts, api: admissionregistrationv1client.New(noRetries{rc.RESTClient()})}, nil
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

func (c *Client) webhooks() admissionregistrationv1client.MutatingWebhookConfigurationInterface {
	return c.api.MutatingWebhookConfigurations()
}

// GetMutatingWebhookConfiguration reads one object. A missing object is
// reported as (nil, nil).
func (c *Client) GetMutatingWebhookConfiguration(ctx context.Context, name string) (*admissionregistrationv1.MutatingWebhookConfiguration, error) {
	if c.notReady != nil {
		return nil, c.notReady
	}
	var obj *admissionregistrationv1.MutatingWebhookConfiguration
	err := c.retry(ctx, func(ctx context.Context) (err error) {
		obj, err = c.webhooks().Get(ctx, name, metav1.GetOptions{})
		return err
	})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return obj, err
}

// ListMutatingWebhookConfigurations lists objects matching a label selector.
func (c *Client) ListMutatingWebhookConfigurations(ctx context.Context, labelSelector string) ([]admissionregistrationv1.MutatingWebhookConfiguration, error) {
	if c.notReady != nil {
		return nil, c.notReady
	}
	var list *admissionregistrationv1.MutatingWebhookConfigurationList
	err := c.retry(ctx, func(ctx context.Context) (err error) {
		list, err = c.webhooks().List(ctx, metav1.ListOptions{LabelSelector: labelSelector})
		return err
	})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// ApplyMutatingWebhookConfiguration writes the fields in ac with server-side
// apply under the client's field manager. With dryRun the server validates and
// defaults the object but stores nothing.
func (c *Client) ApplyMutatingWebhookConfiguration(ctx context.Context, ac *admissionregistrationv1ac.MutatingWebhookConfigurationApplyConfiguration, dryRun bool) (*admissionregistrationv1.MutatingWebhookConfiguration, error) {
	if c.notReady != nil {
		return nil, c.notReady
	}
	opts := metav1.ApplyOptions{FieldManager: c.FieldManager, Force: c.ForceConflicts}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	var obj *admissionregistrationv1.MutatingWebhookConfiguration
	err := c.retry(ctx, func(ctx context.Context) (err error) {
		obj, err = c.webhooks().Apply(ctx, ac, opts)
		return err
	})
	return obj, err
}

// ApplyMutatingWebhookConfigurationForced is ApplyMutatingWebhookConfiguration
// taking over the fields other managers own.
func (c *Client) ApplyMutatingWebhookConfigurationForced(ctx context.Context, ac *admissionregistrationv1ac.MutatingWebhookConfigurationApplyConfiguration, dryRun bool) (*admissionregistrationv1.MutatingWebhookConfiguration, error) {
	forced := *c
	forced.ForceConflicts = true
	return forced.ApplyMutatingWebhookConfiguration(ctx, ac, dryRun)
}

// DeleteMutatingWebhookConfiguration deletes the object and waits until it is
// gone. A missing object is not an error.
func (c *Client) DeleteMutatingWebhookConfiguration(ctx context.Context, name string) error {
	if c.notReady != nil {
		return c.notReady
	}
	err := c.retry(ctx, func(ctx context.Context) error {
		return c.webhooks().Delete(ctx, name, metav1.DeleteOptions{})
	})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	err = wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		obj, err := c.GetMutatingWebhookConfiguration(ctx, name)
		return obj == nil && err == nil, err
	})
	if err != nil {
		if obj, getErr := c.webhooks().Get(context.WithoutCancel(ctx), name, metav1.GetOptions{}); getErr == nil && len(obj.Finalizers) > 0 {
			return fmt.Errorf("%q is marked for deletion but still has finalizers %v; it is deleted once whoever owns them removes them: %w", name, obj.Finalizers, err)
		}
		return fmt.Errorf("waiting for %q to be deleted: %w", name, err)
	}
	return nil
}

// ErrNotReady is wrapped by the reason of a client that cannot be used yet.
var ErrNotReady = errors.New("the provider configuration is not known yet")
