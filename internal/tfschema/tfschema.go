// Package tfschema has the pieces that every kind's schema is built from:
// attributes with server defaults, single blocks, and the read-only form of
// a resource schema that the data sources show.
package tfschema

import (
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	dsschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// MaxOne limits a block to a single occurrence, as hashicorp/kubernetes'
// MaxItems: 1 blocks do; the state keeps the same list shape, so references
// such as metadata[0].name carry over unchanged.
func MaxOne() []validator.List {
	return []validator.List{count{listvalidator.SizeAtMost(1), 0, 1}}
}

// ExactlyOne makes a block required, once.
func ExactlyOne() []validator.List {
	return []validator.List{listvalidator.IsRequired(), count{listvalidator.SizeBetween(1, 1), 1, 1}}
}

// count is a validator of a block list's size that also says the size, so
// that the schema Terraform gets can state it (Counts).
type count struct {
	validator.List
	min, max int64
}

// Counts are the least and most blocks that validators allow, 0 for no
// limit, as a protocol schema states them (min_items, max_items).
func Counts(validators []validator.List) (minItems, maxItems int64) {
	for _, v := range validators {
		if c, ok := v.(count); ok {
			return c.min, c.max
		}
	}
	return 0, 0
}

// StringList is a list of strings.
func StringList(desc string, required bool) schema.ListAttribute {
	return schema.ListAttribute{
		ElementType:         types.StringType,
		Required:            required,
		Optional:            !required,
		MarkdownDescription: desc,
	}
}

// StringMap is an optional map of strings.
func StringMap(desc string) schema.MapAttribute {
	return schema.MapAttribute{ElementType: types.StringType, Optional: true, MarkdownDescription: desc}
}

// Enum is an optional string with a server default, planned as that default
// when left out, and one of values. The values are checked with the
// server's other rules (internal/validation), which report a wrong one once,
// in the server's words.
func Enum(desc, def string, values ...string) schema.StringAttribute {
	return schema.StringAttribute{
		Optional:            true,
		Computed:            true,
		Default:             stringdefault.StaticString(def),
		MarkdownDescription: desc + " One of " + QuoteJoin(values) + ". Default: `" + def + "`.",
	}
}

// QuoteJoin lists values as Markdown code, comma-separated.
func QuoteJoin(values []string) string {
	quoted := make([]string, len(values))
	for i, v := range values {
		quoted[i] = "`" + v + "`"
	}
	return strings.Join(quoted, ", ")
}

// BuildBlockTypes gives each list block its object type once, built from
// its attributes and blocks (innermost first). Without it the framework
// builds the type of the whole nested block again each time it walks a
// value, which was about a third of the provider's CPU time on a plan.
func BuildBlockTypes(blocks map[string]schema.Block) {
	for name, b := range blocks {
		lb, ok := b.(schema.ListNestedBlock)
		if !ok || lb.NestedObject.CustomType != nil {
			continue
		}
		BuildBlockTypes(lb.NestedObject.Blocks)
		lb.NestedObject.CustomType = lb.NestedObject.Type()
		blocks[name] = lb
	}
}

// Computed is a resource schema's attributes and blocks turned read-only,
// for a data source: every block becomes a computed list of objects with the
// same names, so the data source's values have the resource's shape. The
// descriptions lose the sentences that only concern configuring the resource
// (ReadOnlyDescription).
func Computed(attrs map[string]schema.Attribute, blocks map[string]schema.Block) map[string]dsschema.Attribute {
	out := make(map[string]dsschema.Attribute, len(attrs)+len(blocks))
	for name, a := range attrs {
		desc := ReadOnlyDescription(a.GetMarkdownDescription())
		switch a := a.(type) {
		case schema.StringAttribute:
			out[name] = dsschema.StringAttribute{Computed: true, MarkdownDescription: desc}
		case schema.Int64Attribute:
			out[name] = dsschema.Int64Attribute{Computed: true, MarkdownDescription: desc}
		case schema.BoolAttribute:
			out[name] = dsschema.BoolAttribute{Computed: true, MarkdownDescription: desc}
		case schema.ListAttribute:
			out[name] = dsschema.ListAttribute{Computed: true, ElementType: a.ElementType, MarkdownDescription: desc}
		case schema.MapAttribute:
			out[name] = dsschema.MapAttribute{Computed: true, ElementType: a.ElementType, MarkdownDescription: desc}
		case schema.SingleNestedAttribute:
			out[name] = dsschema.SingleNestedAttribute{Computed: true, Attributes: Computed(a.Attributes, nil), MarkdownDescription: desc}
		case schema.ListNestedAttribute:
			out[name] = dsschema.ListNestedAttribute{Computed: true, MarkdownDescription: desc,
				NestedObject: dsschema.NestedAttributeObject{Attributes: Computed(a.NestedObject.Attributes, nil)}}
		default:
			panic("tfschema.Computed: no read-only form for attribute " + name)
		}
	}
	for name, b := range blocks {
		lb, ok := b.(schema.ListNestedBlock)
		if !ok {
			panic("tfschema.Computed: no read-only form for block " + name)
		}
		out[name] = dsschema.ListNestedAttribute{
			Computed:            true,
			MarkdownDescription: ReadOnlyDescription(lb.MarkdownDescription),
			NestedObject: dsschema.NestedAttributeObject{
				Attributes: Computed(lb.NestedObject.Attributes, lb.NestedObject.Blocks),
			},
		}
	}
	return out
}

// configOnly are the sentences of resource descriptions that only concern
// configuring the resource, each matched as a whole sentence: what a change
// does to the object, the default a left-out value gets, which values
// Terraform manages and when to leave a value out.
var configOnly = []*regexp.Regexp{
	regexp.MustCompile(`^Changing it replaces the object\.$`),
	regexp.MustCompile("^Default: `[^`]*`\\.$"),
	regexp.MustCompile(`^Only the \w+ set here are managed; .* are left alone\.$`),
	regexp.MustCompile(`^Leave it out when .*\.$`),
}

// ReadOnlyDescription is a resource description as a data source shows it:
// without the sentences that only concern configuring the resource
// (configOnly).
func ReadOnlyDescription(desc string) string {
	var kept []string
	for _, s := range sentences(desc) {
		if !slices.ContainsFunc(configOnly, func(re *regexp.Regexp) bool { return re.MatchString(s) }) {
			kept = append(kept, s)
		}
	}
	return strings.Join(kept, " ")
}

// sentences splits Markdown text after each period that is followed by a
// space or ends the text, outside code spans, so that a period in
// `cert-manager.io/inject-ca-from` ends nothing.
func sentences(text string) []string {
	var out []string
	inCode, start := false, 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '`':
			inCode = !inCode
		case '.':
			if !inCode && (i+1 == len(text) || text[i+1] == ' ') {
				out = append(out, strings.TrimSpace(text[start:i+1]))
				start = i + 1
			}
		}
	}
	if rest := strings.TrimSpace(text[start:]); rest != "" {
		out = append(out, rest)
	}
	return out
}
