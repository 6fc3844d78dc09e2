package impact

import (
	"context"
	"fmt"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/live"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/matching"
)

// Cluster is the live cluster as the impact reads it, with what it keeps between the impacts
// of one run of the provider (a plan): what discovery serves, the namespaces, the mutating
// webhooks. The objects themselves are read again for each impact, a page at a time, and
// kept by none. It is safe for concurrent use.
type Cluster struct {
	Kube kubernetes.Interface
	// Reader reads discovery, the objects and the params, within Bounds (NewCluster).
	Reader *live.Reader
	Bounds Bounds

	mu         sync.Mutex
	served     *Served
	namespaces *matching.Live
	webhooks   *webhooksRead
	mutators   *mutatorsRead
	plans      Plans
}

type webhooksRead struct {
	hooks []matching.Webhook
	err   error
}

// NewCluster is the cluster of these clients, read within b.
func NewCluster(clients live.Clients, b Bounds) *Cluster {
	reader := live.New(clients, live.Limits{Objects: b.maxObjects(), PageSize: int64(b.pageSize()), Time: b.budget()})
	return &Cluster{Kube: clients.Typed, Reader: reader, Bounds: b}
}

// maxNamespaces is the most namespaces read for the namespace selectors.
const maxNamespaces = 10000

// Served is what discovery says the cluster serves, asked once (within the reader's time); an
// answer that failed is asked again the next time.
func (c *Cluster) Served() (*Served, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.served != nil {
		return c.served, nil
	}
	groups, lists, err := c.Reader.GroupsAndResources(context.Background())
	s := &Served{Groups: groups, Resources: lists}
	if err != nil {
		failed, partial := live.FailedGroups(err)
		if !partial {
			return nil, err
		}
		for gv, e := range failed {
			s.Failed = append(s.Failed, fmt.Sprintf("%s (%v)", gv, e))
		}
	}
	c.served = s
	return s, nil
}

// liveNamespaces are the cluster's namespaces (matching.LiveNamespaces), kept when every one
// was read.
func (c *Cluster) liveNamespaces(ctx context.Context) *matching.Live {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.namespaces != nil {
		return c.namespaces
	}
	l := matching.LiveNamespaces(ctx, c.Kube, maxNamespaces)
	if l.Incomplete() == nil {
		c.namespaces = l
	}
	return l
}

// mutatingWebhooks are the webhooks of the cluster's mutating webhook configurations, which see
// a write before the validating policies do.
func (c *Cluster) mutatingWebhooks(ctx context.Context) ([]matching.Webhook, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.webhooks != nil {
		return c.webhooks.hooks, c.webhooks.err
	}
	r := &webhooksRead{}
	opts := metav1.ListOptions{Limit: DefaultPageSize}
	for {
		list, err := c.Kube.AdmissionregistrationV1().MutatingWebhookConfigurations().List(ctx, opts)
		if err != nil {
			r.err = err
			break
		}
		for i := range list.Items {
			r.hooks = append(r.hooks, matching.MutatingWebhooks(&list.Items[i])...)
		}
		if list.Continue == "" {
			break
		}
		opts.Continue = list.Continue
	}
	if r.err == nil || ctx.Err() == nil {
		c.webhooks = r
	}
	return r.hooks, r.err
}

// ValidatingBindings are the bindings in the cluster of the validating policy named policy.
func (c *Cluster) ValidatingBindings(ctx context.Context, policy string) ([]admissionregistrationv1.ValidatingAdmissionPolicyBinding, error) {
	var out []admissionregistrationv1.ValidatingAdmissionPolicyBinding
	opts := metav1.ListOptions{Limit: DefaultPageSize}
	for {
		list, err := c.Kube.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().List(ctx, opts)
		if err != nil {
			return out, err
		}
		for _, b := range list.Items {
			if b.Spec.PolicyName == policy {
				out = append(out, b)
			}
		}
		if list.Continue == "" {
			return out, nil
		}
		opts.Continue = list.Continue
	}
}

// MutatingBindings are the bindings in the cluster of the mutating policy named policy.
func (c *Cluster) MutatingBindings(ctx context.Context, policy string) ([]admissionregistrationv1.MutatingAdmissionPolicyBinding, error) {
	var out []admissionregistrationv1.MutatingAdmissionPolicyBinding
	opts := metav1.ListOptions{Limit: DefaultPageSize}
	for {
		list, err := c.Kube.AdmissionregistrationV1().MutatingAdmissionPolicyBindings().List(ctx, opts)
		if err != nil {
			return out, err
		}
		for _, b := range list.Items {
			if b.Spec.PolicyName == policy {
				out = append(out, b)
			}
		}
		if list.Continue == "" {
			return out, nil
		}
		opts.Continue = list.Continue
	}
}

// ValidatingPolicy is the validating policy of that name in the cluster, nil when there is none.
func (c *Cluster) ValidatingPolicy(ctx context.Context, name string) (*admissionregistrationv1.ValidatingAdmissionPolicy, error) {
	return found(c.Kube.AdmissionregistrationV1().ValidatingAdmissionPolicies().Get(ctx, name, metav1.GetOptions{}))
}

// ValidatingBinding is the validating binding of that name in the cluster, nil when there is none.
func (c *Cluster) ValidatingBinding(ctx context.Context, name string) (*admissionregistrationv1.ValidatingAdmissionPolicyBinding, error) {
	return found(c.Kube.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Get(ctx, name, metav1.GetOptions{}))
}

// MutatingPolicy is the mutating policy of that name in the cluster, nil when there is none.
func (c *Cluster) MutatingPolicy(ctx context.Context, name string) (*admissionregistrationv1.MutatingAdmissionPolicy, error) {
	return found(c.Kube.AdmissionregistrationV1().MutatingAdmissionPolicies().Get(ctx, name, metav1.GetOptions{}))
}

func found[T any](obj *T, err error) (*T, error) {
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return obj, nil
}
