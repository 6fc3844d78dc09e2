// Package builtinapi is the API built into kube-apiserver, known with no cluster: a snapshot of
// its discovery and OpenAPI v3 documents, trimmed to what CEL types are built from (package
// snapshot), taken by `go generate ./internal/builtinapi` from the local control plane of the
// acceptance tests (internal/gen) and kept fresh by TestAccBuiltinIsFresh. The snapshot is
// embedded and decoded once per process, when first used (Default).
//
// What it serves: a RESTMapper of the built-in resources (RESTMapper, and the discovery it is
// made of, Resources), their kinds' schemas (API.ResolveSchema) and a structured-merge-diff type
// converter of those kinds (TypeConverter).
package builtinapi

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/client-go/restmapper"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/builtinapi/snapshot"
)

// data is the snapshot of kube-apiserver's built-in API (go generate; generate.go).
//
//go:embed builtin.json.gz
var data []byte

// API is a decoded snapshot: a RESTMapper of the built-in resources and a schema resolver of
// their kinds. Each component schema is decoded from JSON when first needed. It is safe for
// concurrent use.
type API struct {
	version string // the kube-apiserver release ("v1.37.2")
	groups  []*restmapper.APIGroupResources
	mapper  meta.RESTMapper
	kinds   map[schema.GroupVersionKind]string
	raw     map[string]json.RawMessage

	mu      sync.Mutex
	decoded map[string]*spec.Schema

	typeConverter func() (managedfields.TypeConverter, error)
}

// Default is the embedded snapshot, decoded once per process and only when first asked for.
var Default = sync.OnceValues(func() (*API, error) { return Decode(data) })

// Decode reads a snapshot as snapshot.Snapshot.Encode wrote it (the embedded one is Default's).
func Decode(data []byte) (*API, error) {
	snap, err := snapshot.Decode(data)
	if err != nil {
		return nil, err
	}
	groups := snap.GroupResources()
	a := &API{
		version: snap.ServerVersion,
		groups:  groups,
		mapper:  restmapper.NewDiscoveryRESTMapper(groups),
		kinds:   snap.KindSchemas(),
		raw:     snap.Schemas,
		decoded: map[string]*spec.Schema{},
	}
	a.typeConverter = sync.OnceValues(a.newTypeConverter)
	return a, nil
}

// RESTMapper maps the built-in resources to their kinds and scopes.
func (a *API) RESTMapper() meta.RESTMapper { return a.mapper }

// Resources are the built-in groups, versions and resources (subresources left out), as
// discovery lists them: what RESTMapper is made of. They are shared: read them only.
func (a *API) Resources() []*restmapper.APIGroupResources { return a.groups }

// ResolveSchema implements k8s.io/apiserver pkg/cel/openapi/resolver SchemaResolver as
// ClientDiscoveryResolver does on the served document, with the refs populated by
// resolver.PopulateRefs. The error wraps resolver.ErrSchemaNotFound for a kind not built in.
func (a *API) ResolveSchema(gvk schema.GroupVersionKind) (*spec.Schema, error) {
	name, ok := a.kinds[gvk]
	if !ok {
		return nil, fmt.Errorf("%v is not built into kube-apiserver %s: %w", gvk, a.version, resolver.ErrSchemaNotFound)
	}
	return resolver.PopulateRefs(a.schema, snapshot.RefPrefix+name)
}

// schema returns the component schema that ref names, decoding it on first use. The schemas
// returned are shared: PopulateRefs copies what it changes.
func (a *API) schema(ref string) (*spec.Schema, bool) {
	name := strings.TrimPrefix(ref, snapshot.RefPrefix)
	a.mu.Lock()
	defer a.mu.Unlock()
	if s, ok := a.decoded[name]; ok {
		return s, true
	}
	raw, ok := a.raw[name]
	if !ok {
		return nil, false
	}
	s := new(spec.Schema)
	if err := json.Unmarshal(raw, s); err != nil {
		return nil, false
	}
	a.decoded[name] = s
	return s, true
}

// TypeConverter converts objects of the built-in kinds to structured-merge-diff typed values,
// as the server's type converter of mutating admission policies does from its OpenAPI v3
// document (k8s.io/apiserver pkg/admission/plugin/policy/mutating/patch typeConverterManager).
// It is built once per API.
func (a *API) TypeConverter() (managedfields.TypeConverter, error) { return a.typeConverter() }

func (a *API) newTypeConverter() (managedfields.TypeConverter, error) {
	schemas := make(map[string]*spec.Schema, len(a.raw))
	for name, raw := range a.raw {
		s := new(spec.Schema)
		if err := json.Unmarshal(raw, s); err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
		schemas[name] = s
	}
	// The snapshot keeps each kind's schema name beside it rather than the
	// x-kubernetes-group-version-kind extension the converter finds kinds by.
	gvks := map[string][]any{}
	for gvk, name := range a.kinds {
		gvks[name] = append(gvks[name], map[string]any{"group": gvk.Group, "version": gvk.Version, "kind": gvk.Kind})
	}
	for name, list := range gvks {
		if s, ok := schemas[name]; ok {
			s.AddExtension("x-kubernetes-group-version-kind", list)
		}
	}
	return managedfields.NewTypeConverter(schemas, false)
}

// RESTMapper maps the resources built into kube-apiserver (Default) to their kinds and scopes.
func RESTMapper() (meta.RESTMapper, error) {
	a, err := Default()
	if err != nil {
		return nil, err
	}
	return a.mapper, nil
}

// Resources are Default's Resources.
func Resources() ([]*restmapper.APIGroupResources, error) {
	a, err := Default()
	if err != nil {
		return nil, err
	}
	return a.groups, nil
}

// TypeConverter is Default's TypeConverter.
func TypeConverter() (managedfields.TypeConverter, error) {
	a, err := Default()
	if err != nil {
		return nil, err
	}
	return a.TypeConverter()
}
