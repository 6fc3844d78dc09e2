package validation

import (
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/celcompile"
)

// MutatingAdmissionPolicy and MutatingAdmissionPolicyBinding.

// supportedPatchTypes are the patch types of a mutation (supportedPatchType).
var supportedPatchTypes = []string{"ApplyConfiguration", "JSONPatch"}

// ValidateMutatingPolicy returns the errors a kube-apiserver of version Assumed (1.37) returns
// when creating p: ValidateMutatingPolicyAt(Assumed, p, nil).
func ValidateMutatingPolicy(p *admissionregistrationv1.MutatingAdmissionPolicy) field.ErrorList {
	return ValidateMutatingPolicyAt(Assumed, p, nil)
}

// ValidateMutatingPolicyAt returns the errors a kube-apiserver of version v returns when
// creating p, or, when old is not nil, when updating old to p, already defaulted
// (DefaultMutatingPolicy). A create's errors come in the server's order: metadata
// (ValidateObjectMeta), the spec (validateMutatingAdmissionPolicySpec), then the reserved name
// suffix (k8s.io/kubernetes pkg/registry/admissionregistration/mutatingadmissionpolicy,
// Strategy.Validate). As for webhook configurations, metadata.namespace and metadata.generation
// are ignored, and a name is generated from generateName when name is empty. An update
// (ValidateMutatingAdmissionPolicyUpdate) is as for a ValidatingAdmissionPolicy (see
// ValidateValidatingPolicyAt).
//
// Not checked: the server's authorization of spec.paramKind for users who are not superusers
// (see ValidateValidatingPolicyAt).
func ValidateMutatingPolicyAt(v Version, p, old *admissionregistrationv1.MutatingAdmissionPolicy) field.ErrorList {
	if p == nil {
		return nil
	}
	o := createOptions(v)
	var errs field.ErrorList
	if old != nil {
		o = &options{version: v, update: true,
			ignoreMatchConditions: policyMatchConditionsKept(p.Spec.ParamKind, old.Spec.ParamKind, p.Spec.MatchConditions, old.Spec.MatchConditions)}
		// findMutatingPolicyPreexistingExpressions
		for _, mc := range old.Spec.MatchConditions {
			o.keep(setMatchConditions, mc.Expression)
		}
		for _, m := range old.Spec.Mutations {
			if m.ApplyConfiguration != nil {
				o.keep(setApplyConfigurations, m.ApplyConfiguration.Expression)
			}
			if m.JSONPatch != nil {
				o.keep(setApplyConfigurations, m.JSONPatch.Expression)
			}
		}
		errs = validateMetaUpdate(v, &p.ObjectMeta, &old.ObjectMeta)
	}
	name := policyName(&p.ObjectMeta)
	errs = append(errs, validateObjectMeta(v, &p.ObjectMeta, name, field.NewPath("metadata"))...)
	errs = append(errs, validateMutatingPolicySpec(o, &p.Spec, field.NewPath("spec"))...)
	if old == nil {
		errs = append(errs, validateStaticSuffix(v, name)...)
	}
	return errs
}

// validateMutatingPolicySpec is validateMutatingAdmissionPolicySpec.
func validateMutatingPolicySpec(o *options, spec *admissionregistrationv1.MutatingAdmissionPolicySpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	hasParams := spec.ParamKind != nil
	// The server makes a composited compiler for every mutating policy, variables or not.
	c := celcompile.NewPolicy(true)
	defer c.Release()

	errs = append(errs, validateFailurePolicy(spec.FailurePolicy, fldPath.Child("failurePolicy"))...)
	if hasParams {
		errs = append(errs, validateParamKind(spec.ParamKind, fldPath.Child("paramKind"))...)
	}
	if spec.MatchConstraints == nil {
		errs = append(errs, field.Required(fldPath.Child("matchConstraints"), ""))
	} else {
		errs = append(errs, validateMatchResources(spec.MatchConstraints, fldPath.Child("matchConstraints"))...)
		if len(spec.MatchConstraints.ResourceRules) == 0 {
			errs = append(errs, field.Required(fldPath.Child("matchConstraints", "resourceRules"), ""))
		}
		errs = append(errs, validateMutatingOperations(spec.MatchConstraints.ResourceRules, fldPath.Child("matchConstraints"))...)
	}
	errs = append(errs, validatePolicyMatchConditions(o, c, spec.MatchConditions, hasParams, fldPath.Child("matchConditions"))...)
	errs = append(errs, validateVariables(o, c, spec.Variables, hasParams, fldPath.Child("variables"))...)
	if len(spec.Mutations) == 0 {
		errs = append(errs, field.Required(fldPath.Child("mutations"), "mutations must contain at least one item"))
	}
	for i := range spec.Mutations {
		errs = append(errs, validateMutation(o, c, &spec.Mutations[i], hasParams, fldPath.Child("mutations").Index(i))...)
	}
	// No default: reinvocationPolicy is required.
	if spec.ReinvocationPolicy == "" {
		errs = append(errs, field.Required(fldPath.Child("reinvocationPolicy"), ""))
	} else if !slices.Contains(supportedReinvocationPolicies, string(spec.ReinvocationPolicy)) {
		errs = append(errs, field.NotSupported(fldPath.Child("reinvocationPolicy"), spec.ReinvocationPolicy, supportedReinvocationPolicies))
	}
	return errs
}

// validateMutation checks one spec.mutations entry (validateMutation): the patch of its
// patchType, and not the other.
func validateMutation(o *options, c *celcompile.Policy, m *admissionregistrationv1.Mutation, hasParams bool, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch m.PatchType {
	case "":
		errs = append(errs, field.Required(fldPath.Child("patchType"), ""))
	case admissionregistrationv1.PatchTypeJSONPatch:
		if m.JSONPatch == nil {
			errs = append(errs, field.Required(fldPath.Child("jsonPatch"), "must be specified when patchType is JSONPatch"))
		} else {
			errs = append(errs, validatePatchExpression(o, c, celcompile.KindJSONPatch, m.JSONPatch.Expression, hasParams, fldPath.Child("jsonPatch", "expression"))...)
		}
		if m.ApplyConfiguration != nil {
			errs = append(errs, field.Invalid(fldPath.Child("applyConfiguration"), "{applyConfiguration}", "must not be specified when patchType is JSONPatch"))
		}
	case admissionregistrationv1.PatchTypeApplyConfiguration:
		if m.ApplyConfiguration == nil {
			errs = append(errs, field.Required(fldPath.Child("applyConfiguration"), "must be specified when patchType is ApplyConfiguration"))
		} else {
			errs = append(errs, validatePatchExpression(o, c, celcompile.KindApplyConfiguration, m.ApplyConfiguration.Expression, hasParams, fldPath.Child("applyConfiguration", "expression"))...)
		}
		if m.JSONPatch != nil {
			errs = append(errs, field.Invalid(fldPath.Child("jsonPatch"), "{jsonPatch}", "must not be specified when patchType is ApplyConfiguration"))
		}
	default:
		errs = append(errs, field.NotSupported(fldPath.Child("patchType"), m.PatchType, supportedPatchTypes))
	}
	return errs
}

// validatePatchExpression checks the expression of a JSON patch or an apply configuration
// (validateJSONPatch, validateApplyConfiguration): trimmed, compiled with the patch types
// (JSONPatch{...}, Object{...}) declared, and quoted trimmed in an error. The stored
// expressions are looked up as written, those of JSON patches among the stored apply
// configurations' as the server does (validateJSONPatch).
func validatePatchExpression(o *options, c *celcompile.Policy, k celcompile.Kind, expr string, hasParams bool, fldPath *field.Path) field.ErrorList {
	trimmed := strings.TrimSpace(expr)
	if trimmed == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	decls := plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true, HasPatchTypes: true}
	if err := c.Compile(o.env(setApplyConfigurations, expr), k, trimmed, decls); err != nil {
		return field.ErrorList{celFieldError(err, fldPath, trimmed)}
	}
	return nil
}

// ValidateMutatingPolicyBinding returns the errors a kube-apiserver of version Assumed (1.37)
// returns when creating b: ValidateMutatingPolicyBindingAt(Assumed, b, nil).
func ValidateMutatingPolicyBinding(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) field.ErrorList {
	return ValidateMutatingPolicyBindingAt(Assumed, b, nil)
}

// ValidateMutatingPolicyBindingAt returns the errors a kube-apiserver of version v returns
// when creating b, or, when old is not nil, when updating old to b, already defaulted
// (DefaultMutatingPolicyBinding). A create's errors come in the server's order: metadata, the spec
// (validateMutatingAdmissionPolicyBindingSpec), then the reserved name suffix. Unlike the
// validating kind's, this binding has no declarative checks: an empty policyName is reported in
// place.
//
// An update (ValidateMutatingAdmissionPolicyBindingUpdate) first checks what may not change in
// metadata, then checks the binding as a create does, but for the reserved name suffix.
//
// Not checked: the server's authorization of spec.paramRef for users who are not superusers.
func ValidateMutatingPolicyBindingAt(v Version, b, old *admissionregistrationv1.MutatingAdmissionPolicyBinding) field.ErrorList {
	if b == nil {
		return nil
	}
	var errs field.ErrorList
	if old != nil {
		errs = validateMetaUpdate(v, &b.ObjectMeta, &old.ObjectMeta)
	}
	name := policyName(&b.ObjectMeta)
	spec := field.NewPath("spec")
	errs = append(errs, validateObjectMeta(v, &b.ObjectMeta, name, field.NewPath("metadata"))...)
	if b.Spec.PolicyName == "" {
		errs = append(errs, field.Required(spec.Child("policyName"), ""))
	} else {
		errs = append(errs, validatePolicyName(b.Spec.PolicyName, spec.Child("policyName"))...)
	}
	errs = append(errs, validateParamRef(b.Spec.ParamRef, spec.Child("paramRef"))...)
	if mr := b.Spec.MatchResources; mr != nil {
		errs = append(errs, validateMatchResources(mr, spec.Child("matchResources"))...)
		errs = append(errs, validateMutatingOperations(mr.ResourceRules, spec.Child("matchResources"))...)
	}
	if old == nil {
		errs = append(errs, validateStaticSuffix(v, name)...)
	}
	return errs
}
