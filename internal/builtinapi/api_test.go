package builtinapi

import (
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
)

func TestDefault(t *testing.T) {
	a, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if a.version != "v1.37.2" {
		t.Errorf("version = %q, want v1.37.2 (the kube-apiserver of tools/kube-apiserver/go.mod)", a.version)
	}
	deployments := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	m, err := RESTMapper()
	if err != nil {
		t.Fatal(err)
	}
	if gvk, err := m.KindFor(deployments); err != nil || gvk.Kind != "Deployment" {
		t.Errorf("KindFor(%v) = %v, %v", deployments, gvk, err)
	}
	s, err := a.ResolveSchema(deployments.GroupVersion().WithKind("Deployment"))
	if err != nil || s.Properties["spec"].Properties["replicas"].Type[0] != "integer" {
		t.Errorf("ResolveSchema(Deployment): spec.replicas not an integer (%v)", err)
	}
	if _, err := a.ResolveSchema(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}); !errors.Is(err, resolver.ErrSchemaNotFound) {
		t.Errorf("ResolveSchema(Widget) = %v, want ErrSchemaNotFound", err)
	}
	if _, err := Decode([]byte("not gzip")); err == nil {
		t.Error("Decode of garbage: no error")
	}
}

// BenchmarkDecode measures decoding the embedded snapshot (gunzip and the outer JSON; each
// schema is decoded when first resolved).
func BenchmarkDecode(b *testing.B) {
	for b.Loop() {
		if _, err := Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}
