package live

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Listing is what a bounded list read: the objects, and how much of the list they are.
type Listing struct {
	// Items are the objects read, in the server's order.
	Items []unstructured.Unstructured
	// Total is how many objects the list holds: len(Items) when it was read to its end; the
	// items read and the server's remainingItemCount when it stopped early and the server said
	// how many were left; -1 when that is not known.
	Total int
	// Stopped is why the list was not read to its end (a *ReadError: TooMany, Forbidden, Slow,
	// Failed, Unreached), nil when it was.
	Stopped error
}

// Complete reports whether every object of the list was read.
func (l *Listing) Complete() bool { return l.Stopped == nil }

// Examined says how much of the list was read: "all 12", "500 of 1200", "500 of more than
// 500", "0", with why it stopped.
func (l *Listing) Examined() string {
	n := len(l.Items)
	switch {
	case l.Stopped == nil:
		return fmt.Sprintf("all %d", n)
	case l.Total >= 0:
		return fmt.Sprintf("%d of %d (%v)", n, l.Total, l.Stopped)
	case n == 0:
		return fmt.Sprintf("none (%v)", l.Stopped)
	}
	return fmt.Sprintf("%d, not all (%v)", n, l.Stopped)
}

// List reads the objects of resource that opts select (their label and field selectors), in
// namespace ("" for every namespace, or a cluster-scoped resource): a page of
// Limits.PageSize at a time, at most Limits.Objects of them, within Limits.Time. It never
// fails: a list stopped early keeps what it read and says why (Listing.Stopped). opts' Limit
// and Continue are the reader's.
func (r *Reader) List(ctx context.Context, resource schema.GroupVersionResource, namespace string, opts metav1.ListOptions) *Listing {
	ctx, cancel := r.within(ctx)
	defer cancel()
	what := describe(resource.GroupResource(), namespace, opts)
	l := &Listing{Total: -1}
	if r.clients.Dynamic == nil {
		l.Stopped = &ReadError{What: what, Resource: resource.GroupResource(), Failure: Unreached, Err: fmt.Errorf("no client")}
		return l
	}
	client := r.clients.Dynamic.Resource(resource)
	opts.Continue = ""
	for {
		// One more than the room left, to tell a list that holds exactly the cap from one
		// that holds more.
		opts.Limit = min(r.limits.PageSize, int64(r.limits.Objects-len(l.Items)+1))
		var page *unstructured.UnstructuredList
		var err error
		if namespace != "" {
			page, err = client.Namespace(namespace).List(ctx, opts)
		} else {
			page, err = client.List(ctx, opts)
		}
		if err != nil {
			l.Stopped = readError(ctx, what, resource.GroupResource(), err)
			return l
		}
		for i := range page.Items {
			if len(l.Items) == r.limits.Objects {
				l.Stopped = &ReadError{What: what, Resource: resource.GroupResource(), Failure: TooMany,
					Err: fmt.Errorf("more than %d, the most that are read", r.limits.Objects)}
				if rest := page.GetRemainingItemCount(); rest != nil {
					l.Total = len(l.Items) + (len(page.Items) - i) + int(*rest)
				}
				return l
			}
			l.Items = append(l.Items, page.Items[i])
		}
		if page.GetContinue() == "" {
			l.Total = len(l.Items)
			return l
		}
		opts.Continue = page.GetContinue()
	}
}

// describe names the objects of a list in words: `services in namespace "x" with labels a=b`.
func describe(gr schema.GroupResource, namespace string, opts metav1.ListOptions) string {
	s := gr.String()
	if namespace != "" {
		s += fmt.Sprintf(" in namespace %q", namespace)
	}
	if opts.LabelSelector != "" {
		s += " with labels " + opts.LabelSelector
	}
	if opts.FieldSelector != "" {
		s += " with fields " + opts.FieldSelector
	}
	return s
}
