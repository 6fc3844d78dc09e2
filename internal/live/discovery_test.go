package live

import (
	"context"
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	fakediscovery "k8s.io/client-go/discovery/fake"
	clienttesting "k8s.io/client-go/testing"
)

// partialDiscovery serves pods and example.com/v1 widgets; the discovery of metrics.k8s.io
// (an aggregated API that is down) fails.
func partialDiscovery() *fakediscovery.FakeDiscovery {
	d := &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{}}
	d.Resources = []*metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{{Name: "pods", Kind: "Pod", Namespaced: true}}},
		{GroupVersion: "example.com/v1", APIResources: []metav1.APIResource{{Name: "widgets", Kind: "Widget"}}},
	}
	metrics := schema.GroupVersion{Group: "metrics.k8s.io", Version: "v1beta1"}
	d.AddReactor("get", "resource", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, &discovery.ErrGroupDiscoveryFailed{Groups: map[schema.GroupVersion]error{metrics: errors.New("service unavailable")}}
	})
	return d
}

func TestPartialDiscoveryIsReported(t *testing.T) {
	ctx := context.Background()
	r := New(Clients{Discovery: partialDiscovery()}, Limits{})

	m, err := r.RESTMapper(ctx)
	if m == nil {
		t.Fatalf("RESTMapper: no mapper of what was read (%v)", err)
	}
	var re *ReadError
	if failed, ok := FailedGroups(err); !ok || len(failed) != 1 || !errors.As(err, &re) || re.Failure != Failed {
		t.Errorf("RESTMapper: error %v, want a Failed *ReadError naming metrics.k8s.io/v1beta1", err)
	}
	if vs, err := r.ServedVersions(ctx, schema.GroupResource{Resource: "pods"}); err != nil || len(vs) != 1 || vs[0] != "v1" {
		t.Errorf("ServedVersions(pods) = %v, %v; want [v1] of the groups that were read", vs, err)
	}
	if vs, err := r.ServedVersions(ctx, schema.GroupResource{Group: "metrics.k8s.io", Resource: "pods"}); err == nil {
		t.Errorf("ServedVersions(pods.metrics.k8s.io) = %v, no error: its group's discovery failed", vs)
	}
	if _, namespaced, err := r.Resource(ctx, "example.com/v1", "Widget"); err != nil || namespaced {
		t.Errorf("Resource(Widget) = namespaced %v, %v", namespaced, err)
	}
	if _, _, err := r.Resource(ctx, "metrics.k8s.io/v1beta1", "PodMetrics"); !errors.As(err, &re) {
		t.Errorf("Resource(PodMetrics) = %v, want a *ReadError", err)
	} else if _, ok := FailedGroups(err); !ok {
		t.Errorf("Resource(PodMetrics) = %v, want the failure of its group's discovery, not a kind not served", err)
	}

	groups, lists, err := r.GroupsAndResources(ctx)
	if len(groups) != 2 || len(lists) != 2 {
		t.Errorf("GroupsAndResources: %d groups, %d lists; want what was read, 2 of each", len(groups), len(lists))
	}
	if failed, ok := FailedGroups(err); !ok || failed[schema.GroupVersion{Group: "metrics.k8s.io", Version: "v1beta1"}] == nil {
		t.Errorf("GroupsAndResources: error %v, want the failed group", err)
	}
}

func TestFailedDiscovery(t *testing.T) {
	d := &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{}}
	d.AddReactor("get", "group", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("connection refused")
	})
	r := New(Clients{Discovery: d}, Limits{})
	if m, err := r.RESTMapper(context.Background()); m != nil || err == nil {
		t.Errorf("RESTMapper = %v, %v; want no mapper and the error", m, err)
	}
	if g, l, err := r.GroupsAndResources(context.Background()); g != nil || l != nil || err == nil {
		t.Errorf("GroupsAndResources = %v, %v, %v; want only the error", g, l, err)
	}
	if _, err := New(Clients{}, Limits{}).RESTMapper(context.Background()); err == nil {
		t.Error("RESTMapper without a discovery client: no error")
	}
	if New(Clients{}, Limits{}).SchemaResolver() != nil {
		t.Error("SchemaResolver without a discovery client: not nil")
	}
}
