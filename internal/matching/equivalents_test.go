package matching

import (
	"context"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

var (
	hpaV1    = schema.GroupVersionResource{Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers"}
	hpaV2    = schema.GroupVersionResource{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"}
	eventsV1 = schema.GroupVersionResource{Version: "v1", Resource: "events"}
	eventsK8 = schema.GroupVersionResource{Group: "events.k8s.io", Version: "v1", Resource: "events"}
)

// The built-in equivalences: the versions of one group's resource, the events of the core
// group and of events.k8s.io (which share their storage), and the subresources with their
// kinds; a resource served at one version has itself alone.
func TestBuiltinEquivalents(t *testing.T) {
	e, err := BuiltinEquivalents()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		gr   schema.GroupResource
		sub  string
		want []schema.GroupVersionResource
	}{
		{hpaV1.GroupResource(), "", []schema.GroupVersionResource{hpaV2, hpaV1}},
		{hpaV1.GroupResource(), "status", []schema.GroupVersionResource{hpaV2, hpaV1}},
		{eventsK8.GroupResource(), "", []schema.GroupVersionResource{eventsV1, eventsK8}},
		{eventsV1.GroupResource(), "", []schema.GroupVersionResource{eventsV1, eventsK8}},
		{deploymentsGVR.GroupResource(), "", []schema.GroupVersionResource{deploymentsGVR}},
		{deploymentsGVR.GroupResource(), "scale", []schema.GroupVersionResource{deploymentsGVR}},
		{podsGVR.GroupResource(), "exec", []schema.GroupVersionResource{podsGVR}},
		{schema.GroupResource{Group: "example.com", Resource: "widgets"}, "", nil},
		{deploymentsGVR.GroupResource(), "nonsense", nil},
	} {
		if got := ServedAs(e, c.gr, c.sub); !slices.Equal(got, c.want) {
			t.Errorf("%s %q: got %v, want %v", c.gr, c.sub, got, c.want)
		}
	}
	for _, c := range []struct {
		gvr  schema.GroupVersionResource
		sub  string
		want schema.GroupVersionKind
	}{
		{hpaV1, "", hpaV1.GroupVersion().WithKind("HorizontalPodAutoscaler")},
		{hpaV2, "status", hpaV2.GroupVersion().WithKind("HorizontalPodAutoscaler")},
		{deploymentsGVR, "scale", schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}},
		{podsGVR, "eviction", schema.GroupVersionKind{Group: "policy", Version: "v1", Kind: "Eviction"}},
		{eventsK8, "", eventsK8.GroupVersion().WithKind("Event")},
	} {
		if got := e.KindFor(c.gvr, c.sub); got != c.want {
			t.Errorf("kind of %s %q: got %v, want %v", c.gvr, c.sub, got, c.want)
		}
	}
	scales := BuiltinSubresources("scale", schema.GroupKind{Group: "autoscaling", Kind: "Scale"})
	var parents []string
	for _, s := range scales {
		parents = append(parents, s.Resource.String())
	}
	if want := []string{"/v1, Resource=replicationcontrollers", "apps/v1, Resource=deployments", "apps/v1, Resource=replicasets", "apps/v1, Resource=statefulsets"}; !slices.Equal(parents, want) {
		t.Errorf("scale subresources: got %q, want %q", parents, want)
	}
	if got := BuiltinSubresources("status", schema.GroupKind{Kind: "Pod"}); len(got) != 1 || got[0].Resource != podsGVR || !got[0].Namespaced {
		t.Errorf("pods/status: got %v", got)
	}
}

// A webhook on autoscaling/v1 HPAs with matchPolicy Equivalent is called for an autoscaling/v2
// request with the resource and kind of its rule; with Exact it is not. One on events.k8s.io
// events is called for a core event.
func TestMatcherWithBuiltinEquivalents(t *testing.T) {
	e, err := BuiltinEquivalents()
	if err != nil {
		t.Fatal(err)
	}
	cfg := configuration(t, `
metadata: {name: hooks}
webhooks:
- name: hpa-equivalent.example.com
  matchPolicy: Equivalent
  rules: [{apiGroups: [autoscaling], apiVersions: [v1], operations: [CREATE], resources: [horizontalpodautoscalers]}]
- name: hpa-exact.example.com
  matchPolicy: Exact
  rules: [{apiGroups: [autoscaling], apiVersions: [v1], operations: [CREATE], resources: [horizontalpodautoscalers]}]
- name: events.example.com
  rules: [{apiGroups: [events.k8s.io], apiVersions: [v1], operations: [CREATE], resources: [events]}]
`)
	hooks := MutatingWebhooks(cfg)
	m := newMatcher(t, Config{Namespaces: SyntheticNamespaces(), Equivalents: e})
	ctx := context.Background()
	hpa := request(hpaV2, "HorizontalPodAutoscaler", "apps", nil, "alice")
	if a := m.Webhook(ctx, hooks[0], hpa); a.Outcome != Called || a.Resource != hpaV1 || a.Kind != hpaV1.GroupVersion().WithKind("HorizontalPodAutoscaler") {
		t.Errorf("equivalent: got %+v", a)
	}
	if a := m.Webhook(ctx, hooks[1], hpa); a.Outcome != NotCalled || a.Reason != SkippedByRules {
		t.Errorf("exact: got %+v", a)
	}
	event := request(eventsV1, "Event", "apps", nil, "alice")
	if a := m.Webhook(ctx, hooks[2], event); a.Outcome != Called || a.Resource != eventsK8 || a.Kind != eventsK8.GroupVersion().WithKind("Event") {
		t.Errorf("events: got %+v", a)
	}
}

// A CustomResourceDefinition's versions are one another's equivalents, with their status and
// scale subresources, whether served or not, as the server registers them.
func TestCRDServed(t *testing.T) {
	crd := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {plural: widgets, kind: Widget}
  scope: Cluster
  versions:
  - {name: v2, served: true, storage: true, subresources: {status: {}, scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}}}
  - {name: v1, served: false, storage: false}
`), &crd.Object); err != nil {
		t.Fatal(err)
	}
	served, err := CRDServed(crd)
	if err != nil {
		t.Fatal(err)
	}
	v1 := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	v2 := v1.GroupResource().WithVersion("v2")
	want := []Served{
		{Resource: v2, Kind: v2.GroupVersion().WithKind("Widget")},
		{Resource: v2, Subresource: "status", Kind: v2.GroupVersion().WithKind("Widget")},
		{Resource: v2, Subresource: "scale", Kind: schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}},
		{Resource: v1, Kind: v1.GroupVersion().WithKind("Widget")},
	}
	if !slices.Equal(served, want) {
		t.Fatalf("got %+v", served)
	}
	e := NewEquivalents(served...)
	if got := ServedAs(e, v1.GroupResource(), ""); !slices.Equal(got, []schema.GroupVersionResource{v2, v1}) {
		t.Errorf("got %v", got)
	}
	if got := ServedAs(e, v1.GroupResource(), "scale"); !slices.Equal(got, []schema.GroupVersionResource{v2}) {
		t.Errorf("scale: got %v", got)
	}
	delete(crd.Object, "spec")
	if _, err := CRDServed(crd); err == nil {
		t.Error("a definition without a group and names: no error")
	}
}

// Discovery's lists: a subresource's kind in another group version (deployments/scale) is
// that group version's; one without its own is the list's.
func TestDiscoveryServed(t *testing.T) {
	served := DiscoveryServed([]*metav1.APIResourceList{
		{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{
			{Name: "deployments", Kind: "Deployment", Namespaced: true},
			{Name: "deployments/scale", Group: "autoscaling", Version: "v1", Kind: "Scale", Namespaced: true},
			{Name: "deployments/status", Kind: "Deployment", Namespaced: true},
		}},
		nil,
	})
	want := []Served{
		{Resource: deploymentsGVR, Kind: deploymentsGVR.GroupVersion().WithKind("Deployment"), Namespaced: true},
		{Resource: deploymentsGVR, Subresource: "scale", Kind: schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}, Namespaced: true},
		{Resource: deploymentsGVR, Subresource: "status", Kind: deploymentsGVR.GroupVersion().WithKind("Deployment"), Namespaced: true},
	}
	if !slices.Equal(served, want) {
		t.Fatalf("got %+v", served)
	}
}
