package typecheck

import (
	"encoding/json"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/client-go/restmapper"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// BuiltinRESTMapper maps the resources built into kube-apiserver (the
// embedded snapshot) to their kinds and scopes, with no cluster.
func BuiltinRESTMapper() (meta.RESTMapper, error) {
	b, err := builtin()
	if err != nil {
		return nil, err
	}
	return b.mapper, nil
}

// BuiltinResources are the groups, versions and resources built into kube-apiserver (the
// embedded snapshot, subresources left out), as discovery lists them: what BuiltinRESTMapper is
// made of. They are shared: read them only.
func BuiltinResources() ([]*restmapper.APIGroupResources, error) {
	b, err := builtin()
	if err != nil {
		return nil, err
	}
	return b.groups, nil
}

// BuiltinSchemaResolver resolves the schemas of the kinds built into
// kube-apiserver (the embedded snapshot), with no cluster.
func BuiltinSchemaResolver() (resolver.SchemaResolver, error) {
	b, err := builtin()
	if err != nil {
		return nil, err
	}
	return b, nil
}

// BuiltinTypeConverter converts objects of the kinds built into
// kube-apiserver to structured-merge-diff typed values, as the server's
// type converter of mutating admission policies does from its OpenAPI v3
// document (k8s.io/apiserver pkg/admission/plugin/policy/mutating/patch
// typeConverterManager), with no cluster. It is built once.
func BuiltinTypeConverter() (managedfields.TypeConverter, error) { return builtinTypeConverter() }

var builtinTypeConverter = sync.OnceValues(func() (managedfields.TypeConverter, error) {
	b, err := builtin()
	if err != nil {
		return nil, err
	}
	schemas := make(map[string]*spec.Schema, len(b.raw))
	for name, raw := range b.raw {
		s := new(spec.Schema)
		if err := json.Unmarshal(raw, s); err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
		schemas[name] = s
	}
	// The snapshot keeps each kind's schema name beside it rather than the
	// x-kubernetes-group-version-kind extension the converter finds kinds by.
	gvks := map[string][]any{}
	for gvk, name := range b.kinds {
		gvks[name] = append(gvks[name], map[string]any{"group": gvk.Group, "version": gvk.Version, "kind": gvk.Kind})
	}
	for name, list := range gvks {
		if s, ok := schemas[name]; ok {
			s.AddExtension("x-kubernetes-group-version-kind", list)
		}
	}
	return managedfields.NewTypeConverter(schemas, false)
})
