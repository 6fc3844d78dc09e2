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
	"k8s.io/client-go/dynamic"
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

// List reads the objects of r that labelSelector selects, a page of at most pageSize at a
// time, at most max of them, until ctx is done, handing each page to each (which may keep
// nothing of it beyond its call). It never fails: what stopped it is in the answer.
func List(ctx context.Context, client dynamic.Interface, r Resource, labelSelector string, max, pageSize int,
	each func([]unstructured.Unstructured)) Listed {
	out := Listed{Resource: r, Total: -1}
	opts := metav1.ListOptions{LabelSelector: labelSelector, Limit: int64(min(pageSize, max))}
	for {
		if ctx.Err() != nil {
			out.Cut = CutByTime
			return out
		}
		list, err := client.Resource(r.GVR).List(ctx, opts)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
				out.Cut = CutByTime
			} else {
				out.Err = err
			}
			return out
		}
		items := list.Items
		if rest := max - out.Examined; len(items) > rest {
			items = items[:rest]
		}
		each(items)
		out.Examined += len(items)
		more := list.GetContinue() != ""
		if !more {
			out.Total = int64(out.Examined + len(list.Items) - len(items))
			if len(items) < len(list.Items) {
				out.Cut = CutByLimit // a server that answered more than the page asked
			}
			return out
		}
		if out.Examined >= max {
			out.Cut = CutByLimit
			if rc := list.GetRemainingItemCount(); rc != nil {
				out.Total = int64(out.Examined) + int64(len(list.Items)-len(items)) + *rc
			}
			return out
		}
		opts.Continue = list.GetContinue()
		opts.Limit = int64(min(pageSize, max-out.Examined))
	}
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
