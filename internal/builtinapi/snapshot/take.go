package snapshot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/openapi"
	"k8s.io/client-go/restmapper"
)

// RefPrefix starts every $ref of an OpenAPI v3 document served by kube-apiserver.
const RefPrefix = "#/components/schemas/"

// keptKeys are the schema keys that k8s.io/apiserver turns into CEL types (pkg/cel/common
// SchemaDeclType through pkg/cel/openapi Schema, and pkg/cel/openapi/resolver PopulateRefs for
// $ref and allOf). The rest (descriptions, defaults, patch strategies, the group-version-kind
// extension, oneOf) changes no type.
var keptKeys = map[string]bool{
	"type": true, "format": true, "$ref": true, "allOf": true,
	"properties": true, "additionalProperties": true, "items": true,
	"required": true, "enum": true, "nullable": true,
	"maxLength": true, "maxItems": true, "maxProperties": true,
	"x-kubernetes-int-or-string":           true,
	"x-kubernetes-embedded-resource":       true,
	"x-kubernetes-preserve-unknown-fields": true,
	"x-kubernetes-list-type":               true,
	"x-kubernetes-list-map-keys":           true,
	"x-kubernetes-map-type":                true,
}

// Take reads a snapshot from a running server: its version, its discovery and the OpenAPI v3
// document of every group version. Any failure fails it: a partial snapshot is no snapshot.
func Take(dc discovery.DiscoveryInterface) (*Snapshot, error) {
	info, err := dc.ServerVersion()
	if err != nil {
		return nil, fmt.Errorf("server version: %w", err)
	}
	groups, err := restmapper.GetAPIGroupResources(dc)
	if err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	paths, err := dc.OpenAPIV3().Paths()
	if err != nil {
		return nil, fmt.Errorf("openapi v3: %w", err)
	}
	t := &taker{paths: paths, snap: &Snapshot{ServerVersion: info.GitVersion, Schemas: map[string]json.RawMessage{}}}
	for _, g := range groups {
		if err := t.addGroup(g); err != nil {
			return nil, err
		}
	}
	return t.snap, nil
}

type taker struct {
	paths map[string]openapi.GroupVersion
	snap  *Snapshot
}

func (t *taker) addGroup(g *restmapper.APIGroupResources) error {
	out := Group{Name: g.Group.Name, PreferredVersion: g.Group.PreferredVersion.Version}
	for _, gv := range g.Group.Versions {
		resources, ok := g.VersionedResources[gv.Version]
		if !ok {
			continue
		}
		v, err := t.version(schema.GroupVersion{Group: g.Group.Name, Version: gv.Version}, resources)
		if err != nil {
			return err
		}
		out.Versions = append(out.Versions, v)
	}
	t.snap.Groups = append(t.snap.Groups, out)
	return nil
}

// version collects the resources of one group version and the schemas of their kinds.
func (t *taker) version(gv schema.GroupVersion, resources []metav1.APIResource) (Version, error) {
	out := Version{Version: gv.Version}
	doc, err := t.document(gv)
	if err != nil {
		return out, err
	}
	for _, r := range resources {
		if strings.Contains(r.Name, "/") {
			continue
		}
		res := Resource{Name: r.Name, SingularName: r.SingularName, Kind: r.Kind, Namespaced: r.Namespaced}
		if doc != nil {
			name, err := doc.kindSchema(gv.WithKind(r.Kind))
			if err != nil {
				return out, err
			}
			if name != "" {
				if err := t.addSchema(doc, name); err != nil {
					return out, err
				}
				res.Schema = name
			}
		}
		out.Resources = append(out.Resources, res)
	}
	return out, nil
}

// document fetches and parses the OpenAPI v3 document of a group version; nil if the server
// publishes none.
func (t *taker) document(gv schema.GroupVersion) (*document, error) {
	path := "apis/" + gv.Group + "/" + gv.Version
	if gv.Group == "" {
		path = "api/" + gv.Version
	}
	p, ok := t.paths[path]
	if !ok {
		return nil, nil
	}
	b, err := p.Schema(runtime.ContentTypeJSON)
	if err != nil {
		return nil, fmt.Errorf("openapi v3 %s: %w", path, err)
	}
	var resp struct {
		Components struct {
			Schemas map[string]map[string]any `json:"schemas"`
		} `json:"components"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&resp); err != nil {
		return nil, fmt.Errorf("openapi v3 %s: %w", path, err)
	}
	return &document{path: path, schemas: resp.Components.Schemas}, nil
}

type document struct {
	path    string
	schemas map[string]map[string]any
}

// kindSchema finds the schema of a kind by its x-kubernetes-group-version-kind extension, as
// k8s.io/apiserver pkg/cel/openapi/resolver ClientDiscoveryResolver does; "" if none has it.
func (d *document) kindSchema(gvk schema.GroupVersionKind) (string, error) {
	var found []string
	for name, s := range d.schemas {
		list, _ := s["x-kubernetes-group-version-kind"].([]any)
		for _, e := range list {
			m, _ := e.(map[string]any)
			if m["group"] == gvk.Group && m["version"] == gvk.Version && m["kind"] == gvk.Kind {
				found = append(found, name)
			}
		}
	}
	switch len(found) {
	case 0:
		return "", nil
	case 1:
		return found[0], nil
	}
	slices.Sort(found)
	return "", fmt.Errorf("openapi v3 %s: %d schemas have kind %s: %v", d.path, len(found), gvk, found)
}

// addSchema adds the named schema and every schema it refers to, trimmed. A name is the same
// Go type in every document, so a name met again must have the same schema.
func (t *taker) addSchema(doc *document, name string) error {
	if _, done := t.snap.Schemas[name]; done {
		return nil
	}
	s, ok := doc.schemas[name]
	if !ok {
		return fmt.Errorf("openapi v3 %s: no schema %q", doc.path, name)
	}
	trimmed := trim(s)
	raw, err := json.Marshal(trimmed)
	if err != nil {
		return err
	}
	t.snap.Schemas[name] = raw
	for _, ref := range refs(trimmed, nil) {
		if !strings.HasPrefix(ref, RefPrefix) {
			return fmt.Errorf("openapi v3 %s: schema %s: unexpected $ref %q", doc.path, name, ref)
		}
		if err := t.addSchema(doc, strings.TrimPrefix(ref, RefPrefix)); err != nil {
			return err
		}
	}
	return nil
}

// trim keeps the keys of keptKeys, in the schema and the schemas nested in it.
func trim(s map[string]any) map[string]any {
	out := make(map[string]any, len(s))
	for k, v := range s {
		if !keptKeys[k] {
			continue
		}
		switch k {
		case "properties":
			// An OpenAPI schema's properties are an object, allOf a list;
			// anything else has nothing to keep.
			in, _ := v.(map[string]any)
			props := map[string]any{}
			for name, p := range in {
				props[name] = trimAny(p)
			}
			v = props
		case "items", "additionalProperties":
			v = trimAny(v)
		case "allOf":
			var all []any
			in, _ := v.([]any)
			for _, e := range in {
				all = append(all, trimAny(e))
			}
			v = all
		}
		out[k] = v
	}
	return out
}

func trimAny(v any) any {
	if m, ok := v.(map[string]any); ok {
		return trim(m)
	}
	return v // additionalProperties: true/false
}

// refs appends the $refs of a trimmed schema and of the schemas nested in it.
func refs(v any, out []string) []string {
	switch v := v.(type) {
	case map[string]any:
		if r, ok := v["$ref"].(string); ok {
			out = append(out, r)
		}
		for k, e := range v {
			switch k {
			case "properties":
				props, _ := e.(map[string]any)
				for _, p := range props {
					out = refs(p, out)
				}
			case "items", "additionalProperties", "allOf":
				out = refs(e, out)
			}
		}
	case []any:
		for _, e := range v {
			out = refs(e, out)
		}
	}
	return out
}
