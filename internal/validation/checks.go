package validation

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The checks of each kind, for Offline and AtPlan: what a server of a version says of a create
// (old nil) or an update of old to obj, both defaulted as the server does. Their errors include
// the size limits (SizeErrors), which hold for every version. An object whose name differs from
// the stored one is a new object (the provider replaces it: a delete, then a create), so its
// check is a create's.

// replaced reports whether obj, named name, replaces the stored object named oldName.
func replaced(name, oldName string) bool { return name != oldName }

// WebhookCheck is the check of a webhook configuration (either kind, see the package comment).
func WebhookCheck(obj, old *admissionregistrationv1.MutatingWebhookConfiguration) Check {
	if old != nil && replaced(obj.Name, old.Name) {
		old = nil
	}
	return func(v Version) Judgement {
		return Judgement{
			Errors:   append(ValidateAt(v, obj, old), SizeErrors(obj)...),
			Warnings: ServerWarnings(v, obj, old != nil),
		}
	}
}

// policyCheck is the check of an object of one of the policy kinds, validated by validate:
// the server warns of a reserved name suffix, nothing else.
func policyCheck[T any, PT interface {
	*T
	GetName() string
}](obj, old PT, validate func(Version, PT, PT) field.ErrorList) Check {
	if old != nil && replaced(obj.GetName(), old.GetName()) {
		old = nil
	}
	return func(v Version) Judgement {
		return Judgement{
			Errors:   append(validate(v, obj, old), SizeErrors(obj)...),
			Warnings: StaticSuffixWarnings(v, obj.GetName(), old != nil),
		}
	}
}

// ValidatingPolicyCheck is the check of a ValidatingAdmissionPolicy.
func ValidatingPolicyCheck(p, old *admissionregistrationv1.ValidatingAdmissionPolicy) Check {
	return policyCheck(p, old, ValidateValidatingPolicyAt)
}

// ValidatingPolicyBindingCheck is the check of a ValidatingAdmissionPolicyBinding.
func ValidatingPolicyBindingCheck(b, old *admissionregistrationv1.ValidatingAdmissionPolicyBinding) Check {
	return policyCheck(b, old, ValidateValidatingPolicyBindingAt)
}

// MutatingPolicyCheck is the check of a MutatingAdmissionPolicy.
func MutatingPolicyCheck(p, old *admissionregistrationv1.MutatingAdmissionPolicy) Check {
	return policyCheck(p, old, ValidateMutatingPolicyAt)
}

// MutatingPolicyBindingCheck is the check of a MutatingAdmissionPolicyBinding.
func MutatingPolicyBindingCheck(b, old *admissionregistrationv1.MutatingAdmissionPolicyBinding) Check {
	return policyCheck(b, old, ValidateMutatingPolicyBindingAt)
}
