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
	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/object"
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

var validatingBindings = newKind(kube.ValidatingAdmissionPolicyBindings, policyKind[validatingBindingSpec, validatingBinding]{
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
	advise: func(ctx context.Context, env object.PlanEnv, b *validatingBinding) []warning.Warning {
		return adviseBinding(ctx, env, validatingPolicies, b.Spec.PolicyName, b.Spec.ParamRef, b.Spec.MatchResources,
			func(p *validatingPolicy) advice.BoundPolicy {
				return advice.BoundPolicy{Kind: "validating admission policy", Name: p.Name, ParamKind: p.Spec.ParamKind,
					FailurePolicy: p.Spec.FailurePolicy, Constraints: p.Spec.MatchConstraints}
			},
			func(p *validatingPolicy) []warning.Warning { return advice.PolicyLockout(p, b) })
	},
})
