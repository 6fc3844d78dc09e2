package policy

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/core"
)

const hashicorpPolicyType = "kubernetes_validating_admission_policy_v1"

// validatingPolicyMovers are the state movers of
// admission_validating_admission_policy: from hashicorp/kubernetes'
// kubernetes_validating_admission_policy_v1, schema version 0
// (hashicorp/terraform-provider-kubernetes,
// internal/framework/provider/admissionregistrationv1). That resource has
// nested attributes where this one has blocks, and keeps in its state the
// spec as configured (its Read refreshes only the metadata), so its state is
// read as the API object it describes and written as this resource reads
// that object: the refresh that follows reads the server's defaults and
// anything else from the server. Labels and annotations are read by the rule
// of an object without prior state (metadata.Own): other tools' bookkeeping
// in that state is left to them.
//
// That provider never sends a validation's reason to the server (its
// expandValidatingAdmissionPolicySpec drops it: "v1beta1 doesn't have Reason
// field"), though its state records the configured one. The moved state has
// none, as the live object, and the reasons the source state claims are kept
// beside it (core.KeepUnsent): a plan that sets one says on its line that
// the server never had it.
func validatingPolicyMovers(_ context.Context, write core.StateWriter[validatingPolicy]) []resource.StateMover {
	return []resource.StateMover{{StateMover: func(ctx context.Context, req resource.MoveStateRequest, resp *resource.MoveStateResponse) {
		if !core.FromHashicorpKubernetes(req.SourceProviderAddress) || req.SourceTypeName != hashicorpPolicyType {
			return // not ours to move: the framework reports that no mover matched
		}
		fail := func(detail string) {
			resp.Diagnostics.AddError("Cannot move the state of "+req.SourceTypeName, detail)
		}
		if req.SourceSchemaVersion != 0 || req.SourceRawState == nil {
			fail("Only the state of schema version 0 of hashicorp/kubernetes' " + req.SourceTypeName + " can be moved; " +
				"remove it from the state (a removed block) and import the object instead.")
			return
		}
		var src hashicorpPolicy
		if err := json.Unmarshal(req.SourceRawState.JSON, &src); err != nil {
			fail("Its state does not have the shape of hashicorp/kubernetes' schema version 0: " + err.Error())
			return
		}
		obj := src.object()
		if obj.Name == "" {
			fail("Its state has no metadata.name.")
			return
		}
		var unsent []core.Unsent
		for i := range obj.Spec.Validations {
			v := &obj.Spec.Validations[i]
			if v.Reason != nil {
				unsent = append(unsent, core.Unsent{
					Path:  field.NewPath("spec", "validations").Index(i).Child("reason").String(),
					Value: string(*v.Reason),
					Why:   unsentReason(string(*v.Reason)),
				})
				v.Reason = nil
			}
		}
		resp.Diagnostics.Append(write(ctx, obj, &resp.TargetState)...)
		resp.Diagnostics.Append(core.KeepUnsent(ctx, resp.TargetPrivate, unsent)...)
		core.SetIdentity(ctx, resp.TargetIdentity, obj.Name, &resp.Diagnostics)
	}}}
}

// unsentReason says why a reason moved from hashicorp/kubernetes is not on
// the server, and what the plan that sets it does.
func unsentReason(reason string) string {
	return "The state moved from hashicorp/kubernetes records reason = \"" + reason + "\" for this validation, but that provider never " +
		"sends a validation's reason to the API server (it drops the field), so the live ValidatingAdmissionPolicy has none and " +
		"answers a failed validation with the server's default reason, Invalid. This plan sets it as configured: the apply writes " +
		"it, and this provider's field manager owns it from then on. To leave the policy as it is, remove reason from the configuration."
}

// hashicorpPolicy is the state of kubernetes_validating_admission_policy_v1,
// schema version 0. Its object attributes are single nested attributes;
// optional strings left out are null (the plugin framework), never "".
type hashicorpPolicy struct {
	ID       string `json:"id"`
	Metadata *struct {
		Name        string            `json:"name"`
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec *struct {
		FailurePolicy    *string `json:"failure_policy"`
		AuditAnnotations []struct {
			Key             string `json:"key"`
			ValueExpression string `json:"value_expression"`
		} `json:"audit_annotations"`
		MatchConditions []struct {
			Name       string `json:"name"`
			Expression string `json:"expression"`
		} `json:"match_conditions"`
		MatchConstraints *struct {
			MatchPolicy       *string            `json:"match_policy"`
			NamespaceSelector *hashicorpSelector `json:"namespace_selector"`
			ObjectSelector    *struct {
				LabelSelector *hashicorpSelector `json:"label_selector"`
			} `json:"object_selector"`
			ResourceRules        []hashicorpRule `json:"resource_rules"`
			ExcludeResourceRules []hashicorpRule `json:"exclude_resource_rules"`
		} `json:"match_constraints"`
		ParamKind *struct {
			APIVersion string `json:"api_version"`
			Kind       string `json:"kind"`
		} `json:"param_kind"`
		Validations []struct {
			Expression        string  `json:"expression"`
			Message           string  `json:"message"`
			MessageExpression string  `json:"message_expression"`
			Reason            *string `json:"reason"`
		} `json:"validations"`
		Variables []struct {
			Name       string `json:"name"`
			Expression string `json:"expression"`
		} `json:"variables"`
	} `json:"spec"`
}

type hashicorpSelector struct {
	MatchLabels      map[string]string `json:"match_labels"`
	MatchExpressions []struct {
		Key      string   `json:"key"`
		Operator string   `json:"operator"`
		Values   []string `json:"values"`
	} `json:"match_expressions"`
}

type hashicorpRule struct {
	APIGroups     []string `json:"api_groups"`
	APIVersions   []string `json:"api_versions"`
	Operations    []string `json:"operations"`
	Resources     []string `json:"resources"`
	ResourceNames []string `json:"resource_names"`
	Scope         *string  `json:"scope"`
}

// object is the ValidatingAdmissionPolicy the state describes.
func (h hashicorpPolicy) object() *validatingPolicy {
	obj := &validatingPolicy{}
	obj.Name = h.ID
	if md := h.Metadata; md != nil {
		if md.Name != "" {
			obj.Name = md.Name
		}
		obj.Labels, obj.Annotations = md.Labels, md.Annotations
	}
	s := h.Spec
	if s == nil {
		return obj
	}
	obj.Spec.FailurePolicy = (*admissionregistrationv1.FailurePolicyType)(nonEmpty(s.FailurePolicy))
	for _, a := range s.AuditAnnotations {
		obj.Spec.AuditAnnotations = append(obj.Spec.AuditAnnotations, admissionregistrationv1.AuditAnnotation{Key: a.Key, ValueExpression: a.ValueExpression})
	}
	for _, c := range s.MatchConditions {
		obj.Spec.MatchConditions = append(obj.Spec.MatchConditions, admissionregistrationv1.MatchCondition{Name: c.Name, Expression: c.Expression})
	}
	if k := s.ParamKind; k != nil {
		obj.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: k.APIVersion, Kind: k.Kind}
	}
	for _, v := range s.Validations {
		obj.Spec.Validations = append(obj.Spec.Validations, admissionregistrationv1.Validation{
			Expression: v.Expression, Message: v.Message, MessageExpression: v.MessageExpression,
			Reason: (*metav1.StatusReason)(nonEmpty(v.Reason)),
		})
	}
	for _, v := range s.Variables {
		obj.Spec.Variables = append(obj.Spec.Variables, admissionregistrationv1.Variable{Name: v.Name, Expression: v.Expression})
	}
	if mc := s.MatchConstraints; mc != nil {
		mr := &admissionregistrationv1.MatchResources{
			MatchPolicy:          (*admissionregistrationv1.MatchPolicyType)(nonEmpty(mc.MatchPolicy)),
			NamespaceSelector:    mc.NamespaceSelector.selector(),
			ResourceRules:        rulesOf(mc.ResourceRules),
			ExcludeResourceRules: rulesOf(mc.ExcludeResourceRules),
		}
		if mc.ObjectSelector != nil {
			mr.ObjectSelector = mc.ObjectSelector.LabelSelector.selector()
		}
		obj.Spec.MatchConstraints = mr
	}
	return obj
}

func (s *hashicorpSelector) selector() *metav1.LabelSelector {
	if s == nil {
		return nil
	}
	out := &metav1.LabelSelector{MatchLabels: s.MatchLabels}
	for _, e := range s.MatchExpressions {
		out.MatchExpressions = append(out.MatchExpressions, metav1.LabelSelectorRequirement{
			Key: e.Key, Operator: metav1.LabelSelectorOperator(e.Operator), Values: e.Values,
		})
	}
	return out
}

func rulesOf(in []hashicorpRule) []admissionregistrationv1.NamedRuleWithOperations {
	var out []admissionregistrationv1.NamedRuleWithOperations
	for _, r := range in {
		nr := admissionregistrationv1.NamedRuleWithOperations{ResourceNames: r.ResourceNames}
		nr.APIGroups, nr.APIVersions, nr.Resources = r.APIGroups, r.APIVersions, r.Resources
		nr.Scope = (*admissionregistrationv1.ScopeType)(nonEmpty(r.Scope))
		for _, op := range r.Operations {
			nr.Operations = append(nr.Operations, admissionregistrationv1.OperationType(op))
		}
		out = append(out, nr)
	}
	return out
}

// nonEmpty is s, or nil when s is nil or empty.
func nonEmpty(s *string) *string {
	if s == nil || *s == "" {
		return nil
	}
	return s
}
