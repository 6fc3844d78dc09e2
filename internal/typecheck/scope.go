package typecheck

import (
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/restmapper"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/builtinapi"
)

// Scopes tells whether a resource is namespaced, as discovery says: the built-in resources from
// the embedded snapshot, and, when a cluster's discovery is given, what that cluster serves
// (its custom resources). It implements advice.ScopeResolver.
type Scopes struct {
	live func() meta.RESTMapper
}

// BuiltinScopes knows the scope of kube-apiserver's built-in resources only.
func BuiltinScopes() *Scopes { return &Scopes{} }

// LiveScopes adds what dc serves to the built-in resources. Discovery is read once, when first
// needed; if it cannot be read, only the built-in resources are known.
func LiveScopes(dc discovery.DiscoveryInterface) *Scopes {
	if dc == nil {
		return BuiltinScopes()
	}
	return &Scopes{live: sync.OnceValue(func() meta.RESTMapper {
		groups, _ := restmapper.GetAPIGroupResources(memory.NewMemCacheClient(dc))
		if groups == nil {
			return nil
		}
		return restmapper.NewDiscoveryRESTMapper(groups)
	})}
}

// ResourceScope reports whether gr is namespaced, and whether its scope is known at all.
func (s *Scopes) ResourceScope(gr schema.GroupResource) (namespaced, known bool) {
	if m, err := builtinapi.RESTMapper(); err == nil {
		if namespaced, ok := scopeIn(m, gr); ok {
			return namespaced, true
		}
	}
	if s == nil || s.live == nil {
		return false, false
	}
	if m := s.live(); m != nil {
		return scopeIn(m, gr)
	}
	return false, false
}

func scopeIn(m meta.RESTMapper, gr schema.GroupResource) (namespaced, ok bool) {
	gvk, err := m.KindFor(gr.WithVersion(""))
	if err != nil {
		return false, false
	}
	mapping, err := m.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return false, false
	}
	return mapping.Scope.Name() == meta.RESTScopeNameNamespace, true
}
