package live

import (
	"context"
	"errors"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/openapi"
	"k8s.io/client-go/restmapper"
)

// discoveryWhat is what a read of discovery reads, in the words of a ReadError.
const discoveryWhat = "the cluster's API resources"

// RESTMapper is the cluster's discovery as a RESTMapper, read on first use (two requests with
// aggregated discovery) within the reader's time, and kept; a read that gave nothing is not
// kept, so the next use asks again. When some group versions could not be read (an aggregated
// API that is down), the mapper maps the others and the error, kept with it, says which
// (FailedGroups); with no answer at all there is no mapper, and a *ReadError.
func (r *Reader) RESTMapper(ctx context.Context) (meta.RESTMapper, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mapper != nil {
		return r.mapper, r.mapperErr
	}
	groups, lists, err := r.GroupsAndResources(ctx)
	if groups == nil {
		return nil, err
	}
	r.mapper = restmapper.NewDiscoveryRESTMapper(groupResources(groups, lists))
	r.mapperErr = err
	return r.mapper, r.mapperErr
}

// groupResources are the groups and resources of discovery in the form of
// restmapper.NewDiscoveryRESTMapper, as restmapper.GetAPIGroupResources makes them: it reads
// discovery itself and drops the error of a partial answer, which the callers here report.
func groupResources(groups []*metav1.APIGroup, lists []*metav1.APIResourceList) []*restmapper.APIGroupResources {
	byGV := make(map[string]*metav1.APIResourceList, len(lists))
	for _, l := range lists {
		byGV[l.GroupVersion] = l
	}
	out := make([]*restmapper.APIGroupResources, 0, len(groups))
	for _, g := range groups {
		gr := &restmapper.APIGroupResources{Group: *g, VersionedResources: map[string][]metav1.APIResource{}}
		for _, v := range g.Versions {
			if l, ok := byGV[v.GroupVersion]; ok {
				gr.VersionedResources[v.Version] = l.APIResources
			}
		}
		out = append(out, gr)
	}
	return out
}

// GroupsAndResources are the cluster's API groups and the resources of every version of each
// (discovery.ServerGroupsAndResources), read within the reader's time, and not kept. When some
// group versions could not be read, what the others serve comes with a *ReadError that says
// which (FailedGroups); with no answer at all, only the error.
func (r *Reader) GroupsAndResources(ctx context.Context) ([]*metav1.APIGroup, []*metav1.APIResourceList, error) {
	if r.clients.Discovery == nil {
		return nil, nil, &ReadError{What: discoveryWhat, Failure: Unreached, Err: errors.New("no discovery client")}
	}
	ctx, cancel := r.within(ctx)
	defer cancel()
	groups, lists, err := discovery.ToDiscoveryInterfaceWithContext(r.clients.Discovery).ServerGroupsAndResourcesWithContext(ctx)
	if err == nil && (groups == nil || lists == nil) {
		err = errors.New("discovery gave no API groups")
	}
	if err != nil {
		err = readError(ctx, discoveryWhat, schema.GroupResource{}, err)
		if _, partial := FailedGroups(err); !partial || groups == nil || lists == nil {
			return nil, nil, err
		}
	}
	return groups, lists, err
}

// FailedGroups are the group versions whose discovery failed, by group version, when err (of
// RESTMapper or GroupsAndResources) is that some did.
func FailedGroups(err error) (map[schema.GroupVersion]error, bool) {
	return discovery.GroupDiscoveryFailedErrorGroups(err)
}

// groupFailed tells whether err is that the discovery of a version of group failed.
func groupFailed(err error, group string) bool {
	failed, _ := FailedGroups(err)
	for gv := range failed {
		if gv.Group == group {
			return true
		}
	}
	return false
}

// SchemaResolver resolves kinds through the cluster's OpenAPI v3 documents, as kube-apiserver's
// own type checker does (k8s.io/apiserver pkg/cel/openapi/resolver ClientDiscoveryResolver),
// each request within the reader's time. The documents' paths and each group version's
// document are fetched when first needed and kept, failures included (client-go
// discovery/cached/memory over openapi/cached), so nothing is asked twice. Nil without a
// discovery client.
func (r *Reader) SchemaResolver() resolver.SchemaResolver {
	if r.clients.Discovery == nil {
		return nil
	}
	return &resolver.ClientDiscoveryResolver{
		Discovery: memory.NewMemCacheClient(boundedOpenAPI{r.clients.Discovery, r.limits.Time}),
	}
}

// boundedOpenAPI is a discovery client whose OpenAPI v3 requests each take at most time.
type boundedOpenAPI struct {
	discovery.DiscoveryInterface
	time time.Duration
}

func (d boundedOpenAPI) OpenAPIV3() openapi.Client {
	return boundedPaths{discovery.OpenAPIV3ToSchemaInterfaceWithContext(d.DiscoveryInterface).OpenAPIV3WithContext(context.Background()), d.time}
}

type boundedPaths struct {
	client openapi.ClientWithContext
	time   time.Duration
}

func (c boundedPaths) Paths() (map[string]openapi.GroupVersion, error) {
	ctx, cancel := context.WithTimeout(context.Background(), c.time)
	defer cancel()
	paths, err := c.client.PathsWithContext(ctx)
	out := make(map[string]openapi.GroupVersion, len(paths))
	for path, gv := range paths {
		out[path] = boundedDocument{gv, c.time}
	}
	return out, err
}

type boundedDocument struct {
	openapi.GroupVersionWithContext
	time time.Duration
}

func (g boundedDocument) Schema(contentType string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), g.time)
	defer cancel()
	return g.SchemaWithContext(ctx, contentType)
}
