package matchschema

import (
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfconv"
)

// ConditionModel is one match_conditions block.
type ConditionModel struct {
	Name       types.String `tfsdk:"name"`
	Expression types.String `tfsdk:"expression"`
}

// ConditionsBlock is the repeated match_conditions block of an owner ("the
// webhook") whose conditions see variables ("`object`, `oldObject` ...").
func ConditionsBlock(desc, owner, variables string) schema.ListNestedBlock {
	return schema.ListNestedBlock{
		MarkdownDescription: desc,
		NestedObject: schema.NestedBlockObject{
			Attributes: map[string]schema.Attribute{
				"name": schema.StringAttribute{Required: true, MarkdownDescription: "Name of the condition, unique in " + owner + " (a qualified name, like a label key)."},
				"expression": schema.StringAttribute{
					Required:            true,
					MarkdownDescription: "CEL expression that evaluates to a bool. It may use " + variables + ".",
				},
			},
		},
	}
}

// ExpandConditions are the API match conditions of cs, at API path p.
func ExpandConditions(x *tfconv.Expander, cs []ConditionModel, p *field.Path) []admissionregistrationv1.MatchCondition {
	var out []admissionregistrationv1.MatchCondition
	for j, c := range cs {
		cp := p.Index(j)
		out = append(out, admissionregistrationv1.MatchCondition{
			Name:       x.Str(c.Name, cp.Child("name")),
			Expression: x.Str(c.Expression, cp.Child("expression")),
		})
	}
	return out
}

// FlattenConditions is the model of match conditions.
func FlattenConditions(cs []admissionregistrationv1.MatchCondition) []ConditionModel {
	var out []ConditionModel
	for _, c := range cs {
		out = append(out, ConditionModel{Name: types.StringValue(c.Name), Expression: types.StringValue(c.Expression)})
	}
	return out
}
