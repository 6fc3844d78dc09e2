package typecheck

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/client-go/restmapper"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/typecheck/internal/snapshot"
)

// builtinData is the snapshot of kube-apiserver's built-in API (go generate; generate.go).
//
//go:embed builtin.json.gz
var builtinData []byte

// builtinAPI is the decoded snapshot: a RESTMapper of the built-in resources and a schema
// resolver of their kinds. Each component schema is decoded from JSON when first needed.
type builtinAPI struct {
	version string
	groups  []*restmapper.APIGroupResources
	mapper  meta.RESTMapper
	kinds   map[schema.GroupVersionKind]string
	raw     map[string]json.RawMessage

	mu      sync.Mutex
	decoded map[string]*spec.Schema
}

// builtin decodes the embedded snapshot, once per process and only when first used.
var builtin = sync.OnceValues(func() (*builtinAPI, error) { return decodeBuiltin(builtinData) })

func decodeBuiltin(data []byte) (*builtinAPI, error) {
	snap, err := snapshot.Decode(data)
	if err != nil {
		return nil, err
	}
	groups := snap.GroupResources()
	return &builtinAPI{
		version: snap.ServerVersion,
		groups:  groups,
		mapper:  restmapper.NewDiscoveryRESTMapper(groups),
		kinds:   snap.KindSchemas(),
		raw:     snap.Schemas,
		decoded: map[string]*spec.Schema{},
	}, nil
}

// ResolveSchema implements k8s.io/apiserver pkg/cel/openapi/resolver SchemaResolver as
// ClientDiscoveryResolver does on the served document, with the refs populated by
// resolver.PopulateRefs. The error wraps resolver.ErrSchemaNotFound for a kind not built in.
func (b *builtinAPI) ResolveSchema(gvk schema.GroupVersionKind) (*spec.Schema, error) {
	name, ok := b.kinds[gvk]
	if !ok {
		return nil, fmt.Errorf("%v is not built into kube-apiserver %s: %w", gvk, b.version, resolver.ErrSchemaNotFound)
	}
	return resolver.PopulateRefs(b.schema, snapshot.RefPrefix+name)
}

// schema returns the component schema that ref names, decoding it on first use. The schemas
// returned are shared: PopulateRefs copies what it changes.
func (b *builtinAPI) schema(ref string) (*spec.Schema, bool) {
	name := strings.TrimPrefix(ref, snapshot.RefPrefix)
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, ok := b.decoded[name]; ok {
		return s, true
	}
	raw, ok := b.raw[name]
	if !ok {
		return nil, false
	}
	s := new(spec.Schema)
	if err := json.Unmarshal(raw, s); err != nil {
		return nil, false
	}
	b.decoded[name] = s
	return s, true
}
