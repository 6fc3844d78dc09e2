package typecheck

import (
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
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

// BuiltinSchemaResolver resolves the schemas of the kinds built into
// kube-apiserver (the embedded snapshot), with no cluster.
func BuiltinSchemaResolver() (resolver.SchemaResolver, error) {
	b, err := builtin()
	if err != nil {
		return nil, err
	}
	return b, nil
}
