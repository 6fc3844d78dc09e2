package typecheck

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/builtinapi"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/live"
)

// Scopes tells whether a resource is namespaced, as discovery says: the built-in resources from
// the embedded snapshot, and, when a cluster is given, what that cluster serves (its custom
// resources, read through internal/live). It implements advice.ScopeResolver.
type Scopes struct {
	live func() (meta.RESTMapper, error)
}

// BuiltinScopes knows the scope of kube-apiserver's built-in resources only.
func BuiltinScopes() *Scopes { return &Scopes{} }

// LiveScopes adds what r's cluster serves to the built-in resources. Discovery is read once,
// when first needed; if it cannot be read, only the built-in resources are known (r's callers
// report its failures: live.Reader.Report).
func LiveScopes(r *live.Reader) *Scopes {
	if r == nil {
		return BuiltinScopes()
	}
	return &Scopes{live: sync.OnceValues(func() (meta.RESTMapper, error) { return r.RESTMapper(context.Background()) })}
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
	if m, _ := s.live(); m != nil {
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
