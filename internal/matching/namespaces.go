package matching

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	coreinformers "k8s.io/client-go/informers/core"
	corev1informers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// Namespaces are where the matcher reads the namespace of a request, as the server's
// namespace predicate does (k8s.io/apiserver pkg/admission/plugin/webhook/predicates/namespace
// Matcher.GetNamespaceLabels): from Lister, and from Client when the lister has not got it.
// Their labels decide namespace selectors; a namespace that cannot be read makes the
// predicates fail (the server rejects the request), which the matcher reports as Failed.
type Namespaces interface {
	Lister() corelisters.NamespaceLister
	Client() kubernetes.Interface
}

// SyntheticNamespaces are namespaces that exist under every name, each with only the label
// the server gives every namespace, kubernetes.io/metadata.name with its name (the namespace
// strategy of k8s.io/kubernetes pkg/registry/core/namespace): what can be said of a request
// without its namespace's own labels. The lockout advice asks with these.
func SyntheticNamespaces() Namespaces { return syntheticNamespaces{} }

type syntheticNamespaces struct{}

func (syntheticNamespaces) Lister() corelisters.NamespaceLister { return syntheticLister{} }

// Client is never asked for a namespace the lister has: it has them all, but the one without
// a name, which neither can give.
func (syntheticNamespaces) Client() kubernetes.Interface {
	return lookupClient{get: func(_ context.Context, name string) (*corev1.Namespace, error) { return nil, errNoName }}
}

var errNoName = fmt.Errorf("a synthetic namespace needs a name")

// syntheticLister gives every name its synthetic namespace.
type syntheticLister struct{}

func (syntheticLister) List(labels.Selector) ([]*corev1.Namespace, error) { return nil, nil }

func (syntheticLister) Get(name string) (*corev1.Namespace, error) {
	if name == "" {
		return nil, errNoName
	}
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelMetadataName: name}}}, nil
}

// GivenNamespaces are the namespaces given, and no others: a namespace not among them is not
// found, as on a server that does not have it. The simulator asks with the namespace of its
// request.
func GivenNamespaces(namespaces ...*corev1.Namespace) Namespaces {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, ns := range namespaces {
		if ns != nil {
			_ = indexer.Add(ns.DeepCopy())
		}
	}
	return listedNamespaces{corelisters.NewNamespaceLister(indexer), notFound}
}

func notFound(_ context.Context, name string) (*corev1.Namespace, error) {
	return nil, apierrors.NewNotFound(corev1.Resource("namespaces"), name)
}

// listedNamespaces are the namespaces of a lister, and lookup for the others.
type listedNamespaces struct {
	lister corelisters.NamespaceLister
	lookup func(ctx context.Context, name string) (*corev1.Namespace, error)
}

func (n listedNamespaces) Lister() corelisters.NamespaceLister { return n.lister }
func (n listedNamespaces) Client() kubernetes.Interface        { return lookupClient{get: n.lookup} }

// LiveNamespaces are the namespaces of a cluster, read once, when it is made: listed a page
// of at most pageSize at a time, at most limit of them (0: no limit), within ctx. A namespace
// the list did not reach is not guessed: when the list stopped early (the limit, the
// deadline, a list that is forbidden or fails), looking it up fails with what stopped the
// list, so that the matcher's answer says it could not tell (Failed); when the list is
// complete, it is not found, as on the server.
func LiveNamespaces(ctx context.Context, client kubernetes.Interface, limit int) *Live {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	l := &Live{lister: corelisters.NewNamespaceLister(indexer)}
	opts := metav1.ListOptions{Limit: pageSize}
	for {
		list, err := client.CoreV1().Namespaces().List(ctx, opts)
		if err != nil {
			l.stopped = fmt.Errorf("the cluster's namespaces could not be listed (%d read): %w", l.read, err)
			return l
		}
		for i := range list.Items {
			if limit > 0 && l.read >= limit {
				l.stopped = fmt.Errorf("the cluster has more than %d namespaces, the most that are read", limit)
				return l
			}
			_ = indexer.Add(&list.Items[i])
			l.read++
		}
		if list.Continue == "" {
			return l
		}
		if limit > 0 && l.read >= limit {
			l.stopped = fmt.Errorf("the cluster has more than %d namespaces, the most that are read", limit)
			return l
		}
		opts.Continue = list.Continue
	}
}

// pageSize is the page of a list of namespaces (client-go's pager default).
const pageSize = 500

// Live is LiveNamespaces' source.
type Live struct {
	lister  corelisters.NamespaceLister
	read    int
	stopped error
}

func (l *Live) Lister() corelisters.NamespaceLister { return l.lister }

func (l *Live) Client() kubernetes.Interface {
	return lookupClient{get: func(ctx context.Context, name string) (*corev1.Namespace, error) {
		if l.stopped != nil {
			return nil, fmt.Errorf("namespace %q is not among those read: %w", name, l.stopped)
		}
		return notFound(ctx, name)
	}}
}

// Read is how many namespaces were read.
func (l *Live) Read() int { return l.read }

// Incomplete is what stopped the list before its end, nil when every namespace was read: what
// the answers could not see.
func (l *Live) Incomplete() error { return l.stopped }

// lookupClient is a clientset that can only get namespaces, with get: the namespace predicates
// ask nothing else of their client.
type lookupClient struct {
	kubernetes.Interface
	get func(ctx context.Context, name string) (*corev1.Namespace, error)
}

func (c lookupClient) CoreV1() typedcorev1.CoreV1Interface { return lookupCore{get: c.get} }

type lookupCore struct {
	typedcorev1.CoreV1Interface
	get func(ctx context.Context, name string) (*corev1.Namespace, error)
}

func (c lookupCore) Namespaces() typedcorev1.NamespaceInterface { return lookupNamespaces{get: c.get} }

type lookupNamespaces struct {
	typedcorev1.NamespaceInterface
	get func(ctx context.Context, name string) (*corev1.Namespace, error)
}

func (n lookupNamespaces) Get(ctx context.Context, name string, _ metav1.GetOptions) (*corev1.Namespace, error) {
	return n.get(ctx, name)
}

// namespaceInformers is an informer factory whose namespace lister is lister: the webhook
// plugin reads its namespaces from the factory it is given
// (generic.Webhook.SetExternalKubeInformerFactory: Core().V1().Namespaces().Lister()), and
// nothing else of it.
func namespaceInformers(client kubernetes.Interface, lister corelisters.NamespaceLister) informers.SharedInformerFactory {
	f := informers.NewSharedInformerFactory(client, 0)
	v1 := f.Core().V1()
	return informerFactory{f, coreNamespaces{Interface: v1, TypedNamespaceInformer: v1.Namespaces(), lister: lister}}
}

type informerFactory struct {
	informers.SharedInformerFactory
	core coreNamespaces
}

func (f informerFactory) Core() coreinformers.Interface { return f.core }

// coreNamespaces stands for the core group, its v1 and its namespace informer, each level
// giving the next.
type coreNamespaces struct {
	corev1informers.Interface
	corev1informers.TypedNamespaceInformer
	lister corelisters.NamespaceLister
}

func (c coreNamespaces) V1() corev1informers.Interface                      { return c }
func (c coreNamespaces) Namespaces() corev1informers.TypedNamespaceInformer { return c }
func (c coreNamespaces) Lister() corelisters.NamespaceLister                { return c.lister }
