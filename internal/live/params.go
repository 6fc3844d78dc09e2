package live

import (
	"context"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Params are the params objects a binding's paramRef selects on the cluster, looked up as the
// server collects them for a request (k8s.io/apiserver pkg/admission/plugin/policy/generic
// CollectParams): of the policy's paramKind, by name or by label selector, in the namespace
// the paramRef names, for a namespaced kind; a namespaced kind with no namespace in the
// paramRef takes its params from each request's own namespace, so they are looked up in every
// namespace (PerRequestNamespace).
type Params struct {
	// Resource is the param kind's resource, Namespaced its scope.
	Resource   schema.GroupVersionResource
	Namespaced bool
	// Namespace is where the params were looked up: the paramRef's namespace, "" for a
	// cluster-scoped kind or with PerRequestNamespace (every namespace).
	Namespace           string
	PerRequestNamespace bool
	// Listing holds the params found.
	Listing *Listing
	// Err is why the params could not be looked up at all (a *ReadError: the param kind could
	// not be resolved, or is not served), nil when they were; a lookup stopped part way is in
	// Listing.Stopped.
	Err error
}

// None reports whether the lookup shows that there are no params: known is false when it
// could not tell (the kind not resolved, a list that stopped before its end with nothing
// found), and then none is false too.
func (p *Params) None() (none, known bool) {
	switch {
	case p.Err != nil:
		return false, false
	case len(p.Listing.Items) > 0:
		return false, true
	case !p.Listing.Complete():
		return false, false
	}
	return true, true
}

// Where says where the params were looked up, in words: `configmaps "limits" in namespace
// "policy"`, `configmaps with labels team=web in each request's namespace`.
func (p *Params) Where(ref *admissionregistrationv1.ParamRef) string {
	s := p.Resource.GroupResource().String()
	if ref.Name != "" {
		s += fmt.Sprintf(" named %q", ref.Name)
	} else if ref.Selector != nil {
		if sel, err := metav1.LabelSelectorAsSelector(ref.Selector); err == nil {
			if sel.Empty() {
				s += " (any)"
			} else {
				s += " with labels " + sel.String()
			}
		}
	}
	switch {
	case p.PerRequestNamespace:
		s += " in each request's namespace"
	case p.Namespace != "":
		s += fmt.Sprintf(" in namespace %q", p.Namespace)
	}
	return s
}

// Params looks up the params that ref selects for a policy whose paramKind is kind (both not
// nil): the kind resolved through discovery (Resource), then a list bounded as List is, by name
// (a field selector on metadata.name) or by ref's selector. The list reads at most Limits.Objects
// params; one is enough to tell that there are some.
func (r *Reader) Params(ctx context.Context, kind *admissionregistrationv1.ParamKind, ref *admissionregistrationv1.ParamRef) *Params {
	gvr, namespaced, err := r.Resource(ctx, kind.APIVersion, kind.Kind)
	p := &Params{Resource: gvr, Namespaced: namespaced, Listing: &Listing{Total: -1}}
	if err != nil {
		p.Err = err
		return p
	}
	var opts metav1.ListOptions
	switch {
	case ref.Name != "":
		opts.FieldSelector = fields.OneTermEqualSelector("metadata.name", ref.Name).String()
	case ref.Selector != nil:
		sel, err := metav1.LabelSelectorAsSelector(ref.Selector)
		if err != nil {
			p.Err = &ReadError{What: "params with selector", Resource: gvr.GroupResource(), Failure: Failed, Err: err}
			return p
		}
		opts.LabelSelector = sel.String()
	}
	if namespaced {
		p.Namespace = ref.Namespace
		p.PerRequestNamespace = ref.Namespace == ""
	}
	p.Listing = r.List(ctx, gvr, p.Namespace, opts)
	return p
}
