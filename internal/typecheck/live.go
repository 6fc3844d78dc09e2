package typecheck

import (
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/restmapper"
)

// liveAPI is what a live cluster adds to the built-in API: its custom resources (and whatever
// else it serves), through its discovery and its OpenAPI v3 documents.
type liveAPI struct {
	mapper   meta.RESTMapper
	resolver resolver.SchemaResolver
}

// newLiveAPI reads the cluster's discovery once. The OpenAPI v3 paths and each group
// version's document are fetched when first needed and kept, failures included (client-go
// discovery/cached/memory over openapi/cached), so nothing is asked twice.
func newLiveAPI(dc discovery.DiscoveryInterface) (*liveAPI, error) {
	cached := memory.NewMemCacheClient(dc)
	groups, err := restmapper.GetAPIGroupResources(cached)
	if groups == nil {
		// Without even a partial answer there is nothing to map; a partial one (an
		// aggregated API down) still maps the rest.
		return nil, err
	}
	return &liveAPI{
		mapper:   restmapper.NewDiscoveryRESTMapper(groups),
		resolver: &resolver.ClientDiscoveryResolver{Discovery: cached},
	}, nil
}
