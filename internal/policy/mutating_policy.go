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
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfschema"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

// admission_mutating_admission_policy: a MutatingAdmissionPolicy, the policy
// kind whose CEL mutations the API server applies itself.

type mutatingPolicy = admissionregistrationv1.MutatingAdmissionPolicy

type mutatingPolicySpec struct {
	policyBase
	Mutations          []mutationModel `tfsdk:"mutations"`
	ReinvocationPolicy types.String    `tfsdk:"reinvocation_policy"`
}

type mutationModel struct {
	PatchType          types.String      `tfsdk:"patch_type"`
	ApplyConfiguration []expressionModel `tfsdk:"apply_configuration"`
	JSONPatch          []expressionModel `tfsdk:"json_patch"`
}

type expressionModel struct {
	Expression types.String `tfsdk:"expression"`
}

func expressionBlock(desc string) schema.ListNestedBlock {
	return schema.ListNestedBlock{
		MarkdownDescription: desc,
		Validators:          tfschema.MaxOne(),
		NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
			"expression": schema.StringAttribute{Required: true, MarkdownDescription: "The CEL expression."},
		}},
	}
}

var mutatingPolicies = newKind(kube.MutatingAdmissionPolicies, policyKind[mutatingPolicySpec, mutatingPolicy]{
	typeName: "mutating_admission_policy",
	description: "A `MutatingAdmissionPolicy` (`admissionregistration.k8s.io/v1`): CEL mutations the API server applies itself, " +
		"with no webhook to run. It applies to nothing until a binding (`admission_mutating_admission_policy_binding`) names it. " +
		"At plan, its expressions are type-checked against the schemas of the kinds it matches.",
	generationDoc:   "the policy's settings",
	specDescription: "The policy: what it applies to, and its mutations.",
	spec: func() (map[string]schema.Attribute, map[string]schema.Block) {
		attrs, blocks := policyBaseSchema("the mutations", mutatingOperations)
		attrs["reinvocation_policy"] = schema.StringAttribute{
			Required: true,
			MarkdownDescription: "Whether the policy is applied again when a later mutation (a webhook or another policy) changes the object: " +
				"`Never` or `IfNeeded` (at most once more, so the mutations must be idempotent).",
		}
		maps.Copy(blocks, map[string]schema.Block{
			"mutations": schema.ListNestedBlock{
				MarkdownDescription: "The changes the policy makes, applied in order. Each may use `object`, `oldObject`, `request`, `params`, " +
					"`namespaceObject`, `authorizer` and `variables`.",
				NestedObject: schema.NestedBlockObject{
					Attributes: map[string]schema.Attribute{
						"patch_type": schema.StringAttribute{Required: true, MarkdownDescription: "`ApplyConfiguration` (set `apply_configuration`) or " +
							"`JSONPatch` (set `json_patch`)."},
					},
					Blocks: map[string]schema.Block{
						"apply_configuration": expressionBlock("A CEL expression that evaluates to an apply configuration, merged into the object as " +
							"server-side apply does: `Object{spec: Object.spec{replicas: 1}}`."),
						"json_patch": expressionBlock("A CEL expression that evaluates to a list of JSON patch operations (RFC 6902), such as " +
							"`[JSONPatch{op: \"replace\", path: \"/spec/replicas\", value: 1}]`; `jsonpatch.escapeKey` escapes a map key for a path. " +
							"An operation under a missing parent fails (`add` to `/metadata/labels/team` when the object has no labels)."),
					},
				},
			},
		})
		return attrs, blocks
	},
	meta: func(p *mutatingPolicy) *metav1.ObjectMeta { return &p.ObjectMeta },
	expandSpec: func(x *tfconv.Expander, s mutatingPolicySpec, p *field.Path, obj *mutatingPolicy) {
		base := expandPolicyBase(x, s.policyBase, p)
		obj.Spec = admissionregistrationv1.MutatingAdmissionPolicySpec{
			ParamKind:          base.ParamKind,
			MatchConstraints:   base.MatchConstraints,
			MatchConditions:    base.MatchConditions,
			Variables:          base.Variables,
			FailurePolicy:      base.FailurePolicy,
			ReinvocationPolicy: admissionregistrationv1.ReinvocationPolicyType(x.Str(s.ReinvocationPolicy, p.Child("reinvocationPolicy"))),
		}
		for i, m := range s.Mutations {
			mp := p.Child("mutations").Index(i)
			mutation := admissionregistrationv1.Mutation{PatchType: admissionregistrationv1.PatchType(x.Str(m.PatchType, mp.Child("patchType")))}
			if len(m.ApplyConfiguration) > 0 {
				mutation.ApplyConfiguration = &admissionregistrationv1.ApplyConfiguration{
					Expression: x.Str(m.ApplyConfiguration[0].Expression, mp.Child("applyConfiguration", "expression")),
				}
			}
			if len(m.JSONPatch) > 0 {
				mutation.JSONPatch = &admissionregistrationv1.JSONPatch{
					Expression: x.Str(m.JSONPatch[0].Expression, mp.Child("jsonPatch", "expression")),
				}
			}
			obj.Spec.Mutations = append(obj.Spec.Mutations, mutation)
		}
	},
	flattenSpec: func(obj *mutatingPolicy, prior *mutatingPolicySpec) mutatingPolicySpec {
		spec := obj.Spec
		var pb *policyBase
		if prior != nil {
			pb = &prior.policyBase
		}
		s := mutatingPolicySpec{
			policyBase: flattenPolicyBase(policyParts{
				ParamKind:        spec.ParamKind,
				MatchConstraints: spec.MatchConstraints,
				MatchConditions:  spec.MatchConditions,
				Variables:        spec.Variables,
				FailurePolicy:    spec.FailurePolicy,
			}, pb),
			ReinvocationPolicy: optionalString(string(spec.ReinvocationPolicy)),
		}
		for _, m := range spec.Mutations {
			mm := mutationModel{PatchType: types.StringValue(string(m.PatchType))}
			if m.ApplyConfiguration != nil {
				mm.ApplyConfiguration = []expressionModel{{Expression: types.StringValue(m.ApplyConfiguration.Expression)}}
			}
			if m.JSONPatch != nil {
				mm.JSONPatch = []expressionModel{{Expression: types.StringValue(m.JSONPatch.Expression)}}
			}
			s.Mutations = append(s.Mutations, mm)
		}
		return s
	},
	defaults: validation.DefaultMutatingPolicy,
	check:    validation.MutatingPolicyCheck,
	advise: func(ctx context.Context, env core.PlanEnv, p *mutatingPolicy) []warning.Warning {
		recordPlanned(&plannedMutating, env, p.Name, p)
		defer planMutatingPolicy(env, p)()
		ws := typeCheckMutating(env, p)
		if !env.UnknownUnder("spec.matchConstraints") {
			ws = append(ws, advice.PolicyExactBypass("mutating admission policy", p.Spec.MatchConstraints, advice.ServedVersions(ctx, env.Live()))...)
		}
		return append(ws, mutatingPolicyImpact(ctx, env, p)...)
	},
})
