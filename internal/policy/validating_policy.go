package policy

import (
	"context"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/advice"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/core"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfconv"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

// admission_validating_admission_policy: a ValidatingAdmissionPolicy, the
// policy kind whose CEL validations the API server evaluates itself.

type validatingPolicy = admissionregistrationv1.ValidatingAdmissionPolicy

type validatingPolicySpec struct {
	policyBase
	Validations      []validationModel      `tfsdk:"validations"`
	AuditAnnotations []auditAnnotationModel `tfsdk:"audit_annotations"`
}

type validationModel struct {
	Expression        types.String `tfsdk:"expression"`
	Message           types.String `tfsdk:"message"`
	MessageExpression types.String `tfsdk:"message_expression"`
	Reason            types.String `tfsdk:"reason"`
}

type auditAnnotationModel struct {
	Key             types.String `tfsdk:"key"`
	ValueExpression types.String `tfsdk:"value_expression"`
}

var validatingPolicies = describe(kube.ValidatingAdmissionPolicies, policyKind[validatingPolicySpec, validatingPolicy]{
	typeName: "validating_admission_policy",
	description: "A `ValidatingAdmissionPolicy` (`admissionregistration.k8s.io/v1`): CEL validations the API server evaluates itself, " +
		"with no webhook to run. It applies to nothing until a binding (`admission_validating_admission_policy_binding`) names it. " +
		"At plan, its expressions are type-checked against the schemas of the kinds it matches.",
	generationDoc:   "the policy's settings",
	specDescription: "The policy: what it applies to, and its validations and audit annotations (at least one of them).",
	// hashicorp/kubernetes' kubernetes_validating_admission_policy_v1 (move.go).
	stateMovers: validatingPolicyMovers,
	spec: func() (map[string]schema.Attribute, map[string]schema.Block) {
		attrs, blocks := policyBaseSchema("the validations and audit annotations", validatingOperations)
		maps.Copy(blocks, map[string]schema.Block{
			"validations": schema.ListNestedBlock{
				MarkdownDescription: "CEL expressions a request must all pass. Each may use `object`, `oldObject`, `request`, `params`, " +
					"`namespaceObject`, `authorizer` and `variables`.",
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"expression": schema.StringAttribute{Required: true, MarkdownDescription: "CEL expression that evaluates to a bool: `true` lets the request through."},
					"message": schema.StringAttribute{Optional: true, MarkdownDescription: "Message of a failed validation, on one line (no line breaks). " +
						"Left out, the message names the failed expression."},
					"message_expression": schema.StringAttribute{Optional: true, MarkdownDescription: "CEL expression that evaluates to the message of a failed validation, a string; " +
						"`message` is used when it fails or gives an empty string. It sees the same variables as `expression` but `authorizer`."},
					"reason": schema.StringAttribute{Optional: true, MarkdownDescription: "The HTTP reason of a failed validation: `Unauthorized`, `Forbidden`, `Invalid` " +
						"or `RequestEntityTooLarge`. Left out, `Invalid`."},
				}},
			},
			"audit_annotations": schema.ListNestedBlock{
				MarkdownDescription: "Annotations added to the audit event of each matching request.",
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"key": schema.StringAttribute{Required: true, MarkdownDescription: "Key of the annotation, unique in the policy; the audit event gets `<policy name>/<key>`."},
					"value_expression": schema.StringAttribute{Required: true, MarkdownDescription: "CEL expression that evaluates to the annotation's value, " +
						"a string (or null to leave it out)."},
				}},
			},
		})
		return attrs, blocks
	},
	meta: func(p *validatingPolicy) *metav1.ObjectMeta { return &p.ObjectMeta },
	expandSpec: func(x *tfconv.Expander, s validatingPolicySpec, p *field.Path, obj *validatingPolicy) {
		base := expandPolicyBase(x, s.policyBase, p)
		obj.Spec = admissionregistrationv1.ValidatingAdmissionPolicySpec{
			ParamKind:        base.ParamKind,
			MatchConstraints: base.MatchConstraints,
			MatchConditions:  base.MatchConditions,
			Variables:        base.Variables,
			FailurePolicy:    base.FailurePolicy,
		}
		for i, v := range s.Validations {
			vp := p.Child("validations").Index(i)
			obj.Spec.Validations = append(obj.Spec.Validations, admissionregistrationv1.Validation{
				Expression:        x.Str(v.Expression, vp.Child("expression")),
				Message:           x.Str(v.Message, vp.Child("message")),
				MessageExpression: x.Str(v.MessageExpression, vp.Child("messageExpression")),
				Reason:            (*metav1.StatusReason)(x.StrPtr(v.Reason, vp.Child("reason"))),
			})
		}
		for i, a := range s.AuditAnnotations {
			ap := p.Child("auditAnnotations").Index(i)
			obj.Spec.AuditAnnotations = append(obj.Spec.AuditAnnotations, admissionregistrationv1.AuditAnnotation{
				Key:             x.Str(a.Key, ap.Child("key")),
				ValueExpression: x.Str(a.ValueExpression, ap.Child("valueExpression")),
			})
		}
	},
	flattenSpec: func(obj *validatingPolicy, prior *validatingPolicySpec) validatingPolicySpec {
		spec := obj.Spec
		var pb *policyBase
		if prior != nil {
			pb = &prior.policyBase
		}
		s := validatingPolicySpec{policyBase: flattenPolicyBase(policyParts{
			ParamKind:        spec.ParamKind,
			MatchConstraints: spec.MatchConstraints,
			MatchConditions:  spec.MatchConditions,
			Variables:        spec.Variables,
			FailurePolicy:    spec.FailurePolicy,
		}, pb)}
		for _, v := range spec.Validations {
			s.Validations = append(s.Validations, validationModel{
				Expression:        types.StringValue(v.Expression),
				Message:           optionalString(v.Message),
				MessageExpression: optionalString(v.MessageExpression),
				Reason:            types.StringPointerValue((*string)(v.Reason)),
			})
		}
		for _, a := range spec.AuditAnnotations {
			s.AuditAnnotations = append(s.AuditAnnotations, auditAnnotationModel{
				Key:             types.StringValue(a.Key),
				ValueExpression: types.StringValue(a.ValueExpression),
			})
		}
		return s
	},
	defaults: validation.DefaultValidatingPolicy,
	check:    validation.ValidatingPolicyCheck,
	advise: func(ctx context.Context, env core.PlanEnv, p *validatingPolicy) []warning.Warning {
		recordPlanned(&plannedValidating, env, p.Name, p)
		planBegins(env)
		ws := typeCheckValidating(env, p)
		if !env.UnknownUnder("spec.matchConstraints") {
			ws = append(ws, advice.PolicyExactBypass("validating admission policy", p.Spec.MatchConstraints, advice.ServedVersions(ctx, env.Live()))...)
		}
		return append(ws, validatingPolicyImpact(ctx, env, p)...)
	},
}, map[string]schema.Attribute{"status": policyStatusAttribute()},
	func(m policyModel[validatingPolicySpec], p *validatingPolicy, _ *validatingPolicyModel) validatingPolicyModel {
		return validatingPolicyModel{m, policyStatus(p)}
	},
	func(m *validatingPolicyModel) *policyModel[validatingPolicySpec] { return &m.policyModel })

// validatingPolicyModel is a ValidatingAdmissionPolicy, with the status the
// server computes.
type validatingPolicyModel struct {
	policyModel[validatingPolicySpec]
	Status types.Object `tfsdk:"status"`
}

// policyStatusAttribute is the read-only status of a ValidatingAdmissionPolicy.
func policyStatusAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Computed: true,
		MarkdownDescription: "What the cluster found about the stored policy, written by kube-controller-manager shortly after each change, " +
			"so it can be empty right after an apply and is read at the next refresh.",
		Attributes: map[string]schema.Attribute{
			"observed_generation": schema.Int64Attribute{Computed: true, MarkdownDescription: "The generation of the policy the status is about."},
			"type_checking": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The server's type-checking warnings: one per expression that does not type-check against a kind the policy matches.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"field_ref": schema.StringAttribute{Computed: true, MarkdownDescription: "API path of the expression, such as `spec.validations[0].expression`."},
					"warning":   schema.StringAttribute{Computed: true, MarkdownDescription: "What is wrong with it."},
				}},
			},
			"conditions": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The policy's conditions.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"type":                 schema.StringAttribute{Computed: true, MarkdownDescription: "Type of the condition."},
					"status":               schema.StringAttribute{Computed: true, MarkdownDescription: "`True`, `False` or `Unknown`."},
					"reason":               schema.StringAttribute{Computed: true, MarkdownDescription: "Why it has this status, in CamelCase."},
					"message":              schema.StringAttribute{Computed: true, MarkdownDescription: "Why it has this status, for people."},
					"observed_generation":  schema.Int64Attribute{Computed: true, MarkdownDescription: "The generation the condition is about."},
					"last_transition_time": schema.StringAttribute{Computed: true, MarkdownDescription: "When the status last changed (RFC 3339)."},
				}},
			},
		},
	}
}

type policyStatusModel struct {
	ObservedGeneration types.Int64         `tfsdk:"observed_generation"`
	TypeChecking       []typeCheckingModel `tfsdk:"type_checking"`
	Conditions         []conditionModel    `tfsdk:"conditions"`
}

type typeCheckingModel struct {
	FieldRef types.String `tfsdk:"field_ref"`
	Warning  types.String `tfsdk:"warning"`
}

type conditionModel struct {
	Type               types.String `tfsdk:"type"`
	Status             types.String `tfsdk:"status"`
	Reason             types.String `tfsdk:"reason"`
	Message            types.String `tfsdk:"message"`
	ObservedGeneration types.Int64  `tfsdk:"observed_generation"`
	LastTransitionTime types.String `tfsdk:"last_transition_time"`
}

// policyStatus is the status attribute's value for p.
func policyStatus(p *validatingPolicy) types.Object {
	st := p.Status
	m := policyStatusModel{
		ObservedGeneration: types.Int64Value(st.ObservedGeneration),
		TypeChecking:       []typeCheckingModel{},
		Conditions:         []conditionModel{},
	}
	if st.TypeChecking != nil {
		for _, w := range st.TypeChecking.ExpressionWarnings {
			m.TypeChecking = append(m.TypeChecking, typeCheckingModel{FieldRef: types.StringValue(w.FieldRef), Warning: types.StringValue(w.Warning)})
		}
	}
	for _, c := range st.Conditions {
		m.Conditions = append(m.Conditions, conditionModel{
			Type:               types.StringValue(c.Type),
			Status:             types.StringValue(string(c.Status)),
			Reason:             types.StringValue(c.Reason),
			Message:            types.StringValue(c.Message),
			ObservedGeneration: types.Int64Value(c.ObservedGeneration),
			LastTransitionTime: types.StringValue(c.LastTransitionTime.UTC().Format("2006-01-02T15:04:05Z07:00")),
		})
	}
	// The model has the attribute's shape, so this cannot fail; were the attribute not an
	// object, the null object of no attributes would not be the schema's type, which writing
	// the state reports (a conversion error).
	t, ok := policyStatusAttribute().GetType().(types.ObjectType)
	if !ok {
		return types.ObjectNull(nil)
	}
	v, _ := types.ObjectValueFrom(context.Background(), t.AttrTypes, m)
	return v
}
