package impact

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/live"
)

// Bounds are how much of the cluster one impact reads.
type Bounds struct {
	// MaxObjects is the most objects examined per resource; 0 is DefaultMaxObjects.
	MaxObjects int
	// Budget is the time one impact may take, listing and evaluating; 0 is DefaultBudget.
	Budget time.Duration
	// PageSize is the page of each list; 0 is DefaultPageSize.
	PageSize int
}

// The default bounds: enough for the objects of a kind in most clusters, within what a plan
// can wait.
const (
	DefaultMaxObjects = 1000
	DefaultBudget     = 10 * time.Second
	DefaultPageSize   = 500
)

func (b Bounds) maxObjects() int {
	if b.MaxObjects <= 0 {
		return DefaultMaxObjects
	}
	return b.MaxObjects
}

func (b Bounds) budget() time.Duration {
	if b.Budget <= 0 {
		return DefaultBudget
	}
	return b.Budget
}

func (b Bounds) pageSize() int {
	if b.PageSize <= 0 {
		return DefaultPageSize
	}
	return min(b.PageSize, b.maxObjects())
}

// Listed is what a bounded list of one resource read.
type Listed struct {
	Resource Resource
	// Examined is how many objects were read and given to the caller.
	Examined int
	// Total is how many objects the resource has, when it is known: every object was read, or
	// the server said how many remained (its remainingItemCount); -1 when it is not known.
	Total int64
	// Cut says why the list stopped before its end: CutByLimit or CutByTime; empty when it
	// reached the end or failed.
	Cut string
	// Err is why the list failed (forbidden, not found, the server's error): what it read
	// before is in Examined.
	Err error
}

// Why a list stopped before its end.
const (
	CutByLimit = "limit"
	CutByTime  = "time"
)

// Forbidden reports whether the list was refused to the provider's credentials.
func (l Listed) Forbidden() bool {
	return apierrors.IsForbidden(l.Err) || apierrors.IsUnauthorized(l.Err)
}

// Complete reports whether every object of the resource was examined.
func (l Listed) Complete() bool { return l.Cut == "" && l.Err == nil }

// list reads the objects of r that labelSelector selects, with the shared bounded reader
// (internal/live: pages, at most Bounds.MaxObjects, within the reader's time), and hands them
// to each. It never fails: what stopped it is in the answer.
func (c *Cluster) list(ctx context.Context, r Resource, labelSelector string, each func([]unstructured.Unstructured)) Listed {
	l := c.Reader.List(ctx, r.GVR, "", metav1.ListOptions{LabelSelector: labelSelector})
	each(l.Items)
	out := Listed{Resource: r, Examined: len(l.Items), Total: int64(l.Total)}
	var re *live.ReadError
	switch {
	case l.Stopped == nil:
	case !errors.As(l.Stopped, &re):
		out.Err = l.Stopped
	case re.Failure == live.TooMany:
		out.Cut = CutByLimit
	case re.Failure == live.Slow || ctx.Err() != nil:
		out.Cut = CutByTime
	default:
		out.Err = re.Err
	}
	return out
}

// describeErr is err in a few words for a list of what.
func describeErr(what string, err error) string {
	switch {
	case apierrors.IsForbidden(err):
		return fmt.Sprintf("%s: forbidden to the provider's credentials (they need list on it)", what)
	case apierrors.IsUnauthorized(err):
		return fmt.Sprintf("%s: the credentials were not accepted", what)
	}
	return fmt.Sprintf("%s: %v", what, err)
}

// Resource is a resource of the cluster, as discovery tells it.
type Resource struct {
	GVR        schema.GroupVersionResource
	Kind       schema.GroupVersionKind
	Namespaced bool
}

// String is the resource as RBAC and kubectl name it: "deployments.apps", "configmaps".
func (r Resource) String() string { return r.GVR.GroupResource().String() }
