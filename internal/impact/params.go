package impact

import (
	"context"
	"fmt"
	"strings"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The params of a binding are read from the cluster as the server's policy source finds them
// (k8s.io/apiserver pkg/admission/plugin/policy/generic CollectParams): by paramRef.name or
// paramRef.selector, in paramRef.namespace, else, for a namespaced param kind, in the
// namespace of the object written. The simulator is given what was found, and decides with
// parameterNotFoundAction when it is nothing.

// maxParams is the most params a selector finds that are read.
const maxParams = 100

type paramKey struct {
	gvr       schema.GroupVersionResource
	namespace string
	name      string
	selector  string
}

type paramsGot struct {
	objects []*unstructured.Unstructured
	err     error
}

// paramCache is what one impact read of params, by where it looked.
type paramCache struct {
	c   *Cluster
	mu  sync.Mutex
	got map[paramKey]paramsGot
}

// of are the params the binding's ref finds for an object in namespace, of the policy's param
// kind pk; none when the policy has no param kind or the binding no ref (the server evaluates
// with params null then). An error when they could not be read.
func (p *paramCache) of(ctx context.Context, pk *admissionregistrationv1.ParamKind, ref *admissionregistrationv1.ParamRef,
	namespace string) ([]*unstructured.Unstructured, error) {
	if pk == nil || ref == nil {
		return nil, nil
	}
	res, err := p.c.resourceOfKind(pk)
	if err != nil {
		return nil, err
	}
	if res == nil {
		// The server cannot resolve the kind either: its policy source makes the policy a
		// configuration error (failurePolicy decides), which the simulator does not hold.
		return nil, fmt.Errorf("the param kind %s %s is not served by the cluster", pk.APIVersion, pk.Kind)
	}
	key := paramKey{gvr: res.GVR, name: ref.Name}
	if res.Namespaced {
		key.namespace = namespace
		if ref.Namespace != "" {
			key.namespace = ref.Namespace
		}
	}
	if ref.Selector != nil {
		sel, err := metav1.LabelSelectorAsSelector(ref.Selector)
		if err != nil {
			return nil, err
		}
		key.selector = sel.String()
	}
	p.mu.Lock()
	got, ok := p.got[key]
	p.mu.Unlock()
	if ok {
		return got.objects, got.err
	}
	got = p.read(ctx, *res, key, ref.Selector != nil)
	p.mu.Lock()
	p.got[key] = got
	p.mu.Unlock()
	return got.objects, got.err
}

func (p *paramCache) read(ctx context.Context, res Resource, key paramKey, bySelector bool) paramsGot {
	client := p.c.Dynamic.Resource(res.GVR)
	var ri interface {
		Get(context.Context, string, metav1.GetOptions, ...string) (*unstructured.Unstructured, error)
		List(context.Context, metav1.ListOptions) (*unstructured.UnstructuredList, error)
	} = client
	if res.Namespaced {
		if key.namespace == "" {
			// The server's error for a namespaced param kind and a cluster-scoped object.
			return paramsGot{err: fmt.Errorf("cannot use namespaced paramRef in policy binding that matches cluster-scoped resources")}
		}
		ri = client.Namespace(key.namespace)
	}
	where := res.String()
	if key.namespace != "" {
		where += " in namespace " + key.namespace
	}
	if !bySelector {
		obj, err := ri.Get(ctx, key.name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			return paramsGot{}
		case err != nil:
			return paramsGot{err: fmt.Errorf("its param could not be read: %s", describeErr(where, err))}
		}
		obj.SetGroupVersionKind(res.Kind)
		return paramsGot{objects: []*unstructured.Unstructured{obj}}
	}
	list, err := ri.List(ctx, metav1.ListOptions{LabelSelector: key.selector, Limit: maxParams})
	if err != nil {
		return paramsGot{err: fmt.Errorf("its params could not be listed: %s", describeErr(where, err))}
	}
	if list.GetContinue() != "" {
		return paramsGot{err: fmt.Errorf("its param selector finds more than %d %s, the most that are read", maxParams, where)}
	}
	out := make([]*unstructured.Unstructured, len(list.Items))
	for i := range list.Items {
		list.Items[i].SetGroupVersionKind(res.Kind)
		out[i] = &list.Items[i]
	}
	return paramsGot{objects: out}
}

// resourceOfKind is the resource of the param kind pk, nil when the cluster does not serve it.
func (c *Cluster) resourceOfKind(pk *admissionregistrationv1.ParamKind) (*Resource, error) {
	served, err := c.Served()
	if err != nil {
		return nil, err
	}
	gv, err := schema.ParseGroupVersion(pk.APIVersion)
	if err != nil {
		return nil, err
	}
	for _, list := range served.Resources {
		if list.GroupVersion != gv.String() {
			continue
		}
		for _, ar := range list.APIResources {
			if ar.Kind == pk.Kind && ar.Name != "" && !strings.Contains(ar.Name, "/") {
				return &Resource{GVR: gv.WithResource(ar.Name), Kind: gv.WithKind(pk.Kind), Namespaced: ar.Namespaced}, nil
			}
		}
	}
	return nil, nil
}
