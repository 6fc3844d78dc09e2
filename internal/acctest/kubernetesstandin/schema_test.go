package kubernetesstandin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// fixture is the path of a file of testdata: what hashicorp/kubernetes
// reported and wrote for the configurations there (see testdata/README.md).
func fixture(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join("testdata", name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("fixture of hashicorp/kubernetes: %v", err)
	}
	return p
}

// fixtureSchema is the part of `terraform providers schema -json` output
// that the fixture holds. Unknown fields fail the decoding, so that a flag
// the comparison does not know of cannot go unnoticed.
type fixtureSchema struct {
	Version uint64        `json:"version"`
	Block   *fixtureBlock `json:"block"`
}

type fixtureBlock struct {
	Attributes map[string]fixtureAttribute `json:"attributes"`
	BlockTypes map[string]struct {
		NestingMode string        `json:"nesting_mode"`
		MinItems    int64         `json:"min_items"`
		MaxItems    int64         `json:"max_items"`
		Block       *fixtureBlock `json:"block"`
	} `json:"block_types"`
}

type fixtureAttribute struct {
	Type       json.RawMessage `json:"type"`
	NestedType *struct {
		Attributes  map[string]fixtureAttribute `json:"attributes"`
		NestingMode string                      `json:"nesting_mode"`
	} `json:"nested_type"`
	Required  bool `json:"required"`
	Optional  bool `json:"optional"`
	Computed  bool `json:"computed"`
	Sensitive bool `json:"sensitive"`
}

// Both sides are reduced to one line per attribute and block, by path.

func describeFixture(t *testing.T, s fixtureSchema) map[string]string {
	out := map[string]string{"": fmt.Sprintf("schema version=%d", s.Version)}
	var walkAttributes func(attrs map[string]fixtureAttribute, prefix string)
	walkAttributes = func(attrs map[string]fixtureAttribute, prefix string) {
		for name, a := range attrs {
			if a.NestedType != nil {
				out[prefix+name] = describeAttribute("nested "+a.NestedType.NestingMode, a.Required, a.Optional, a.Computed, a.Sensitive)
				walkAttributes(a.NestedType.Attributes, prefix+name+".")
				continue
			}
			var typ bytes.Buffer
			if err := json.Compact(&typ, a.Type); err != nil {
				t.Fatalf("type of %s%s: %v", prefix, name, err)
			}
			out[prefix+name] = describeAttribute(typ.String(), a.Required, a.Optional, a.Computed, a.Sensitive)
		}
	}
	var walk func(b *fixtureBlock, prefix string)
	walk = func(b *fixtureBlock, prefix string) {
		walkAttributes(b.Attributes, prefix)
		for name, nb := range b.BlockTypes {
			out[prefix+name] = describeBlock(nb.NestingMode, nb.MinItems, nb.MaxItems)
			walk(nb.Block, prefix+name+".")
		}
	}
	walk(s.Block, "")
	return out
}

// describeServed describes a schema served; nested attribute types are
// allowed with framework set (a plugin framework resource), and are an error
// otherwise (the plugin SDK v2 cannot have them).
func describeServed(t *testing.T, s *tfprotov6.Schema, framework bool) map[string]string {
	out := map[string]string{"": fmt.Sprintf("schema version=%d", s.Version)}
	var walkAttributes func(attrs []*tfprotov6.SchemaAttribute, prefix string)
	walkAttributes = func(attrs []*tfprotov6.SchemaAttribute, prefix string) {
		for _, a := range attrs {
			if a.NestedType != nil {
				if !framework {
					t.Errorf("%s%s: nested attribute type, which the plugin SDK v2 cannot have", prefix, a.Name)
				}
				mode := map[tfprotov6.SchemaObjectNestingMode]string{
					tfprotov6.SchemaObjectNestingModeSingle: "single",
					tfprotov6.SchemaObjectNestingModeList:   "list",
					tfprotov6.SchemaObjectNestingModeSet:    "set",
					tfprotov6.SchemaObjectNestingModeMap:    "map",
				}[a.NestedType.Nesting]
				out[prefix+a.Name] = describeAttribute("nested "+mode, a.Required, a.Optional, a.Computed, a.Sensitive)
				walkAttributes(a.NestedType.Attributes, prefix+a.Name+".")
				continue
			}
			typ, err := json.Marshal(a.Type)
			if err != nil {
				t.Fatalf("type of %s%s: %v", prefix, a.Name, err)
			}
			out[prefix+a.Name] = describeAttribute(string(typ), a.Required, a.Optional, a.Computed, a.Sensitive)
		}
	}
	var walk func(b *tfprotov6.SchemaBlock, prefix string)
	walk = func(b *tfprotov6.SchemaBlock, prefix string) {
		walkAttributes(b.Attributes, prefix)
		for _, nb := range b.BlockTypes {
			mode := map[tfprotov6.SchemaNestedBlockNestingMode]string{
				tfprotov6.SchemaNestedBlockNestingModeList:   "list",
				tfprotov6.SchemaNestedBlockNestingModeSet:    "set",
				tfprotov6.SchemaNestedBlockNestingModeSingle: "single",
				tfprotov6.SchemaNestedBlockNestingModeGroup:  "group",
				tfprotov6.SchemaNestedBlockNestingModeMap:    "map",
			}[nb.Nesting]
			out[prefix+nb.TypeName] = describeBlock(mode, nb.MinItems, nb.MaxItems)
			walk(nb.Block, prefix+nb.TypeName+".")
		}
	}
	walk(s.Block, "")
	return out
}

func describeAttribute(typ string, required, optional, computed, sensitive bool) string {
	return fmt.Sprintf("attribute type=%s required=%t optional=%t computed=%t sensitive=%t", typ, required, optional, computed, sensitive)
}

func describeBlock(mode string, minItems, maxItems int64) string {
	return fmt.Sprintf("block nesting=%s min_items=%d max_items=%d", mode, minItems, maxItems)
}

// TestSchemasMatchFixture compares the schemas the stand-in serves, as
// Terraform receives them, with those hashicorp/kubernetes reports.
func TestSchemasMatchFixture(t *testing.T) {
	raw, err := os.ReadFile(fixture(t, "schemas.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fixtures struct {
		ResourceSchemas map[string]json.RawMessage `json:"resource_schemas"`
	}
	if err := json.Unmarshal(raw, &fixtures); err != nil {
		t.Fatalf("schemas.json: %v", err)
	}

	server, err := ProviderFactories()["kubernetes"]()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := server.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		t.Errorf("GetProviderSchema: %s: %s", d.Summary, d.Detail)
	}

	served := make([]string, 0, len(resp.ResourceSchemas))
	for name := range resp.ResourceSchemas {
		served = append(served, name)
	}
	sort.Strings(served)
	if fmt.Sprint(served) != fmt.Sprint([]string{mutatingType, policyType, validatingType}) {
		t.Errorf("resource types served: %v", served)
	}

	for _, name := range []string{mutatingType, validatingType, policyType} {
		t.Run(name, func(t *testing.T) {
			raw, ok := fixtures.ResourceSchemas[name]
			if !ok {
				t.Fatalf("%s is not in schemas.json", name)
			}
			var w fixtureSchema
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&w); err != nil {
				t.Fatalf("schemas.json, %s: %v", name, err)
			}
			got := resp.ResourceSchemas[name]
			if got == nil {
				t.Fatalf("%s is not served", name)
			}
			compareDescriptions(t, describeServed(t, got, !sdkv2Types[name]), describeFixture(t, w))
		})
	}
}

func compareDescriptions(t *testing.T, got, want map[string]string) {
	t.Helper()
	paths := map[string]bool{}
	for p := range got {
		paths[p] = true
	}
	for p := range want {
		paths[p] = true
	}
	sorted := make([]string, 0, len(paths))
	for p := range paths {
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)
	for _, p := range sorted {
		g, inGot := got[p]
		w, inWant := want[p]
		switch {
		case !inGot:
			t.Errorf("%q missing: hashicorp/kubernetes has %s", p, w)
		case !inWant:
			t.Errorf("%q extra: hashicorp/kubernetes has no %s", p, g)
		case g != w:
			t.Errorf("%q:\n got  %s\n want %s", p, g, w)
		}
	}
}
