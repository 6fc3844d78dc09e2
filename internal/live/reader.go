// Package live reads, within bounds, what the checks at plan need of a cluster beyond the
// admission objects themselves: the Service of a webhook and its EndpointSlices (Backend), the
// params of a policy binding (Params), a bounded list of the objects of any resource (List),
// for the impact of a planned policy on the objects it matches, and the cluster's discovery
// (RESTMapper, GroupsAndResources, SchemaResolver: the one place that reads it).
//
// Every read is bounded: in time (the caller's context and Limits.Time), and a list in objects
// (Limits.Objects, read a page of Limits.PageSize at a time). No read fails its caller: what it
// could not see is part of its answer (a *ReadError that says what was read and why there is no
// answer: forbidden, slow, too many objects, failed, or no cluster at all), so that "could not
// tell" is never taken for "there is none". A Reader holds the cluster's discovery once it has
// read it (to resolve a kind to its resource) and what it has reported (Report), and nothing
// else: every other read goes to the server.
package live

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
)

// Limits bound the reads of a Reader. Zero values are the defaults.
type Limits struct {
	// Objects is the most objects one list reads (DefaultObjects).
	Objects int
	// PageSize is how many objects a list asks for at a time (DefaultPageSize).
	PageSize int64
	// Time is the longest one read (a get, a whole list, a lookup of params) may take, within
	// the caller's own deadline (DefaultTime).
	Time time.Duration
}

// The default limits.
const (
	DefaultObjects  = 5000
	DefaultPageSize = 500 // client-go's pager's page
	DefaultTime     = 10 * time.Second
)

func (l Limits) withDefaults() Limits {
	if l.Objects <= 0 {
		l.Objects = DefaultObjects
	}
	if l.PageSize <= 0 {
		l.PageSize = DefaultPageSize
	}
	if l.Time <= 0 {
		l.Time = DefaultTime
	}
	return l
}

// Clients are what a Reader reads with.
type Clients struct {
	Typed     kubernetes.Interface
	Dynamic   dynamic.Interface
	Discovery discovery.DiscoveryInterface
}

// Reader reads a cluster within its limits. It is safe for concurrent use.
type Reader struct {
	clients Clients
	limits  Limits

	mu sync.Mutex
	// mapper is the cluster's discovery as a RESTMapper, once read, and mapperErr the groups
	// it could not read then (RESTMapper); reported are the failures Report has let through.
	mapper    meta.RESTMapper
	mapperErr error
	reported  map[string]bool
}

// New is a Reader over clients.
func New(clients Clients, limits Limits) *Reader {
	return &Reader{clients: clients, limits: limits.withDefaults(), reported: map[string]bool{}}
}

// For is a Reader over the provider's client: an error when it cannot make requests (its
// configuration is not known yet).
func For(c *kube.Client, limits Limits) (*Reader, error) {
	clients, err := ClientsOf(c)
	if err != nil {
		return nil, err
	}
	return New(clients, limits), nil
}

// ClientsOf are the clients of the provider's client: an error when it cannot make requests
// (its configuration is not known yet).
func ClientsOf(c *kube.Client) (Clients, error) {
	typed, err := c.Clientset()
	if err != nil {
		return Clients{}, err
	}
	dyn, err := c.Dynamic()
	if err != nil {
		return Clients{}, err
	}
	dc, err := c.Discovery()
	if err != nil {
		return Clients{}, err
	}
	return Clients{Typed: typed, Dynamic: dyn, Discovery: dc}, nil
}

// Limits are the reader's limits, with the defaults filled in.
func (r *Reader) Limits() Limits { return r.limits }

// within is ctx bounded by the reader's time for one read.
func (r *Reader) within(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, r.limits.Time)
}

// Failure is why a read gave no answer.
type Failure int

const (
	// Unreached: no answer came from the server at all (connection refused, a name that does
	// not resolve, TLS): there is no cluster to speak of, and the checks that read it say
	// nothing, as without a cluster.
	Unreached Failure = iota + 1
	// Forbidden: the server answered 403, the provider's credentials may not read it.
	Forbidden
	// Slow: the time ran out (Limits.Time, or the caller's deadline) before the answer was read.
	Slow
	// TooMany: a list holds more objects than Limits.Objects; those read are kept.
	TooMany
	// Failed: any other answer (a server error, a kind the server does not serve).
	Failed
)

func (f Failure) String() string {
	switch f {
	case Unreached:
		return "unreached"
	case Forbidden:
		return "forbidden"
	case Slow:
		return "slow"
	case TooMany:
		return "too many"
	case Failed:
		return "failed"
	}
	return "unknown"
}

// ReadError is a read that gave no answer, or only part of one: what was read, in words
// ("services in namespace \"webhooks\""), its resource, and why.
type ReadError struct {
	What     string
	Resource schema.GroupResource
	Failure  Failure
	Err      error
}

func (e *ReadError) Error() string {
	switch e.Failure {
	case Forbidden:
		return "reading " + e.What + " is forbidden: " + e.Err.Error()
	case Slow:
		return "reading " + e.What + " took too long: " + e.Err.Error()
	case TooMany:
		return "there are too many " + e.What + ": " + e.Err.Error()
	case Unreached:
		return "the cluster could not be reached to read " + e.What + ": " + e.Err.Error()
	}
	return "reading " + e.What + " failed: " + e.Err.Error()
}

func (e *ReadError) Unwrap() error { return e.Err }

// readError classifies err, the failure of reading what (of resource gr) within ctx.
func readError(ctx context.Context, what string, gr schema.GroupResource, err error) *ReadError {
	var re *ReadError
	if errors.As(err, &re) {
		return re
	}
	var f Failure
	var status apierrors.APIStatus
	switch {
	case apierrors.IsForbidden(err):
		f = Forbidden
	case ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		strings.Contains(err.Error(), "would exceed context deadline"):
		// client-go's rate limiter refuses to wait past the deadline before it ends.
		f = Slow
	case apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err):
		f = Slow
	case errors.As(err, &status), meta.IsNoMatchError(err), discovery.IsGroupDiscoveryFailedError(err):
		f = Failed
	default:
		// No answer from the server: the request did not reach it.
		f = Unreached
	}
	return &ReadError{What: what, Resource: gr, Failure: f, Err: err}
}

// Report reports whether err, a read's failure, is news: the first failure of its sort
// (Failure) on its resource, among all the reader has been asked about, and not a cluster that
// could not be reached at all (Unreached, about which the checks say nothing). So a check that
// could not read says so once per run, not once per object.
func (r *Reader) Report(err error) bool {
	var re *ReadError
	if !errors.As(err, &re) || re.Failure == Unreached {
		return false
	}
	key := re.Resource.String() + "/" + re.Failure.String()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.reported[key] {
		return false
	}
	r.reported[key] = true
	return true
}

// Resource is the resource that serves kind in apiVersion on the cluster, and whether it is
// namespaced, through discovery: a *ReadError when discovery could not be read, one that wraps
// meta.NoKindMatchError (Failed) when the cluster does not serve the kind.
func (r *Reader) Resource(ctx context.Context, apiVersion, kind string) (schema.GroupVersionResource, bool, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return schema.GroupVersionResource{}, false, &ReadError{What: fmt.Sprintf("kind %s in %s", kind, apiVersion), Failure: Failed, Err: err}
	}
	m, partial := r.RESTMapper(ctx)
	if m == nil {
		return schema.GroupVersionResource{}, false, partial
	}
	mapping, err := m.RESTMapping(gv.WithKind(kind).GroupKind(), gv.Version)
	if err != nil {
		if groupFailed(partial, gv.Group) {
			// Not a kind the cluster does not serve: its group's discovery failed.
			err = partial
		}
		return schema.GroupVersionResource{}, false, readError(ctx, fmt.Sprintf("kind %s of %s", kind, apiVersion), schema.GroupResource{Group: gv.Group, Resource: kind}, err)
	}
	return mapping.Resource, mapping.Scope.Name() == meta.RESTScopeNameNamespace, nil
}

// ServedVersions are the versions at which the cluster serves gr, through discovery, the
// preferred first: none (and no error) when it does not serve gr; a *ReadError when discovery
// could not be read, or not that of gr's group.
func (r *Reader) ServedVersions(ctx context.Context, gr schema.GroupResource) ([]string, error) {
	m, err := r.RESTMapper(ctx)
	if m == nil || groupFailed(err, gr.Group) {
		return nil, err
	}
	return ServedVersionsIn(m, gr), nil
}

// ServedVersionsIn are the versions at which m serves gr, the preferred first.
func ServedVersionsIn(m meta.RESTMapper, gr schema.GroupResource) []string {
	gvrs, err := m.ResourcesFor(gr.WithVersion(""))
	if err != nil {
		return nil
	}
	var versions []string
	for _, gvr := range gvrs {
		if gvr.Group == gr.Group && gvr.Resource == gr.Resource && !slices.Contains(versions, gvr.Version) {
			versions = append(versions, gvr.Version)
		}
	}
	return versions
}
