package policy

import (
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/matchschema"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfconv"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfschema"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// This file holds what the policy kinds share with each other (the spec
// fields of admissionregistrationv1.ValidatingAdmissionPolicySpec and
// MutatingAdmissionPolicySpec that are the same, and the binding's paramRef
// and matchResources): each block's schema, model and conversion, once.

// policyBase is the part of a policy's spec block that every policy kind has.
type policyBase struct {
	ParamKind        []paramKindModel             `tfsdk:"param_kind"`
	MatchConstraints []matchResourcesModel        `tfsdk:"match_constraints"`
	MatchConditions  []matchschema.ConditionModel `tfsdk:"match_conditions"`
	Variables        []variableModel              `tfsdk:"variables"`
	FailurePolicy    types.String                 `tfsdk:"failure_policy"`
}

// policyBaseSchema is the schema of policyBase; expressions says what a
// policy kind's expressions are ("the validations and audit annotations"),
// operations which operations its rules may name.
func policyBaseSchema(expressions, operations string) (map[string]schema.Attribute, map[string]schema.Block) {
	attrs := map[string]schema.Attribute{
		"failure_policy": tfschema.Enum("What happens when the policy cannot be evaluated (a CEL error, a missing parameter, a misconfigured policy): "+
			"`Fail` rejects the request, `Ignore` lets it through.", string(validation.DefaultFailurePolicy), "Fail", "Ignore"),
	}
	blocks := map[string]schema.Block{
		"param_kind": schema.ListNestedBlock{
			MarkdownDescription: "The kind of the parameter resources that bindings point to (`param_ref`); " + expressions +
				" see it as `params`. Without it the policy takes no parameters.",
			Validators: tfschema.MaxOne(),
			NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
				"api_version": schema.StringAttribute{Required: true, MarkdownDescription: "API group and version of the parameter kind, such as `v1` or `example.com/v1`."},
				"kind":        schema.StringAttribute{Required: true, MarkdownDescription: "Kind of the parameter resources, such as `ConfigMap`."},
			}},
		},
		"match_constraints": matchResourcesBlock("The requests the policy applies to; a binding may narrow them further. `resource_rules` is required.", true, operations),
		"match_conditions": matchschema.ConditionsBlock("CEL conditions a request must all meet for the policy to apply (at most 64). "+
			"An error in a condition is handled by `failure_policy`.", "the policy", "`object`, `oldObject`, `request` (the `AdmissionRequest`), `params`, `namespaceObject` and `authorizer`"),
		"variables": schema.ListNestedBlock{
			MarkdownDescription: "Named CEL expressions that " + expressions + " use as `variables.<name>`, " +
				"each evaluated at most once per request. A variable may use the variables before it; match conditions cannot use them.",
			NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
				"name":       schema.StringAttribute{Required: true, MarkdownDescription: "Name of the variable: a CEL identifier, unique in the policy."},
				"expression": schema.StringAttribute{Required: true, MarkdownDescription: "CEL expression giving the variable's value."},
			}},
		},
	}
	return attrs, blocks
}

type paramKindModel struct {
	APIVersion types.String `tfsdk:"api_version"`
	Kind       types.String `tfsdk:"kind"`
}

type variableModel struct {
	Name       types.String `tfsdk:"name"`
	Expression types.String `tfsdk:"expression"`
}

// policyParts are the API fields of policyBase.
type policyParts struct {
	ParamKind        *admissionregistrationv1.ParamKind
	MatchConstraints *admissionregistrationv1.MatchResources
	MatchConditions  []admissionregistrationv1.MatchCondition
	Variables        []admissionregistrationv1.Variable
	FailurePolicy    *admissionregistrationv1.FailurePolicyType
}

// expandPolicyBase is the API form of b, under the spec's path p.
func expandPolicyBase(x *tfconv.Expander, b policyBase, p *field.Path) policyParts {
	parts := policyParts{
		MatchConstraints: expandMatchResources(x, b.MatchConstraints, p.Child("matchConstraints")),
		MatchConditions:  matchschema.ExpandConditions(x, b.MatchConditions, p.Child("matchConditions")),
		FailurePolicy:    (*admissionregistrationv1.FailurePolicyType)(x.StrPtr(b.FailurePolicy, p.Child("failurePolicy"))),
	}
	if len(b.ParamKind) > 0 {
		k, kp := b.ParamKind[0], p.Child("paramKind")
		parts.ParamKind = &admissionregistrationv1.ParamKind{
			APIVersion: x.Str(k.APIVersion, kp.Child("apiVersion")),
			Kind:       x.Str(k.Kind, kp.Child("kind")),
		}
	}
	for i, v := range b.Variables {
		vp := p.Child("variables").Index(i)
		parts.Variables = append(parts.Variables, admissionregistrationv1.Variable{
			Name:       x.Str(v.Name, vp.Child("name")),
			Expression: x.Str(v.Expression, vp.Child("expression")),
		})
	}
	return parts
}

// flattenPolicyBase is the model of parts; prior keeps the shape the
// configuration gave where the API cannot tell (empty selectors).
func flattenPolicyBase(parts policyParts, prior *policyBase) policyBase {
	var priorMC []matchResourcesModel
	if prior != nil {
		priorMC = prior.MatchConstraints
	}
	b := policyBase{
		MatchConstraints: flattenMatchResources(parts.MatchConstraints, priorMC),
		MatchConditions:  matchschema.FlattenConditions(parts.MatchConditions),
		FailurePolicy:    types.StringPointerValue((*string)(parts.FailurePolicy)),
	}
	if k := parts.ParamKind; k != nil {
		b.ParamKind = []paramKindModel{{APIVersion: types.StringValue(k.APIVersion), Kind: types.StringValue(k.Kind)}}
	}
	for _, v := range parts.Variables {
		b.Variables = append(b.Variables, variableModel{Name: types.StringValue(v.Name), Expression: types.StringValue(v.Expression)})
	}
	return b
}

// matchResourcesModel is a match_constraints or match_resources block.
type matchResourcesModel struct {
	NamespaceSelector    []matchschema.SelectorModel `tfsdk:"namespace_selector"`
	ObjectSelector       []matchschema.SelectorModel `tfsdk:"object_selector"`
	ResourceRules        []namedRuleModel            `tfsdk:"resource_rules"`
	ExcludeResourceRules []namedRuleModel            `tfsdk:"exclude_resource_rules"`
	MatchPolicy          types.String                `tfsdk:"match_policy"`
}

// namedRuleModel is a rule that may name the objects it matches.
type namedRuleModel struct {
	matchschema.RuleModel
	ResourceNames types.List `tfsdk:"resource_names"`
}

// Which operations the rules of each kind may name.
const (
	validatingOperations = "Operations: `CREATE`, `UPDATE`, `DELETE`, `CONNECT`, or `*` for all."
	mutatingOperations   = "Operations: `CREATE`, `UPDATE`, `CONNECT`, or `*` for all; mutating policies cannot match `DELETE`."
)

func matchResourcesBlock(desc string, required bool, operations string) schema.ListNestedBlock {
	ruleAttrs := matchschema.RuleAttributes()
	ruleAttrs["operations"] = tfschema.StringList(operations, true)
	ruleAttrs["resource_names"] = tfschema.StringList("Names of the objects the rule matches; all objects when empty.", false)
	validators := tfschema.MaxOne()
	if required {
		validators = tfschema.ExactlyOne()
	}
	return schema.ListNestedBlock{
		MarkdownDescription: desc,
		Validators:          validators,
		NestedObject: schema.NestedBlockObject{
			Attributes: map[string]schema.Attribute{
				"match_policy": tfschema.Enum("How rules match requests made through another API version or group of the same resource: "+
					"`Exact` only matches the rules as written; `Equivalent` also matches requests for an equivalent resource, converted to a version the rules name.",
					string(validation.DefaultMatchPolicy), "Equivalent", "Exact"),
			},
			Blocks: map[string]schema.Block{
				"namespace_selector": matchschema.SelectorBlock("Selects, by the namespace's labels, the namespaced objects that match. Absent or empty: every namespace."),
				"object_selector":    matchschema.SelectorBlock("Selects, by the object's own labels (old and new object), the objects that match. Absent or empty: every object."),
				"resource_rules": schema.ListNestedBlock{
					MarkdownDescription: "Operations on resources that match; a request matches if any rule matches it.",
					NestedObject:        schema.NestedBlockObject{Attributes: ruleAttrs},
				},
				"exclude_resource_rules": schema.ListNestedBlock{
					MarkdownDescription: "Operations on resources that never match, even when a resource rule matches them.",
					NestedObject:        schema.NestedBlockObject{Attributes: ruleAttrs},
				},
			},
		},
	}
}

func expandMatchResources(x *tfconv.Expander, blocks []matchResourcesModel, p *field.Path) *admissionregistrationv1.MatchResources {
	if len(blocks) == 0 {
		return nil
	}
	b := blocks[0]
	// MatchResources is atomic (+structType=atomic): server-side apply
	// compares it whole with what the server stores, which has its defaults
	// (SetDefaults_MatchResources: empty selectors). Sent without them, it
	// conflicts with the manager that applied the object (kubectl
	// --server-side, Argo CD, Flux) even when nothing differs.
	orEmpty := func(s *metav1.LabelSelector) *metav1.LabelSelector {
		if s == nil {
			return &metav1.LabelSelector{}
		}
		return s
	}
	return &admissionregistrationv1.MatchResources{
		NamespaceSelector:    orEmpty(matchschema.ExpandSelector(x, b.NamespaceSelector, p.Child("namespaceSelector"))),
		ObjectSelector:       orEmpty(matchschema.ExpandSelector(x, b.ObjectSelector, p.Child("objectSelector"))),
		ResourceRules:        expandNamedRules(x, b.ResourceRules, p.Child("resourceRules")),
		ExcludeResourceRules: expandNamedRules(x, b.ExcludeResourceRules, p.Child("excludeResourceRules")),
		MatchPolicy:          (*admissionregistrationv1.MatchPolicyType)(x.StrPtr(b.MatchPolicy, p.Child("matchPolicy"))),
	}
}

func expandNamedRules(x *tfconv.Expander, rules []namedRuleModel, p *field.Path) []admissionregistrationv1.NamedRuleWithOperations {
	var out []admissionregistrationv1.NamedRuleWithOperations
	for i, r := range rules {
		rp := p.Index(i)
		out = append(out, admissionregistrationv1.NamedRuleWithOperations{
			ResourceNames:      x.Strings(r.ResourceNames, rp.Child("resourceNames")),
			RuleWithOperations: matchschema.ExpandRule(x, r.RuleModel, rp),
		})
	}
	return out
}

func flattenMatchResources(m *admissionregistrationv1.MatchResources, prior []matchResourcesModel) []matchResourcesModel {
	if m == nil {
		return nil
	}
	var p *matchResourcesModel
	if len(prior) > 0 {
		p = &prior[0]
	}
	get := func(f func(*matchResourcesModel) []matchschema.SelectorModel) []matchschema.SelectorModel {
		if p == nil {
			return nil
		}
		return f(p)
	}
	rules := func(f func(*matchResourcesModel) []namedRuleModel) []namedRuleModel {
		if p == nil {
			return nil
		}
		return f(p)
	}
	return []matchResourcesModel{{
		NamespaceSelector:    matchschema.FlattenSelector(m.NamespaceSelector, get(func(p *matchResourcesModel) []matchschema.SelectorModel { return p.NamespaceSelector })),
		ObjectSelector:       matchschema.FlattenSelector(m.ObjectSelector, get(func(p *matchResourcesModel) []matchschema.SelectorModel { return p.ObjectSelector })),
		ResourceRules:        flattenNamedRules(m.ResourceRules, rules(func(p *matchResourcesModel) []namedRuleModel { return p.ResourceRules })),
		ExcludeResourceRules: flattenNamedRules(m.ExcludeResourceRules, rules(func(p *matchResourcesModel) []namedRuleModel { return p.ExcludeResourceRules })),
		MatchPolicy:          types.StringPointerValue((*string)(m.MatchPolicy)),
	}}
}

func flattenNamedRules(rules []admissionregistrationv1.NamedRuleWithOperations, prior []namedRuleModel) []namedRuleModel {
	var out []namedRuleModel
	for i, r := range rules {
		var pr *namedRuleModel
		var prule *matchschema.RuleModel
		if i < len(prior) {
			pr, prule = &prior[i], &prior[i].RuleModel
		}
		out = append(out, namedRuleModel{
			RuleModel:     matchschema.FlattenRule(r.RuleWithOperations, prule),
			ResourceNames: tfconv.StringList(r.ResourceNames, tfconv.PriorList(pr, func(p *namedRuleModel) types.List { return p.ResourceNames })),
		})
	}
	return out
}

// paramRefModel is a binding's param_ref block.
type paramRefModel struct {
	Name                    types.String                `tfsdk:"name"`
	Namespace               types.String                `tfsdk:"namespace"`
	Selector                []matchschema.SelectorModel `tfsdk:"selector"`
	ParameterNotFoundAction types.String                `tfsdk:"parameter_not_found_action"`
}

// bindingBase is the part of a binding's spec block that every binding kind has.
type bindingBase struct {
	PolicyName     types.String          `tfsdk:"policy_name"`
	ParamRef       []paramRefModel       `tfsdk:"param_ref"`
	MatchResources []matchResourcesModel `tfsdk:"match_resources"`
}

// bindingBaseSchema is the schema of bindingBase; policy names the policy
// kind ("ValidatingAdmissionPolicy"), operations which operations its rules
// may name.
func bindingBaseSchema(policy, operations string) (map[string]schema.Attribute, map[string]schema.Block) {
	attrs := map[string]schema.Attribute{
		"policy_name": schema.StringAttribute{
			Required:            true,
			MarkdownDescription: "Name of the " + policy + " this binding applies. If it does not exist, the binding does nothing.",
		},
	}
	blocks := map[string]schema.Block{
		"param_ref": schema.ListNestedBlock{
			MarkdownDescription: "The parameter resources (of the policy's `param_kind`) the policy is evaluated with: one by `name`, or each " +
				"that `selector` matches (the policy is then evaluated once per parameter). Required when the policy has a `param_kind`.",
			Validators: tfschema.MaxOne(),
			NestedObject: schema.NestedBlockObject{
				Attributes: map[string]schema.Attribute{
					"name": schema.StringAttribute{Optional: true, MarkdownDescription: "Name of the parameter resource. Exactly one of `name` and `selector`."},
					"namespace": schema.StringAttribute{Optional: true, MarkdownDescription: "Namespace of the parameter resources, for a namespaced `param_kind`; " +
						"left out, the namespace of the request's object (for a cluster-scoped object the binding is then misconfigured, and `failure_policy` applies)."},
					"parameter_not_found_action": schema.StringAttribute{Required: true, MarkdownDescription: "What happens when no parameter resource is found: " +
						"`Allow` lets the request through, `Deny` applies the policy's `failure_policy`."},
				},
				Blocks: map[string]schema.Block{
					"selector": matchschema.SelectorBlock("Selects the parameter resources by label; an empty block selects every one of the kind (in `namespace`)."),
				},
			},
		},
		"match_resources": matchResourcesBlock("Narrows the requests the policy applies to, within its `match_constraints`. Left out, the policy's own constraints apply.", false, operations),
	}
	return attrs, blocks
}

// bindingParts are the API fields of bindingBase.
type bindingParts struct {
	PolicyName     string
	ParamRef       *admissionregistrationv1.ParamRef
	MatchResources *admissionregistrationv1.MatchResources
}

func expandBindingBase(x *tfconv.Expander, b bindingBase, p *field.Path) bindingParts {
	parts := bindingParts{
		PolicyName:     x.Str(b.PolicyName, p.Child("policyName")),
		MatchResources: expandMatchResources(x, b.MatchResources, p.Child("matchResources")),
	}
	if len(b.ParamRef) > 0 {
		r, rp := b.ParamRef[0], p.Child("paramRef")
		parts.ParamRef = &admissionregistrationv1.ParamRef{
			Name:                    x.Str(r.Name, rp.Child("name")),
			Namespace:               x.Str(r.Namespace, rp.Child("namespace")),
			Selector:                matchschema.ExpandSelector(x, r.Selector, rp.Child("selector")),
			ParameterNotFoundAction: (*admissionregistrationv1.ParameterNotFoundActionType)(x.StrPtr(r.ParameterNotFoundAction, rp.Child("parameterNotFoundAction"))),
		}
	}
	return parts
}

func flattenBindingBase(parts bindingParts, prior *bindingBase) bindingBase {
	var priorMR []matchResourcesModel
	var priorRef []paramRefModel
	if prior != nil {
		priorMR, priorRef = prior.MatchResources, prior.ParamRef
	}
	b := bindingBase{
		PolicyName:     types.StringValue(parts.PolicyName),
		MatchResources: flattenMatchResources(parts.MatchResources, priorMR),
	}
	if r := parts.ParamRef; r != nil {
		var priorSel []matchschema.SelectorModel
		if len(priorRef) > 0 {
			priorSel = priorRef[0].Selector
		}
		if r.Selector != nil && len(priorSel) == 0 {
			// An empty selector (every parameter) is not the same as none
			// (the parameter by name): keep its block.
			priorSel = []matchschema.SelectorModel{{MatchLabels: types.MapNull(types.StringType)}}
		}
		b.ParamRef = []paramRefModel{{
			Name:                    optionalString(r.Name),
			Namespace:               optionalString(r.Namespace),
			Selector:                matchschema.FlattenSelector(r.Selector, priorSel),
			ParameterNotFoundAction: types.StringPointerValue((*string)(r.ParameterNotFoundAction)),
		}}
	}
	return b
}

// optionalString is null for the empty string, which the API does not store.
func optionalString(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}
