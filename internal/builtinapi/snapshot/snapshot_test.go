package snapshot

import (
	"encoding/json"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/restmapper"
)

func TestTrimKeepsWhatCELTypesAreBuiltFrom(t *testing.T) {
	var in map[string]any
	if err := json.Unmarshal([]byte(`{
		"description": "Deployment enables declarative updates", "type": "object", "required": ["spec"],
		"x-kubernetes-group-version-kind": [{"group": "apps", "version": "v1", "kind": "Deployment"}],
		"properties": {
			"spec": {"allOf": [{"$ref": "#/components/schemas/Spec"}], "default": {}, "description": "d"},
			"port": {"format": "int-or-string", "description": "d", "x-kubernetes-patch-strategy": "merge"},
			"list": {"type": "array", "items": {"type": "string", "enum": ["a"], "default": "a"},
				"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]},
			"map": {"type": "object", "additionalProperties": {"type": "string", "maxLength": 3, "description": "d"}},
			"any": {"type": "object", "additionalProperties": true, "x-kubernetes-preserve-unknown-fields": true}
		}}`), &in); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(trim(in))
	want := `{"properties":{` +
		`"any":{"additionalProperties":true,"type":"object","x-kubernetes-preserve-unknown-fields":true},` +
		`"list":{"items":{"enum":["a"],"type":"string"},"type":"array","x-kubernetes-list-map-keys":["name"],"x-kubernetes-list-type":"map"},` +
		`"map":{"additionalProperties":{"maxLength":3,"type":"string"},"type":"object"},` +
		`"port":{"format":"int-or-string"},` +
		`"spec":{"allOf":[{"$ref":"#/components/schemas/Spec"}]}},` +
		`"required":["spec"],"type":"object"}`
	if string(got) != want {
		t.Errorf("trim:\n got %s\nwant %s", got, want)
	}
	if r := refs(trim(in), nil); !reflect.DeepEqual(r, []string{"#/components/schemas/Spec"}) {
		t.Errorf("refs = %q", r)
	}
}

func TestEncodeDecode(t *testing.T) {
	s := &Snapshot{
		ServerVersion: "v1.37.2",
		Groups: []Group{{Name: "apps", PreferredVersion: "v1", Versions: []Version{{Version: "v1", Resources: []Resource{
			{Name: "deployments", SingularName: "deployment", Kind: "Deployment", Namespaced: true, Schema: "io.k8s.api.apps.v1.Deployment"},
		}}}}},
		Schemas: map[string]json.RawMessage{"io.k8s.api.apps.v1.Deployment": json.RawMessage(`{"type":"object"}`)},
	}
	data, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s, got) {
		t.Errorf("Decode(Encode(s)) = %+v, want %+v", got, s)
	}
	gvk := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	if name := got.KindSchemas()[gvk]; name != "io.k8s.api.apps.v1.Deployment" {
		t.Errorf("KindSchemas()[%v] = %q", gvk, name)
	}
	mapper := restmapper.NewDiscoveryRESTMapper(got.GroupResources())
	kinds, err := mapper.KindsFor(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"})
	if err != nil || len(kinds) != 1 || kinds[0] != gvk {
		t.Errorf("KindsFor(apps/v1 deployments) = %v, %v", kinds, err)
	}
	if _, err := Decode([]byte("not gzip")); err == nil {
		t.Error("Decode of garbage: no error")
	}
}
