package matchschema

import (
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfconv"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfschema"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// RuleModel is one rule block: operations on resources
// (admissionregistrationv1.RuleWithOperations).
type RuleModel struct {
	Operations  types.List   `tfsdk:"operations"`
	APIGroups   types.List   `tfsdk:"api_groups"`
	APIVersions types.List   `tfsdk:"api_versions"`
	Resources   types.List   `tfsdk:"resources"`
	Scope       types.String `tfsdk:"scope"`
}

// RuleAttributes are the attributes of a rule block.
func RuleAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"operations":   tfschema.StringList("Operations: `CREATE`, `UPDATE`, `DELETE`, `CONNECT`, or `*` for all.", true),
		"api_groups":   tfschema.StringList("API groups; `\"\"` is the core group and `*` all groups.", true),
		"api_versions": tfschema.StringList("API versions; `*` is all versions.", true),
		"resources": tfschema.StringList("Resources, such as `pods`; `pods/status` names a subresource, `*` all resources, "+
			"`*/*` all resources and subresources, `pods/*` all subresources of pods.", true),
		"scope": tfschema.Enum("Which objects the rule applies to by scope: `Cluster` (cluster-scoped), `Namespaced`, or `*` (both).",
			string(validation.DefaultScope), "*", "Cluster", "Namespaced"),
	}
}

// ExpandRule is the API rule of r, at API path p.
func ExpandRule(x *tfconv.Expander, r RuleModel, p *field.Path) admissionregistrationv1.RuleWithOperations {
	var ops []admissionregistrationv1.OperationType
	if names := x.Strings(r.Operations, p.Child("operations")); names != nil {
		ops = make([]admissionregistrationv1.OperationType, len(names))
		for k, o := range names {
			ops[k] = admissionregistrationv1.OperationType(o)
		}
	}
	return admissionregistrationv1.RuleWithOperations{
		Operations: ops,
		Rule: admissionregistrationv1.Rule{
			APIGroups:   x.Strings(r.APIGroups, p.Child("apiGroups")),
			APIVersions: x.Strings(r.APIVersions, p.Child("apiVersions")),
			Resources:   x.Strings(r.Resources, p.Child("resources")),
			Scope:       (*admissionregistrationv1.ScopeType)(x.StrPtr(r.Scope, p.Child("scope"))),
		},
	}
}

// FlattenRule is the model of r; prior, when not nil, keeps the form of
// empty lists.
func FlattenRule(r admissionregistrationv1.RuleWithOperations, prior *RuleModel) RuleModel {
	var ops []string
	if r.Operations != nil {
		ops = make([]string, len(r.Operations))
		for k, o := range r.Operations {
			ops[k] = string(o)
		}
	}
	return RuleModel{
		Operations:  tfconv.StringList(ops, tfconv.PriorList(prior, func(p *RuleModel) types.List { return p.Operations })),
		APIGroups:   tfconv.StringList(r.APIGroups, tfconv.PriorList(prior, func(p *RuleModel) types.List { return p.APIGroups })),
		APIVersions: tfconv.StringList(r.APIVersions, tfconv.PriorList(prior, func(p *RuleModel) types.List { return p.APIVersions })),
		Resources:   tfconv.StringList(r.Resources, tfconv.PriorList(prior, func(p *RuleModel) types.List { return p.Resources })),
		Scope:       types.StringPointerValue((*string)(r.Scope)),
	}
}
