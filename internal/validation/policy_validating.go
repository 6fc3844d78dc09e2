package validation

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/celcompile"
)

// ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding.

var (
	// supportedValidationReasons are the reasons a validation may give (supportedValidationPolicyReason).
	supportedValidationReasons = []string{"Forbidden", "Invalid", "RequestEntityTooLarge"}
	// supportedValidationActions are a binding's actions (validValidationActions).
	supportedValidationActions = []string{"Audit", "Deny", "Warn"}
)

const (
	// maxAuditAnnotations is the server's limit on spec.auditAnnotations.
	maxAuditAnnotations = 20
	// maxAuditAnnotationValueExpressionLength limits a trimmed valueExpression, in bytes.
	maxAuditAnnotationValueExpressionLength = 5 * 1024
)

// ValidateValidatingPolicy returns the errors a kube-apiserver of version Assumed (1.37) returns
// when creating p: ValidateValidatingPolicyAt(Assumed, p, nil).
func ValidateValidatingPolicy(p *admissionregistrationv1.ValidatingAdmissionPolicy) field.ErrorList {
	return ValidateValidatingPolicyAt(Assumed, p, nil)
}

// ValidateValidatingPolicyAt returns the errors a kube-apiserver of version v returns when
// creating p, or, when old is not nil, when updating old, as stored, to p; both already
// defaulted (DefaultValidatingPolicy). A create's errors come in the server's order: metadata
// (ValidateObjectMeta), the spec (validateValidatingAdmissionPolicySpec), then the reserved name
// suffix (k8s.io/kubernetes pkg/registry/admissionregistration/validatingadmissionpolicy,
// Strategy.Validate). As for webhook configurations, metadata.namespace and metadata.generation
// are ignored, and a name is generated from generateName when name is empty.
//
// An update (ValidateValidatingAdmissionPolicyUpdate) first checks what may not change in
// metadata, skips the match conditions when paramKind and the match conditions are kept,
// compiles the expressions the stored policy has in the StoredExpressions environment, and does
// not check the reserved name suffix.
//
// Not checked: the server's authorization of spec.paramKind (a Forbidden error at
// spec.paramKind when the requesting user may not read the kind's objects), which depends on
// the user and the cluster, and never happens for a superuser.
func ValidateValidatingPolicyAt(v Version, p, old *admissionregistrationv1.ValidatingAdmissionPolicy) field.ErrorList {
	if p == nil {
		return nil
	}
	o := createOptions(v)
	var errs field.ErrorList
	if old != nil {
		o = validatingPolicyUpdateOptions(v, p, old)
		errs = validateMetaUpdate(v, &p.ObjectMeta, &old.ObjectMeta)
	}
	name := policyName(&p.ObjectMeta)
	errs = append(errs, validateObjectMeta(v, &p.ObjectMeta, name, field.NewPath("metadata"))...)
	errs = append(errs, validateValidatingPolicySpec(o, name, &p.Spec, field.NewPath("spec"))...)
	if old == nil {
		errs = append(errs, validateStaticSuffix(v, name)...)
	}
	return errs
}

// validatingPolicyUpdateOptions are the options of ValidateValidatingAdmissionPolicyUpdate:
// match conditions ignored when kept with paramKind, and the stored expressions
// (findValidatingPolicyPreexistingExpressions).
func validatingPolicyUpdateOptions(v Version, p, old *admissionregistrationv1.ValidatingAdmissionPolicy) *options {
	o := &options{version: v, update: true,
		ignoreMatchConditions: policyMatchConditionsKept(p.Spec.ParamKind, old.Spec.ParamKind, p.Spec.MatchConditions, old.Spec.MatchConditions)}
	for _, mc := range old.Spec.MatchConditions {
		o.keep(setMatchConditions, mc.Expression)
	}
	for _, val := range old.Spec.Validations {
		o.keep(setValidations, val.Expression)
		if val.MessageExpression != "" {
			o.keep(setMessages, val.MessageExpression)
		}
	}
	for _, a := range old.Spec.AuditAnnotations {
		o.keep(setAuditValues, a.ValueExpression)
	}
	return o
}

// validateValidatingPolicySpec is validateValidatingAdmissionPolicySpec. name is the policy's
// name, which audit annotation keys are checked with.
func validateValidatingPolicySpec(o *options, name string, spec *admissionregistrationv1.ValidatingAdmissionPolicySpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	hasParams := spec.ParamKind != nil
	// The server makes a composited compiler only for a policy with variables.
	c := celcompile.NewPolicy(len(spec.Variables) > 0)
	defer c.Release()

	errs = append(errs, validateFailurePolicy(spec.FailurePolicy, fldPath.Child("failurePolicy"))...)
	if hasParams {
		errs = append(errs, validateParamKind(spec.ParamKind, fldPath.Child("paramKind"))...)
	}
	if spec.MatchConstraints == nil {
		errs = append(errs, field.Required(fldPath.Child("matchConstraints"), ""))
	} else {
		errs = append(errs, validateMatchResources(spec.MatchConstraints, fldPath.Child("matchConstraints"))...)
		// At least one resource rule, for type information.
		if len(spec.MatchConstraints.ResourceRules) == 0 {
			errs = append(errs, field.Required(fldPath.Child("matchConstraints", "resourceRules"), ""))
		}
	}
	errs = append(errs, validatePolicyMatchConditions(o, c, spec.MatchConditions, hasParams, fldPath.Child("matchConditions"))...)
	errs = append(errs, validateVariables(o, c, spec.Variables, hasParams, fldPath.Child("variables"))...)

	if len(spec.Validations) == 0 && len(spec.AuditAnnotations) == 0 {
		const msg = "validations or auditAnnotations must contain at least one item"
		return append(errs, field.Required(fldPath.Child("validations"), msg), field.Required(fldPath.Child("auditAnnotations"), msg))
	}
	for i := range spec.Validations {
		errs = append(errs, validateValidation(o, c, &spec.Validations[i], hasParams, fldPath.Child("validations").Index(i))...)
	}
	if len(spec.AuditAnnotations) > maxAuditAnnotations {
		errs = append(errs, field.Invalid(fldPath.Child("auditAnnotations"), internalAuditAnnotations(spec.AuditAnnotations),
			fmt.Sprintf("must not have more than %d auditAnnotations", maxAuditAnnotations)))
	}
	keys := make(map[string]bool, len(spec.AuditAnnotations))
	for i := range spec.AuditAnnotations {
		a := &spec.AuditAnnotations[i]
		p := fldPath.Child("auditAnnotations").Index(i)
		errs = append(errs, validateAuditAnnotation(o, c, name, a, hasParams, p)...)
		if keys[a.Key] {
			errs = append(errs, field.Duplicate(p.Child("key"), a.Key))
		}
		keys[a.Key] = true
	}
	return errs
}

// internalAuditAnnotation is the server's internal form of an audit annotation, which it quotes
// when there are too many: its JSON has the Go field names.
type internalAuditAnnotation struct {
	Key             string
	ValueExpression string
}

func internalAuditAnnotations(in []admissionregistrationv1.AuditAnnotation) []internalAuditAnnotation {
	out := make([]internalAuditAnnotation, len(in))
	for i, a := range in {
		out[i] = internalAuditAnnotation{Key: a.Key, ValueExpression: a.ValueExpression}
	}
	return out
}

var newlines = regexp.MustCompile(`[\n\r]+`) // the line breaks of CEL's grammar (hasNewlines)

// validateValidation checks one spec.validations entry (validateValidation). The expression
// and messageExpression are compiled as written, untrimmed, so that columns in the compiler's
// messages are right.
func validateValidation(o *options, c *celcompile.Policy, v *admissionregistrationv1.Validation, hasParams bool, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if strings.TrimSpace(v.Expression) == "" {
		errs = append(errs, field.Required(fldPath.Child("expression"), "expression is not specified"))
	} else if err := c.Compile(o.env(setValidations, v.Expression), celcompile.KindValidation, v.Expression, plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true}); err != nil {
		errs = append(errs, celFieldError(err, fldPath.Child("expression"), v.Expression))
	}
	if v.MessageExpression != "" && strings.TrimSpace(v.MessageExpression) == "" {
		errs = append(errs, field.Invalid(fldPath.Child("messageExpression"), v.MessageExpression, "must be non-empty if specified"))
	} else if v.MessageExpression != "" {
		// No authorizer for a message (validateMessageExpression).
		if err := c.Compile(o.env(setMessages, v.MessageExpression), celcompile.KindMessage, v.MessageExpression, plugincel.OptionalVariableDeclarations{HasParams: hasParams}); err != nil {
			errs = append(errs, celFieldError(err, fldPath.Child("messageExpression"), v.MessageExpression))
		}
	}
	trimmedMessage := strings.TrimSpace(v.Message)
	if v.Message != "" && trimmedMessage == "" {
		errs = append(errs, field.Invalid(fldPath.Child("message"), v.Message, "must be non-empty if specified"))
	} else if newlines.MatchString(trimmedMessage) {
		errs = append(errs, field.Invalid(fldPath.Child("message"), v.Message, "must not contain line breaks"))
	}
	if v.Reason != nil && !slices.Contains(supportedValidationReasons, string(*v.Reason)) {
		errs = append(errs, field.NotSupported(fldPath.Child("reason"), *v.Reason, supportedValidationReasons))
	}
	return errs
}

// validateAuditAnnotation checks one spec.auditAnnotations entry (validateAuditAnnotation): the
// key, as "<policy name>/<key>", must be a qualified name; the trimmed valueExpression must be
// at most 5 KiB and compile to a string or null.
func validateAuditAnnotation(o *options, c *celcompile.Policy, policyName string, a *admissionregistrationv1.AuditAnnotation, hasParams bool, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if policyName != "" {
		errs = append(errs, qualifiedName(policyName+"/"+a.Key, fldPath.Child("key"))...)
	} else {
		errs = append(errs, field.Invalid(fldPath.Child("key"), a.Key, "requires metadata.name be non-empty"))
	}
	valuePath := fldPath.Child("valueExpression")
	trimmed := strings.TrimSpace(a.ValueExpression)
	switch {
	case trimmed == "":
		errs = append(errs, field.Required(valuePath, "valueExpression is not specified"))
	case len(trimmed) > maxAuditAnnotationValueExpressionLength:
		// A Required error, as the server has it.
		errs = append(errs, field.Required(valuePath, fmt.Sprintf("must not exceed %d bytes in length", maxAuditAnnotationValueExpressionLength)))
	default:
		// The trimmed expression is compiled; the error quotes it as written; the stored
		// expressions are looked up as written.
		if err := c.Compile(o.env(setAuditValues, a.ValueExpression), celcompile.KindAuditValue, trimmed, plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true}); err != nil {
			errs = append(errs, auditValueError(err, valuePath, a.ValueExpression))
		}
	}
	return errs
}

// auditValueError is the inline conversion of validateAuditAnnotation: as celFieldError, but
// any other error type is an internal error with the compiler's error.
func auditValueError(err *apiservercel.Error, fldPath *field.Path, badValue string) *field.Error {
	switch err.Type {
	case apiservercel.ErrorTypeRequired:
		return field.Required(fldPath, err.Detail)
	case apiservercel.ErrorTypeInvalid:
		return field.Invalid(fldPath, badValue, err.Detail)
	}
	return field.InternalError(fldPath, err)
}

// ValidateValidatingPolicyBinding returns the errors a kube-apiserver of version Assumed (1.37)
// returns when creating b: ValidateValidatingPolicyBindingAt(Assumed, b, nil).
func ValidateValidatingPolicyBinding(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) field.ErrorList {
	return ValidateValidatingPolicyBindingAt(Assumed, b, nil)
}

// ValidateValidatingPolicyBindingAt returns the errors a kube-apiserver of version v returns
// when creating b, or, when old is not nil, when updating old to b, already defaulted
// (DefaultValidatingPolicyBinding). A create's errors come in the server's order:
// metadata, the spec (validateValidatingAdmissionPolicyBindingSpec), the reserved name suffix,
// and last the declarative checks that replace two of the spec's (k8s.io/kubernetes
// pkg/apis/admissionregistration/v1, Validate_ValidatingAdmissionPolicyBindingSpec, beta and
// enforced in 1.37): policyName and validationActions required, with no detail.
//
// An update (ValidateValidatingAdmissionPolicyBindingUpdate) first checks what may not change
// in metadata, then checks the binding as a create does, but for the reserved name suffix.
//
// Not checked: the server's authorization of spec.paramRef for users who are not superusers,
// which depends on the user, the policy and the cluster.
func ValidateValidatingPolicyBindingAt(v Version, b, old *admissionregistrationv1.ValidatingAdmissionPolicyBinding) field.ErrorList {
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
	// validateValidatingAdmissionPolicyBindingSpec, without its two Required errors covered by
	// the declarative validation (the registry drops them and adds the declarative ones last).
	if b.Spec.PolicyName != "" {
		errs = append(errs, validatePolicyName(b.Spec.PolicyName, spec.Child("policyName"))...)
	}
	errs = append(errs, validateParamRef(b.Spec.ParamRef, spec.Child("paramRef"))...)
	// A 1.31 server names the field "matchResouces" in these errors (a typo fixed in 1.32).
	matchResources := spec.Child("matchResources")
	if !v.AtLeast(32) {
		matchResources = spec.Child("matchResouces")
	}
	errs = append(errs, validateMatchResources(b.Spec.MatchResources, matchResources)...)
	errs = append(errs, validateValidationActions(b.Spec.ValidationActions, spec.Child("validationActions"))...)
	if old == nil {
		errs = append(errs, validateStaticSuffix(v, name)...)
	}
	if b.Spec.PolicyName == "" {
		errs = append(errs, field.Required(spec.Child("policyName"), ""))
	}
	if len(b.Spec.ValidationActions) == 0 {
		errs = append(errs, field.Required(spec.Child("validationActions"), ""))
	}
	return errs
}

// validateValidationActions checks a binding's validationActions (validateValidationActions),
// but for its Required error on an empty list (see ValidateValidatingPolicyBinding).
func validateValidationActions(actions []admissionregistrationv1.ValidationAction, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := make(map[admissionregistrationv1.ValidationAction]bool, len(actions))
	for i, a := range actions {
		if !slices.Contains(supportedValidationActions, string(a)) {
			errs = append(errs, field.NotSupported(fldPath.Index(i), a, supportedValidationActions))
		}
		if seen[a] {
			errs = append(errs, field.Duplicate(fldPath.Index(i), a))
		}
		seen[a] = true
	}
	if seen[admissionregistrationv1.Deny] && seen[admissionregistrationv1.Warn] {
		errs = append(errs, field.Invalid(fldPath, actions, "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)"))
	}
	return errs
}
