package typecheck

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/live"
)

// liveAPI is what a live cluster adds to the built-in API: its custom resources (and whatever
// else it serves), through its discovery and its OpenAPI v3 documents as internal/live reads
// them.
type liveAPI struct {
	mapper   meta.RESTMapper
	resolver resolver.SchemaResolver
}

// newLiveAPI reads the cluster's discovery once (live.Reader.RESTMapper). The OpenAPI v3
// documents are fetched when first needed and kept (live.Reader.SchemaResolver), so nothing is
// asked twice. With a partial answer (an aggregated API down), the rest is mapped and the
// error says which groups failed.
func newLiveAPI(r *live.Reader) (*liveAPI, error) {
	m, err := r.RESTMapper(context.Background())
	if m == nil {
		return nil, err
	}
	return &liveAPI{mapper: m, resolver: r.SchemaResolver()}, err
}
