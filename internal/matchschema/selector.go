// Package matchschema holds the blocks that say which requests an admission
// object applies to, as every kind writes them: label selectors, rules and CEL
// match conditions, each with its schema block, model and conversion. The
// matching itself (which requests they select) is internal/matching.
package matchschema

import (
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfconv"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfschema"
)

// SelectorModel is a label selector block (namespace_selector,
// object_selector).
type SelectorModel struct {
	MatchLabels      types.Map              `tfsdk:"match_labels"`
	MatchExpressions []MatchExpressionModel `tfsdk:"match_expressions"`
}

// MatchExpressionModel is one match_expressions block.
type MatchExpressionModel struct {
	Key      types.String `tfsdk:"key"`
	Operator types.String `tfsdk:"operator"`
	Values   types.List   `tfsdk:"values"`
}

// SelectorBlock is an optional label selector block.
func SelectorBlock(desc string) schema.ListNestedBlock {
	return schema.ListNestedBlock{
		MarkdownDescription: desc,
		Validators:          tfschema.MaxOne(),
		NestedObject: schema.NestedBlockObject{
			Attributes: map[string]schema.Attribute{
				"match_labels": tfschema.StringMap("Labels that must all be present with these values."),
			},
			Blocks: map[string]schema.Block{
				"match_expressions": schema.ListNestedBlock{
					MarkdownDescription: "Requirements on labels; all must hold.",
					NestedObject: schema.NestedBlockObject{
						Attributes: map[string]schema.Attribute{
							"key":      schema.StringAttribute{Required: true, MarkdownDescription: "The label key."},
							"operator": schema.StringAttribute{Required: true, MarkdownDescription: "`In`, `NotIn`, `Exists` or `DoesNotExist`."},
							"values":   tfschema.StringList("Values for `In` and `NotIn` (at least one); empty for `Exists` and `DoesNotExist`.", false),
						},
					},
				},
			},
		},
	}
}

// ExpandSelector is the label selector of a selector block list, nil when
// there is no block.
func ExpandSelector(x *tfconv.Expander, blocks []SelectorModel, p *field.Path) *metav1.LabelSelector {
	if len(blocks) == 0 {
		return nil
	}
	b := blocks[0]
	sel := &metav1.LabelSelector{MatchLabels: x.StringMap(b.MatchLabels, p.Child("matchLabels"))}
	for k, e := range b.MatchExpressions {
		ep := p.Child("matchExpressions").Index(k)
		sel.MatchExpressions = append(sel.MatchExpressions, metav1.LabelSelectorRequirement{
			Key:      x.Str(e.Key, ep.Child("key")),
			Operator: metav1.LabelSelectorOperator(x.Str(e.Operator, ep.Child("operator"))),
			Values:   x.Strings(e.Values, ep.Child("values")),
		})
	}
	return sel
}

// FlattenSelector keeps an empty selector block when the prior model had
// one, and none otherwise: the server stores both as {}.
func FlattenSelector(s *metav1.LabelSelector, prior []SelectorModel) []SelectorModel {
	var p *SelectorModel
	if len(prior) > 0 {
		p = &prior[0]
	}
	if s == nil || (len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0) {
		if p == nil {
			return nil
		}
		return []SelectorModel{{MatchLabels: tfconv.EmptyOr(p.MatchLabels)}}
	}
	m := SelectorModel{MatchLabels: tfconv.StringMap(s.MatchLabels, tfconv.PriorMap(p, func(p *SelectorModel) types.Map { return p.MatchLabels }), false)}
	for k, e := range s.MatchExpressions {
		pv := types.ListNull(types.StringType)
		if p != nil && k < len(p.MatchExpressions) {
			pv = p.MatchExpressions[k].Values
		}
		m.MatchExpressions = append(m.MatchExpressions, MatchExpressionModel{
			Key:      types.StringValue(e.Key),
			Operator: types.StringValue(string(e.Operator)),
			Values:   tfconv.StringList(e.Values, pv),
		})
	}
	return []SelectorModel{m}
}
