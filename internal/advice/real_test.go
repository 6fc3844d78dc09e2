package advice

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/live"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

// realConfigurations are the webhook configurations of testdata/real, by file name, defaulted,
// both kinds in the mutating type.
func realConfigurations(t *testing.T) map[string]*admissionregistrationv1.MutatingWebhookConfiguration {
	t.Helper()
	files, err := filepath.Glob("testdata/real/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("testdata/real: %v", err)
	}
	out := map[string]*admissionregistrationv1.MutatingWebhookConfiguration{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		js, err := yaml.YAMLToJSON(data)
		if err != nil {
			t.Fatal(err)
		}
		obj := &admissionregistrationv1.MutatingWebhookConfiguration{}
		if err := json.Unmarshal(js, obj); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[filepath.Base(f)] = validation.Default(obj)
	}
	return out
}

// The webhooks' services in the public projects' configurations (testdata/real), on a cluster
// (client-go's fakes) where each has its port and a ready endpoint: no warning; on a cluster
// where none exists: one warning on the service of each fail-closed webhook that calls a
// service, none for the others.
func TestBackendRealConfigurations(t *testing.T) {
	ctx := context.Background()
	endpointSlices := schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}
	failClosed := 0
	for name, obj := range realConfigurations(t) {
		// The services the webhooks call, each with the ports they call it on, and a ready
		// endpoint behind each port.
		type ref struct{ namespace, name string }
		ports := map[ref][]int32{}
		want := map[string]bool{}
		for i, h := range obj.Webhooks {
			svc := h.ClientConfig.Service
			if svc == nil {
				continue
			}
			if failsClosed(h.FailurePolicy) {
				want[fmt.Sprintf("webhooks[%d].clientConfig.service", i)] = true
			}
			r := ref{svc.Namespace, svc.Name}
			if !slices.Contains(ports[r], *svc.Port) {
				ports[r] = append(ports[r], *svc.Port)
			}
		}
		var objs, endpoints []runtime.Object
		ready := true
		for r, ps := range ports {
			svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: r.namespace, Name: r.name}}
			slice := &discoveryv1.EndpointSlice{
				ObjectMeta:  metav1.ObjectMeta{Namespace: r.namespace, Name: r.name + "-1", Labels: map[string]string{discoveryv1.LabelServiceName: r.name}},
				AddressType: discoveryv1.AddressTypeIPv4,
				Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.1"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}},
			}
			for _, p := range ps {
				portName := fmt.Sprintf("port-%d", p)
				svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Name: portName, Port: p})
				slice.Ports = append(slice.Ports, discoveryv1.EndpointPort{Name: &portName, Port: ptr(p + 8000)})
			}
			objs, endpoints = append(objs, svc), append(endpoints, slice)
		}
		failClosed += len(want)
		reader := func(objs, endpoints []runtime.Object) *live.Reader {
			return live.New(live.Clients{Typed: fake.NewClientset(objs...),
				Dynamic: dynamicfake.NewSimpleDynamicClientWithCustomListKinds(clientgoscheme.Scheme,
					map[schema.GroupVersionResource]string{endpointSlices: "EndpointSliceList"}, endpoints...)}, live.Limits{})
		}
		if ws := BackendWarnings(ctx, reader(objs, endpoints), obj, nil); len(ws) != 0 {
			t.Errorf("%s, its services ready: %v", name, ws)
		}
		ws := BackendWarnings(ctx, reader(nil, nil), obj, nil)
		got := map[string]bool{}
		for _, w := range ws {
			if w.Summary != SummaryNoService || w.Kind != warning.Outage {
				t.Errorf("%s, no services: %v", name, w)
			}
			got[w.Path.String()] = true
		}
		if len(ws) != len(want) || !maps.Equal(got, want) {
			t.Errorf("%s, no services: warnings at %v, want at %v", name, got, want)
		}
	}
	if failClosed == 0 {
		t.Error("no fail-closed webhook with a service in testdata/real")
	}
	t.Logf("%d fail-closed webhooks with a service in testdata/real", failClosed)
}
