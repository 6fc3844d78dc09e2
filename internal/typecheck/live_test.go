package typecheck_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/openapi"
	"k8s.io/client-go/openapi/openapitest"
	clienttesting "k8s.io/client-go/testing"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/live"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/typecheck"
)

// widgetDocument is the OpenAPI v3 document of example.com/v1, as kube-apiserver publishes it
// for a custom resource Widget (spec.size, spec.color, spec.extra of any fields).
const widgetDocument = `{"openapi":"3.0.0","components":{"schemas":{
 "com.example.v1.Widget":{"type":"object",
  "x-kubernetes-group-version-kind":[{"group":"example.com","version":"v1","kind":"Widget"}],
  "properties":{
   "apiVersion":{"type":"string"},"kind":{"type":"string"},
   "metadata":{"allOf":[{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}]},
   "spec":{"type":"object","properties":{"size":{"type":"integer"},"color":{"type":"string"},
     "extra":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}},
 "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta":{"type":"object","properties":{
   "name":{"type":"string"},"labels":{"type":"object","additionalProperties":{"type":"string"}}}}}}}`

// fakeCluster is a discovery client of a cluster that serves example.com/v1 widgets.
type fakeCluster struct {
	*fakediscovery.FakeDiscovery
	openapi *openapitest.FakeClient
}

func newFakeCluster() *fakeCluster {
	d := &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{}}
	d.Resources = []*metav1.APIResourceList{{
		GroupVersion: "example.com/v1",
		APIResources: []metav1.APIResource{{Name: "widgets", SingularName: "widget", Kind: "Widget", Namespaced: true}},
	}}
	oc := openapitest.NewFakeClient()
	oc.PathsMap["apis/example.com/v1"] = openapitest.FakeGroupVersion{GVSpec: []byte(widgetDocument)}
	return &fakeCluster{FakeDiscovery: d, openapi: oc}
}

func (f *fakeCluster) OpenAPIV3() openapi.Client { return f.openapi }

func (f *fakeCluster) OpenAPIV3WithContext(_ context.Context) openapi.ClientWithContext {
	return discovery.ToOpenAPIClientWithContext(f.openapi)
}

// counted returns a live function over d that counts its calls.
func counted(d discovery.DiscoveryInterface, err error) (func() (*live.Reader, error), *atomic.Int32) {
	var n atomic.Int32
	return func() (*live.Reader, error) {
		n.Add(1)
		if err != nil {
			return nil, err
		}
		return live.New(live.Clients{Discovery: d}, live.Limits{}), nil
	}, &n
}

func widgets() []admissionregistrationv1.NamedRuleWithOperations {
	return []admissionregistrationv1.NamedRuleWithOperations{rule("example.com", "v1", "widgets")}
}

func TestCustomResourceThroughLive(t *testing.T) {
	cluster, calls := counted(newFakeCluster(), nil)
	c := typecheck.New(cluster)

	// Built-in kinds only: the cluster is not asked.
	for range 3 {
		if got := c.ValidatingPolicy(policy(deployments(), "object.spec.replicass > 3")); len(got) != 1 {
			t.Fatalf("deployments: want one warning, got %q", got)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Fatalf("live called %d times for built-in kinds, want 0", n)
	}

	for i := range 10 {
		got := c.ValidatingPolicy(policy(widgets(), "object.spec.size > 3", "object.spec.sizee > 3", "object.metadata.name == 'w'"))
		want := "example.com/v1, Kind=Widget: ERROR: <input>:1:12: undefined field 'sizee'\n" +
			" | object.spec.sizee > 3\n" +
			" | ...........^\n"
		if len(got) != 1 || got[0].Field != "spec.validations[1].expression" || got[0].Message != want {
			t.Fatalf("policy %d: want one warning on validations[1]:\n%s\ngot %q", i, want, got)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("live called %d times, want 1", n)
	}
	if err := c.LiveError(); err != nil {
		t.Errorf("LiveError() = %v", err)
	}
}

func TestLiveFailureIsNoWarning(t *testing.T) {
	cluster, calls := counted(nil, errors.New("connection refused"))
	c := typecheck.New(cluster)
	p := policy(append(widgets(), deployments()...), "object.spec.sizee > 3")
	for range 3 {
		got := c.ValidatingPolicy(p)
		// Deployment has no spec.sizee either: its warning stays, the widget's is not there.
		if len(got) != 1 || !strings.HasPrefix(got[0].Message, "apps/v1, Kind=Deployment:") || strings.Contains(got[0].Message, "Widget") {
			t.Fatalf("want the Deployment's warning only, got %q", got)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("live called %d times, want 1", n)
	}
	if err := c.LiveError(); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("LiveError() = %v, want the failure", err)
	}
}

func TestNoLiveNoCustomResources(t *testing.T) {
	c := typecheck.New(nil)
	if got := c.ValidatingPolicy(policy(widgets(), "object.spec.sizee > 3")); len(got) != 0 {
		t.Errorf("want no warning, got %q", got)
	}
	if err := c.LiveError(); err == nil {
		t.Errorf("LiveError() = nil, want why there is no cluster")
	}
}

func TestCustomResourceParams(t *testing.T) {
	cluster, _ := counted(newFakeCluster(), nil)
	p := policy(deployments(), "object.spec.replicas <= params.spec.size", "params.spec.colour == 'red'")
	p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "example.com/v1", Kind: "Widget"}
	got := typecheck.New(cluster).ValidatingPolicy(p)
	if len(got) != 1 || got[0].Field != "spec.validations[1].expression" || !strings.Contains(got[0].Message, "undefined field 'colour'") {
		t.Errorf("want one warning about colour, got %q", got)
	}
}
