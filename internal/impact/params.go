package impact

import (
	"context"
	"fmt"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/live"
)

// The params of a binding are read from the cluster once per impact (live.Reader.Params: by
// paramRef.name or paramRef.selector, in paramRef.namespace, or in every namespace when a
// namespaced param kind takes them from the namespace of each write), and each write is given
// those the server's policy source would find for it (k8s.io/apiserver
// pkg/admission/plugin/policy/generic CollectParams): the simulator decides with
// parameterNotFoundAction when they are none.

// paramCache is what one impact read of params, by param kind and ref.
type paramCache struct {
	c   *Cluster
	mu  sync.Mutex
	got map[string]*live.Params
}

// of are the params the binding's ref finds for a write in namespace, of the policy's param
// kind pk; none when the policy has no param kind or the binding no ref (the server evaluates
// with params null then). An error when the impact cannot tell which they are.
func (p *paramCache) of(ctx context.Context, pk *admissionregistrationv1.ParamKind, ref *admissionregistrationv1.ParamRef,
	namespace string) ([]*unstructured.Unstructured, error) {
	if pk == nil || ref == nil {
		return nil, nil
	}
	key := fmt.Sprintf("%s/%s %+v", pk.APIVersion, pk.Kind, *ref)
	p.mu.Lock()
	got, ok := p.got[key]
	if !ok {
		got = p.c.Reader.Params(ctx, pk, ref)
		p.got[key] = got
	}
	p.mu.Unlock()
	if got.Err != nil {
		return nil, fmt.Errorf("its params could not be looked up: %w", got.Err)
	}
	gvk := schema.FromAPIVersionAndKind(pk.APIVersion, pk.Kind)
	var out []*unstructured.Unstructured
	for i := range got.Listing.Items {
		o := &got.Listing.Items[i]
		if got.PerRequestNamespace && o.GetNamespace() != namespace {
			continue
		}
		o.SetGroupVersionKind(gvk)
		out = append(out, o)
	}
	if got.Namespaced && got.PerRequestNamespace && namespace == "" {
		// The server's error for a namespaced param kind and a cluster-scoped object; the
		// simulator gives the same with no params of that kind.
		return nil, nil
	}
	// With the lookup cut short, none found, or not all of a selector's, is not an answer.
	if !got.Listing.Complete() && (len(out) == 0 || ref.Name == "") {
		return nil, fmt.Errorf("its params could not all be read: %s", got.Where(ref)+": "+got.Listing.Examined())
	}
	return out, nil
}
