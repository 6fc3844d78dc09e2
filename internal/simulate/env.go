package simulate

import (
	"context"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/policy/matching"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// env is what the admission plugins reach beyond the request: the
// namespace, the parameter objects, the authorizer. It is built from the
// request alone; nothing is asked of a cluster.
type env struct {
	req        *Request
	attrs      *recordingAttributes
	namespaces corelisters.NamespaceLister
	client     *fake.Clientset
	matcher    *matching.Matcher
	objects    admission.ObjectInterfaces
	authz      ruleAuthorizer
}

var objectInterfaces = admission.NewObjectInterfacesFromScheme(clientgoscheme.Scheme)

func newEnv(req *Request) *env {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	client := fake.NewClientset()
	if req.Namespace != nil {
		_ = indexer.Add(req.Namespace.DeepCopy())
		_ = client.Tracker().Add(req.Namespace.DeepCopy())
	}
	lister := corelisters.NewNamespaceLister(indexer)
	return &env{
		req:        req,
		attrs:      req.attributes(),
		namespaces: lister,
		client:     client,
		matcher:    matching.NewMatcher(lister, client),
		objects:    objectInterfaces,
		authz:      ruleAuthorizer(req.Authorizer),
	}
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

// excludedFromPolicies reports whether the server never applies admission
// policies to requests on gr: the policies and bindings themselves
// (k8s.io/apiserver pkg/admission/plugin/policy/generic Plugin.Dispatch,
// isExcludedFromAPIHooks), and the virtual review resources that no
// admission plugin sees (validation.ExcludedFromAdmission).
func excludedFromPolicies(gr schema.GroupResource) bool {
	if validation.ExcludedFromAdmission(gr) {
		return true
	}
	if gr.Group != "admissionregistration.k8s.io" {
		return false
	}
	switch gr.Resource {
	case "validatingadmissionpolicies", "validatingadmissionpolicybindings", "mutatingadmissionpolicies", "mutatingadmissionpolicybindings":
		return true
	}
	return false
}
