package simulate

import (
	"context"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/client-go/informers"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/matching"
)

// env is what the admission plugins reach beyond the request: the
// namespace, the parameter objects, the authorizer, the equivalent
// resources. It is built from the request alone; nothing is asked of a
// cluster.
type env struct {
	req   *Request
	attrs *recordingAttributes
	// matcher is the admission matcher over the request's namespace (and no
	// other), its authorizer, and the equivalent resources of the built-in
	// API and the request's custom resources; the dispatchers match with its
	// predicates and objects.
	matcher *matching.Matcher
	objects admission.ObjectInterfaces
	authz   authorizer.Authorizer
}

func newEnv(req *Request) (*env, error) {
	authz, err := requestAuthorizer(req.Authorizer)
	if err != nil {
		return nil, err
	}
	equivalents, err := req.equivalents()
	if err != nil {
		return nil, err
	}
	m, err := matching.New(matching.Config{Namespaces: matching.GivenNamespaces(req.Namespace), Equivalents: equivalents, Authorizer: authz})
	if err != nil {
		return nil, err
	}
	return &env{req: req, attrs: req.attributes(), matcher: m, objects: m.ObjectInterfaces(), authz: authz}, nil
}

// equivalents are the built-in equivalent resources, and those of the
// request's custom resources.
func (r *Request) equivalents() (matching.Equivalents, error) {
	if len(r.CustomResources) == 0 {
		return matching.BuiltinEquivalents()
	}
	builtin, err := matching.BuiltinServed()
	if err != nil {
		return nil, err
	}
	return matching.NewEquivalents(append(builtin, r.CustomResources...)...), nil
}

// paramInformer serves the request's parameter objects of one kind to
// k8s.io/apiserver pkg/admission/plugin/policy/generic CollectParams, as
// the policy source's informer of the param kind does.
type paramInformer struct {
	lister cache.GenericLister
}

var _ informers.GenericInformer = paramInformer{}

func (p paramInformer) Informer() cache.SharedIndexInformer { return syncedInformer{} }
func (p paramInformer) Lister() cache.GenericLister         { return p.lister }

// syncedInformer is an informer that has synced: its store is the lister's.
type syncedInformer struct{ cache.SharedIndexInformer }

func (syncedInformer) HasSynced() bool { return true }

// params is the informer of the request's params of kind gvk, and the
// scope of that kind: the built-in kind's, else namespaced when any of
// the params has a namespace.
func (e *env) params(gvk schema.GroupVersionKind) (informers.GenericInformer, meta.RESTScope) {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	var scope meta.RESTScope = meta.RESTScopeRoot
	for _, p := range e.req.Params {
		if p.GroupVersionKind() != gvk {
			continue
		}
		if p.GetNamespace() != "" {
			scope = meta.RESTScopeNamespace
		}
		_ = indexer.Add(paramObject(p))
	}
	if mapper, err := builtinMapper(); err == nil {
		if m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err == nil {
			scope = m.Scope
		}
	}
	return paramInformer{lister: cache.NewGenericLister(indexer, schema.GroupResource{Group: gvk.Group, Resource: gvk.Kind})}, scope
}

// paramObject is a param as an informer holds it: a built-in kind typed
// (without its type meta, which the dispatchers put back), another kind
// unstructured.
func paramObject(u *unstructured.Unstructured) any {
	obj, err := clientgoscheme.Scheme.New(u.GroupVersionKind())
	if err != nil {
		return u.DeepCopy()
	}
	if err := clientgoscheme.Scheme.Convert(u.DeepCopy(), obj, nil); err != nil {
		return u.DeepCopy()
	}
	if a, err := meta.TypeAccessor(obj); err == nil {
		a.SetAPIVersion("")
		a.SetKind("")
	}
	return obj
}

// warnings collects the warnings the plugins add to a request's context,
// each text once, as the server's recorder does (k8s.io/apiserver
// pkg/endpoints/filters WithWarningRecorder: recorder.AddWarning).
type warnings struct{ list []string }

func (w *warnings) AddWarning(_, text string) {
	if text == "" || slices.Contains(w.list, text) {
		return
	}
	w.list = append(w.list, text)
}

func (w *warnings) context(ctx context.Context) context.Context {
	return warning.WithWarningRecorder(ctx, w)
}
