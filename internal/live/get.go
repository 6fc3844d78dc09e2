package live

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Get reads the object namespace/name of kind in apiVersion (a custom resource as well as a
// built-in one), the kind resolved through discovery (Resource): nil, nil when there is no such
// object; a *ReadError when it could not be read, one that wraps meta.NoKindMatchError
// (Failed) when the cluster does not serve the kind.
func (r *Reader) Get(ctx context.Context, apiVersion, kind, namespace, name string) (*unstructured.Unstructured, error) {
	gvr, namespaced, err := r.Resource(ctx, apiVersion, kind)
	if err != nil {
		return nil, err
	}
	what := fmt.Sprintf("%s %q", gvr.GroupResource(), name)
	if namespaced {
		what += fmt.Sprintf(" in namespace %q", namespace)
	} else {
		namespace = ""
	}
	if r.clients.Dynamic == nil {
		return nil, &ReadError{What: what, Resource: gvr.GroupResource(), Failure: Unreached, Err: fmt.Errorf("no client")}
	}
	ctx, cancel := r.within(ctx)
	defer cancel()
	obj, err := r.clients.Dynamic.Resource(gvr).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, readError(ctx, what, gvr.GroupResource(), err)
	}
	return obj, nil
}
