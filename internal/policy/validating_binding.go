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
	"github.com/seed-a73d233f/terraform-provider-admission/internal/metadata"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfconv"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfschema"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

// admission_validating_admission_policy_binding: a
// ValidatingAdmissionPolicyBinding, which applies a ValidatingAdmissionPolicy
// with its parameters and says what a failed validation does.

type validatingBinding = admissionregistrationv1.ValidatingAdmissionPolicyBinding

type validatingBindingSpec struct {
	bindingBase
	ValidationActions types.List `tfsdk:"validation_actions"`
}

var validatingBindings = gated(describe(kube.ValidatingAdmissionPolicyBindings, policyKind[validatingBindingSpec, validatingBinding]{
	typeName: "validating_admission_policy_binding",
	description: "A `ValidatingAdmissionPolicyBinding` (`admissionregistration.k8s.io/v1`): applies a `ValidatingAdmissionPolicy` " +
		"to the requests it matches, with its parameters, and says what a failed validation does.",
	generationDoc:   "the binding's settings",
	specDescription: "The binding: the policy, its parameters, the requests it applies to, and the validation actions.",
	spec: func() (map[string]schema.Attribute, map[string]schema.Block) {
		attrs, blocks := bindingBaseSchema("ValidatingAdmissionPolicy", validatingOperations)
		maps.Copy(attrs, map[string]schema.Attribute{
			"validation_actions": tfschema.StringList("What a failed validation does, without duplicates: `Deny` rejects the request, "+
				"`Warn` returns a warning to the client, `Audit` records it in the audit event. `Deny` and `Warn` cannot be used together.", true),
		})
		return attrs, blocks
	},
	meta: func(b *validatingBinding) *metav1.ObjectMeta { return &b.ObjectMeta },
	expandSpec: func(x *tfconv.Expander, s validatingBindingSpec, p *field.Path, obj *validatingBinding) {
		base := expandBindingBase(x, s.bindingBase, p)
		obj.Spec = admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:     base.PolicyName,
			ParamRef:       base.ParamRef,
			MatchResources: base.MatchResources,
		}
		for _, a := range x.Strings(s.ValidationActions, p.Child("validationActions")) {
			obj.Spec.ValidationActions = append(obj.Spec.ValidationActions, admissionregistrationv1.ValidationAction(a))
		}
	},
	flattenSpec: func(obj *validatingBinding, prior *validatingBindingSpec) validatingBindingSpec {
		var pb *bindingBase
		priorActions := types.ListNull(types.StringType)
		if prior != nil {
			pb, priorActions = &prior.bindingBase, prior.ValidationActions
		}
		actions := make([]string, 0, len(obj.Spec.ValidationActions))
		for _, a := range obj.Spec.ValidationActions {
			actions = append(actions, string(a))
		}
		return validatingBindingSpec{
			bindingBase:       flattenBindingBase(bindingParts{obj.Spec.PolicyName, obj.Spec.ParamRef, obj.Spec.MatchResources}, pb),
			ValidationActions: tfconv.StringList(actions, priorActions),
		}
	},
	defaults: validation.DefaultValidatingPolicyBinding,
	check:    validation.ValidatingPolicyBindingCheck,
	advise: func(ctx context.Context, env core.PlanEnv, b *validatingBinding) []warning.Warning {
		planBegins(env)
		return append(adviseBinding(ctx, env, validatingPolicies, &plannedValidating, b.Spec.PolicyName, b.Spec.ParamRef, b.Spec.MatchResources,
			func(p *validatingPolicy) advice.BoundPolicy {
				return advice.BoundPolicy{Kind: "validating admission policy", Name: p.Name, ParamKind: p.Spec.ParamKind,
					FailurePolicy: p.Spec.FailurePolicy, Constraints: p.Spec.MatchConstraints}
			},
			func(p *validatingPolicy) []warning.Warning {
				return advice.PolicyLockout(p, b, checker(env).ValidatingPolicy(p))
			}),
			validatingBindingImpact(ctx, env, b, gateOf(env))...)
	},
}, map[string]schema.Attribute{"fail_on_existing_denials": schema.BoolAttribute{
	Optional: true,
	MarkdownDescription: "Fail the plan when this binding, as planned, would deny objects the cluster already runs on their next write, " +
		"or when the plan cannot tell, could not read all of them, or cannot judge at plan (a `policy_name` known only at apply) " +
		"(the impact the plan reports, when the cluster can be reached and " +
		"`dry_run_on_plan` is on): a gate for pipelines that roll out with `Warn` first. " +
		"It holds also for a change of the policy alone: the binding applied with the gate on records it in the cluster, in the annotation `" +
		metadata.GateAnnotation + ": \"true\"` (not part of `metadata.annotations`), and the plan of the policy reads it from the bindings the cluster has. Default: `false`.",
}},
	func(m policyModel[validatingBindingSpec], obj *validatingBinding, prior *validatingBindingModel) validatingBindingModel {
		return validatingBindingModel{m, gateRead(obj, prior)}
	},
	func(m *validatingBindingModel) *policyModel[validatingBindingSpec] { return &m.policyModel }))

// validatingBindingModel is a ValidatingAdmissionPolicyBinding, with the gate on its impact,
// which only this resource has.
type validatingBindingModel struct {
	policyModel[validatingBindingSpec]
	FailOnExistingDenials types.Bool `tfsdk:"fail_on_existing_denials"`
}
