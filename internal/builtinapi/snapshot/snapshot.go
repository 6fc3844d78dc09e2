// Package snapshot holds what type checking needs to know of an API server, taken once from a
// running kube-apiserver: its resources and their kinds (for a RESTMapper) and the OpenAPI v3
// schemas of those kinds, trimmed to the parts that CEL types are built from. Package
// builtinapi embeds the snapshot of the kube-apiserver release the provider follows; the
// generator takes it and the freshness test takes it again to compare.
package snapshot

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/restmapper"
)

// APIServerFlags make kube-apiserver serve every built-in group version, alpha and beta ones
// included, so that the snapshot has every built-in kind a cluster may serve.
var APIServerFlags = []string{
	"--runtime-config=api/all=true",
	"--feature-gates=AllAlpha=true,AllBeta=true",
}

// Snapshot is the built-in API of one kube-apiserver release.
type Snapshot struct {
	// ServerVersion is the gitVersion the server reported (/version).
	ServerVersion string `json:"serverVersion"`
	// Groups are the API groups of discovery, in the server's order.
	Groups []Group `json:"groups"`
	// Schemas are the trimmed OpenAPI v3 component schemas that the resources' kinds reach,
	// by their component name ("io.k8s.api.apps.v1.Deployment"); $refs inside them name other
	// entries ("#/components/schemas/NAME").
	Schemas map[string]json.RawMessage `json:"schemas"`
}

// Group is one API group of discovery.
type Group struct {
	Name             string    `json:"name"`
	PreferredVersion string    `json:"preferredVersion"`
	Versions         []Version `json:"versions"`
}

// Version is one version of a group and its resources (subresources left out: admission
// policies' type checking skips them, k8s.io/apiserver pkg/admission/plugin/policy/validating
// extractResources).
type Version struct {
	Version   string     `json:"version"`
	Resources []Resource `json:"resources"`
}

// Resource is one resource of a group version.
type Resource struct {
	Name         string `json:"name"`
	SingularName string `json:"singularName"`
	Kind         string `json:"kind"`
	Namespaced   bool   `json:"namespaced"`
	// Schema is the name of the kind's schema in Snapshot.Schemas; empty when the server
	// published none for it.
	Schema string `json:"schema,omitempty"`
}

// GroupResources returns the discovery information in the form of
// k8s.io/client-go/restmapper.NewDiscoveryRESTMapper.
func (s *Snapshot) GroupResources() []*restmapper.APIGroupResources {
	out := make([]*restmapper.APIGroupResources, 0, len(s.Groups))
	for _, g := range s.Groups {
		gr := &restmapper.APIGroupResources{
			Group: metav1.APIGroup{
				Name:             g.Name,
				PreferredVersion: groupVersionForDiscovery(g.Name, g.PreferredVersion),
			},
			VersionedResources: make(map[string][]metav1.APIResource, len(g.Versions)),
		}
		for _, v := range g.Versions {
			gr.Group.Versions = append(gr.Group.Versions, groupVersionForDiscovery(g.Name, v.Version))
			resources := make([]metav1.APIResource, 0, len(v.Resources))
			for _, r := range v.Resources {
				resources = append(resources, metav1.APIResource{
					Name: r.Name, SingularName: r.SingularName, Kind: r.Kind, Namespaced: r.Namespaced,
				})
			}
			gr.VersionedResources[v.Version] = resources
		}
		out = append(out, gr)
	}
	return out
}

func groupVersionForDiscovery(group, version string) metav1.GroupVersionForDiscovery {
	gv := schema.GroupVersion{Group: group, Version: version}
	return metav1.GroupVersionForDiscovery{GroupVersion: gv.String(), Version: version}
}

// KindSchemas maps each kind of a resource to the name of its schema.
func (s *Snapshot) KindSchemas() map[schema.GroupVersionKind]string {
	out := map[schema.GroupVersionKind]string{}
	for _, g := range s.Groups {
		for _, v := range g.Versions {
			for _, r := range v.Resources {
				if r.Schema != "" {
					out[schema.GroupVersionKind{Group: g.Name, Version: v.Version, Kind: r.Kind}] = r.Schema
				}
			}
		}
	}
	return out
}

// Encode returns the snapshot as gzip'd JSON. The JSON is deterministic (map keys sorted, the
// schemas canonical), so the same server gives the same JSON.
func (s *Snapshot) Encode() ([]byte, error) {
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(raw); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Decode reads what Encode wrote. The schemas stay raw JSON, to be decoded one by one when
// needed.
func Decode(data []byte) (*Snapshot, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	s := new(Snapshot)
	if err := json.Unmarshal(raw, s); err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	return s, nil
}
