package live

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	servicesResource       = schema.GroupResource{Resource: "services"}
	endpointSlicesResource = schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}
)

// Service reads the Service namespace/name: nil, nil when there is none.
func (r *Reader) Service(ctx context.Context, namespace, name string) (*corev1.Service, error) {
	ctx, cancel := r.within(ctx)
	defer cancel()
	what := fmt.Sprintf("service %q in namespace %q", name, namespace)
	if r.clients.Typed == nil {
		return nil, &ReadError{What: what, Resource: servicesResource, Failure: Unreached, Err: fmt.Errorf("no client")}
	}
	svc, err := r.clients.Typed.CoreV1().Services(namespace).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, readError(ctx, what, servicesResource, err)
	}
	return svc, nil
}

// EndpointSlices are the EndpointSlices of the Service namespace/name (those labelled
// kubernetes.io/service-name with its name, as the server's proxy finds them:
// k8s.io/apiserver pkg/util/proxy NewEndpointSliceListerGetter), read as List reads.
func (r *Reader) EndpointSlices(ctx context.Context, namespace, service string) ([]discoveryv1.EndpointSlice, error) {
	l := r.List(ctx, endpointSlicesResource, namespace, metav1.ListOptions{
		LabelSelector: labels.SelectorFromSet(labels.Set{discoveryv1.LabelServiceName: service}).String()})
	if l.Stopped != nil {
		return nil, l.Stopped
	}
	out := make([]discoveryv1.EndpointSlice, len(l.Items))
	for i := range l.Items {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(l.Items[i].Object, &out[i]); err != nil {
			return nil, &ReadError{What: "the endpointslices of " + fmt.Sprintf("service %q in namespace %q", service, namespace),
				Resource: endpointSlicesResource.GroupResource(), Failure: Failed, Err: err}
		}
	}
	return out, nil
}

// BackendState is what the API server finds when it calls a webhook's service.
type BackendState int

const (
	// BackendUnknown: the service could not be read (Backend.Err), or it is one whose backends
	// the check cannot see (an ExternalName service points outside the cluster).
	BackendUnknown BackendState = iota
	// BackendReady: the service has the port, and an endpoint of that port is ready.
	BackendReady
	// BackendNoService: there is no such Service.
	BackendNoService
	// BackendNoPort: the Service has no port of that number.
	BackendNoPort
	// BackendNoEndpoint: the Service has the port, but no ready endpoint serves it.
	BackendNoEndpoint
)

// Backend is what a webhook's service reference reaches on the cluster.
type Backend struct {
	State   BackendState
	Service *corev1.Service
	// Problem is what the API server says when it calls the service and finds what State says,
	// in its words (k8s.io/apiserver pkg/util/proxy ResolveEndpoint): `services "x" not found`,
	// `no service port 443 found for service "x"`, `no endpoints available for service "x"`;
	// nil when it is ready or not known.
	Problem error
	// Err is why the state is not known (a *ReadError), nil when it is.
	Err error
}

// Backend looks up the Service namespace/name and its EndpointSlices, and says whether the API
// server, calling it on port, finds a ready endpoint: the server's own resolution of a service
// to one of its endpoints (k8s.io/apiserver pkg/util/proxy ResolveEndpoint: the service's port
// of that number, then an endpoint of a slice that serves that port's name and is not marked
// not ready), over what was read. A server that routes webhook calls to the service's cluster IP
// instead (kube-apiserver without --enable-aggregator-routing) reaches the same endpoints
// through it, so the answer is the same.
func (r *Reader) Backend(ctx context.Context, namespace, name string, port int32) Backend {
	svc, err := r.Service(ctx, namespace, name)
	switch {
	case err != nil:
		return Backend{Err: err}
	case svc == nil:
		return Backend{State: BackendNoService, Problem: apierrors.NewNotFound(servicesResource, name)}
	case svc.Spec.Type == corev1.ServiceTypeExternalName:
		return Backend{Service: svc}
	}
	var svcPort *corev1.ServicePort
	for i := range svc.Spec.Ports {
		if svc.Spec.Ports[i].Port == port {
			svcPort = &svc.Spec.Ports[i]
			break
		}
	}
	if svcPort == nil {
		return Backend{State: BackendNoPort, Service: svc, Problem: apierrors.NewServiceUnavailable(
			fmt.Sprintf("no service port %d found for service %q", port, svc.Name))}
	}
	found, err := r.EndpointSlices(ctx, namespace, name)
	if err != nil {
		return Backend{Service: svc, Err: err}
	}
	if !readyEndpoint(found, svcPort.Name) {
		return Backend{State: BackendNoEndpoint, Service: svc, Problem: apierrors.NewServiceUnavailable(
			fmt.Sprintf("no endpoints available for service %q", svc.Name))}
	}
	return Backend{State: BackendReady, Service: svc}
}

// readyEndpoint reports whether one of slices has an endpoint the server's proxy would pick
// for the service port named portName (k8s.io/apiserver pkg/util/proxy RandomEndpoint): a
// slice port of that name with a number, and an endpoint not marked not ready (a ready
// condition left unset counts as ready).
func readyEndpoint(slices []discoveryv1.EndpointSlice, portName string) bool {
	for _, slice := range slices {
		for _, p := range slice.Ports {
			if p.Name == nil || *p.Name != portName || p.Port == nil {
				continue
			}
			for _, ep := range slice.Endpoints {
				if (ep.Conditions.Ready == nil || *ep.Conditions.Ready) && len(ep.Addresses) > 0 {
					return true
				}
			}
		}
	}
	return false
}
