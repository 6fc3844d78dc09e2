package core

import (
	"context"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/apipath"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfschema"
)

// Terraform itself reports a missing value only where the schema requires
// it: a Required attribute that is null, or a block list with fewer blocks
// than its min_items (tfschema.Counts; the provider's schema states it to
// Terraform). Every other value the API server requires is ours to report.

// reportedByTerraform reports whether Terraform reports the value missing at
// the attribute path p of the configuration: walking from the root, the
// first value the configuration leaves out (a null attribute, or a block
// list with no block) is required by the schema. A value under a block that
// is present but empty, or under a block the schema does not require, is
// not Terraform's.
func reportedByTerraform(ctx context.Context, cfg tfsdk.Config, p path.Path) bool {
	s, ok := cfg.Schema.(schema.Schema)
	if !ok {
		return false
	}
	attrs, blocks := s.Attributes, s.Blocks
	cur := path.Empty()
	for _, step := range p.Steps() {
		name, isName := step.(path.PathStepAttributeName)
		if !isName {
			// An index into a block list or a list attribute: the server
			// names only elements the configuration has.
			if k, ok := step.(path.PathStepElementKeyInt); ok {
				cur = cur.AtListIndex(int(k))
				continue
			}
			return false
		}
		cur = cur.AtName(string(name))
		var v attr.Value
		if diags := cfg.GetAttribute(ctx, cur, &v); diags.HasError() {
			return false
		}
		if a, ok := attrs[string(name)]; ok {
			return (v == nil || v.IsNull()) && a.IsRequired()
		}
		b, ok := blocks[string(name)].(schema.ListNestedBlock)
		if !ok {
			return false
		}
		if isEmptyList(v) {
			minItems, _ := tfschema.Counts(b.Validators)
			return minItems > 0
		}
		attrs, blocks = b.NestedObject.Attributes, b.NestedObject.Blocks
	}
	return false
}

// isEmptyList reports whether a block list value holds no block.
func isEmptyList(v attr.Value) bool {
	if v == nil || v.IsNull() {
		return true
	}
	l, ok := v.(types.List)
	return ok && !l.IsUnknown() && len(l.Elements()) == 0
}

// The server's words for a missing value name API fields; requiredInOurWords
// says the same with the schema's attribute and block names.
var (
	exactlyOneOf = regexp.MustCompile(`^exactly one of (\w+) or (\w+) is required$`)
	atLeastOneOf = regexp.MustCompile(`^(\w+) or (\w+) must contain at least one item$`)
	atLeastOne   = regexp.MustCompile(`^(\w+) must contain at least one item$`)
)

// requiredInOurWords is the detail of the required-value error e in the
// words of the schema: "set one of url or a service block, not both" for the
// server's "exactly one of url or service is required" when the
// configuration sets both; "set at least one validations or
// audit_annotations block" for "validations or auditAnnotations must contain
// at least one item". A detail it does not know stays as it is.
func requiredInOurWords(ctx context.Context, cfg tfsdk.Config, m *apipath.Mapper, e *field.Error) string {
	parent := e.Field
	if i := strings.LastIndexByte(parent, '.'); i >= 0 {
		parent = parent[:i]
	} else {
		parent = ""
	}
	child := func(base, jsonName string) string {
		if base == "" {
			return jsonName
		}
		return base + "." + jsonName
	}
	switch g := exactlyOneOf.FindStringSubmatch(e.Detail); {
	case g != nil:
		a, b := named(ctx, cfg, m, child(e.Field, g[1])), named(ctx, cfg, m, child(e.Field, g[2]))
		if a.name == "" || b.name == "" {
			return e.Detail
		}
		if a.set && b.set {
			return "set one of " + a.phrase() + " or " + b.phrase() + ", not both"
		}
		return "set one of " + a.phrase() + " or " + b.phrase()
	}
	if g := atLeastOneOf.FindStringSubmatch(e.Detail); g != nil {
		a, b := named(ctx, cfg, m, child(parent, g[1])), named(ctx, cfg, m, child(parent, g[2]))
		if a.name != "" && b.name != "" && a.block && b.block {
			return "set at least one " + a.name + " or " + b.name + " block"
		}
		return e.Detail
	}
	if g := atLeastOne.FindStringSubmatch(e.Detail); g != nil {
		if a := named(ctx, cfg, m, child(parent, g[1])); a.name != "" && a.block {
			return "set at least one " + a.name + " block"
		}
		return e.Detail
	}
	if e.Detail == "" {
		if a := named(ctx, cfg, m, e.Field); a.name != "" && a.block {
			if a.single {
				return "set a " + a.name + " block"
			}
			return "set at least one " + a.name + " block"
		}
	}
	return e.Detail
}

// schemaName is an API field as the schema has it: its attribute or block
// name, whether it is a block, and whether the configuration sets it.
type schemaName struct {
	name       string
	block, set bool
	single     bool // a block of at most one
}

func (n schemaName) phrase() string {
	if n.block {
		return "a " + n.name + " block"
	}
	return n.name
}

func named(ctx context.Context, cfg tfsdk.Config, m *apipath.Mapper, apiField string) schemaName {
	p, ok := m.AttributePath(apiField)
	if !ok {
		return schemaName{}
	}
	last, _ := p.Steps().LastStep()
	if _, isIndex := last.(path.PathStepElementKeyInt); isIndex {
		// A block of at most one maps to its element 0: the block is the list.
		p = p.ParentPath()
		last, _ = p.Steps().LastStep()
	}
	name, ok := last.(path.PathStepAttributeName)
	if !ok {
		return schemaName{}
	}
	var v attr.Value
	if diags := cfg.GetAttribute(ctx, p, &v); diags.HasError() {
		return schemaName{}
	}
	b, block := blockAt(cfg, p)
	set := v != nil && !v.IsNull()
	single := false
	if block {
		set = !isEmptyList(v)
		_, maxItems := tfschema.Counts(b.Validators)
		single = maxItems == 1
	}
	return schemaName{name: string(name), block: block, set: set, single: single}
}

// blockAt returns the block of the schema that the attribute path p names, if it names one.
func blockAt(cfg tfsdk.Config, p path.Path) (schema.ListNestedBlock, bool) {
	s, ok := cfg.Schema.(schema.Schema)
	if !ok {
		return schema.ListNestedBlock{}, false
	}
	blocks := s.Blocks
	var found schema.ListNestedBlock
	ok = false
	for _, step := range p.Steps() {
		name, isName := step.(path.PathStepAttributeName)
		if !isName {
			continue
		}
		b, isBlock := blocks[string(name)].(schema.ListNestedBlock)
		if !isBlock {
			return schema.ListNestedBlock{}, false
		}
		found, ok, blocks = b, true, b.NestedObject.Blocks
	}
	return found, ok
}
