package policy

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
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

// admission_mutating_admission_policy_binding: a
// MutatingAdmissionPolicyBinding, which applies a MutatingAdmissionPolicy
// with its parameters. It is a binding and nothing more.

type mutatingBinding = admissionregistrationv1.MutatingAdmissionPolicyBinding

var mutatingBindings = newKind(kube.MutatingAdmissionPolicyBindings, policyKind[bindingBase, mutatingBinding]{
	typeName: "mutating_admission_policy_binding",
	description: "A `MutatingAdmissionPolicyBinding` (`admissionregistration.k8s.io/v1`): applies a `MutatingAdmissionPolicy` " +
		"to the requests it matches, with its parameters.",
	generationDoc:   "the binding's settings",
	specDescription: "The binding: the policy, its parameters and the requests it applies to.",
	spec: func() (map[string]schema.Attribute, map[string]schema.Block) {
		return bindingBaseSchema("MutatingAdmissionPolicy", mutatingOperations)
	},
	meta: func(b *mutatingBinding) *metav1.ObjectMeta { return &b.ObjectMeta },
	expandSpec: func(x *tfconv.Expander, s bindingBase, p *field.Path, obj *mutatingBinding) {
		base := expandBindingBase(x, s, p)
		obj.Spec = admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{
			PolicyName:     base.PolicyName,
			ParamRef:       base.ParamRef,
			MatchResources: base.MatchResources,
		}
	},
	flattenSpec: func(obj *mutatingBinding, prior *bindingBase) bindingBase {
		return flattenBindingBase(bindingParts{obj.Spec.PolicyName, obj.Spec.ParamRef, obj.Spec.MatchResources}, prior)
	},
	defaults: validation.DefaultMutatingPolicyBinding,
	check:    validation.MutatingPolicyBindingCheck,
	advise: func(ctx context.Context, env core.PlanEnv, b *mutatingBinding) []warning.Warning {
		planMutatingBinding(env, b)
		return append(adviseBinding(ctx, env, mutatingPolicies, &plannedMutating, b.Spec.PolicyName, b.Spec.ParamRef, b.Spec.MatchResources,
			func(p *mutatingPolicy) advice.BoundPolicy {
				return advice.BoundPolicy{Kind: "mutating admission policy", Name: p.Name, ParamKind: p.Spec.ParamKind,
					FailurePolicy: p.Spec.FailurePolicy, Constraints: p.Spec.MatchConstraints}
			},
			func(p *mutatingPolicy) []warning.Warning { return advice.MutatingPolicyLockout(p, b) }),
			mutatingBindingImpact(ctx, env, b)...)
	},
})
