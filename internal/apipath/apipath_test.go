package apipath

import (
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// A small API type with every layout the mapping knows.
type (
	object struct {
		Inline `json:",inline"`
		Meta   meta     `json:"metadata"`
		Items  []item   `json:"items"`
		Hidden string   `json:"hidden"` // not in the schema
		Skip   string   `json:"-"`
		Single *single  `json:"singleBlock,omitempty"`
		Tags   []string `json:"tags"`
	}
	Inline struct {
		Kind string `json:"kind"`
	}
	meta struct {
		Name   string            `json:"name"`
		Labels map[string]string `json:"labels"`
	}
	item struct {
		CABundle []byte `json:"caBundle"`
	}
	single struct {
		APIVersion string `json:"apiVersion"`
	}
)

func testMapper() *Mapper {
	block := func(attrs map[string]schema.Attribute) schema.ListNestedBlock {
		return schema.ListNestedBlock{NestedObject: schema.NestedBlockObject{Attributes: attrs}}
	}
	s := schema.Schema{
		Attributes: map[string]schema.Attribute{
			"kind": schema.StringAttribute{Optional: true},
			"tags": schema.ListAttribute{ElementType: types.StringType, Optional: true},
		},
		Blocks: map[string]schema.Block{
			"metadata": block(map[string]schema.Attribute{
				"name":   schema.StringAttribute{Required: true},
				"labels": schema.MapAttribute{ElementType: types.StringType, Optional: true},
			}),
			"item":         block(map[string]schema.Attribute{"ca_bundle": schema.StringAttribute{Optional: true}}),
			"single_block": block(map[string]schema.Attribute{"api_version": schema.StringAttribute{Optional: true}}),
		},
	}
	return New(s, reflect.TypeFor[object](), map[string]string{"items": "item"})
}

func TestDerivedMapping(t *testing.T) {
	m := testMapper()
	meta := path.Root("metadata").AtListIndex(0)
	for in, want := range map[string]path.Path{
		"kind":                   path.Root("kind"),
		"tags[1]":                path.Root("tags").AtListIndex(1),
		"metadata":               meta,
		"metadata.name":          meta.AtName("name"),
		"metadata.labels[a.b/c]": meta.AtName("labels").AtMapKey("a.b/c"),
		"items":                  path.Root("item"),
		"items[2].caBundle":      path.Root("item").AtListIndex(2).AtName("ca_bundle"),
		"singleBlock.apiVersion": path.Root("single_block").AtListIndex(0).AtName("api_version"),
	} {
		got, ok := m.AttributePath(in)
		if !ok || !got.Equal(want) {
			t.Errorf("%s: got %s, %v; want %s", in, got, ok, want)
		}
	}
	for _, in := range []string{"hidden", "Skip", "items[0].caBundle[0]", "metadata[0]", "singleBlock[0]", "tags.x", "nope", ""} {
		if p, ok := m.AttributePath(in); ok {
			t.Errorf("%q: mapped to %s, want no mapping", in, p)
		}
	}
}

// APIPath is AttributePath's reverse; past what the mapping knows it gives the part it maps.
func TestAPIPath(t *testing.T) {
	m := testMapper()
	meta := path.Root("metadata").AtListIndex(0)
	for _, want := range []string{"kind", "tags[1]", "metadata", "metadata.name", "metadata.labels[a.b/c]", "items", "items[2].caBundle", "singleBlock.apiVersion"} {
		p, ok := m.AttributePath(want)
		if !ok {
			t.Fatalf("%s does not map", want)
		}
		if got, ok := m.APIPath(p); !ok || got.String() != want {
			t.Errorf("%s: got %s, %v; want %s", p, got, ok, want)
		}
	}
	for in, prefix := range map[string]path.Path{
		"":              path.Root("nope"),
		"metadata.name": meta.AtName("name").AtListIndex(0),
		"metadata":      meta.AtName("nope"),
		"kind":          path.Root("kind").AtMapKey("x"),
	} {
		got, ok := m.APIPath(prefix)
		if ok || (got == nil) != (in == "") || (got != nil && got.String() != in) {
			t.Errorf("%s: got %s, %v; want %q and false", prefix, got, ok, in)
		}
	}
}

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{
		"name": "name", "apiVersion": "api_version", "caBundle": "ca_bundle",
		"admissionReviewVersions": "admission_review_versions", "uid": "uid",
	} {
		if got := SnakeCase(in); got != want {
			t.Errorf("SnakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}
