package validation

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
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

// ValidatingPolicyCheck is the check of a ValidatingAdmissionPolicy.
func ValidatingPolicyCheck(p, old *admissionregistrationv1.ValidatingAdmissionPolicy) Check {
	if old != nil && replaced(p.Name, old.Name) {
		old = nil
	}
	return func(v Version) Judgement {
		return Judgement{
			Errors:   append(ValidateValidatingPolicyAt(v, p, old), SizeErrors(p)...),
			Warnings: StaticSuffixWarnings(v, p.Name, old != nil),
		}
	}
}

// ValidatingPolicyBindingCheck is the check of a ValidatingAdmissionPolicyBinding.
func ValidatingPolicyBindingCheck(b, old *admissionregistrationv1.ValidatingAdmissionPolicyBinding) Check {
	if old != nil && replaced(b.Name, old.Name) {
		old = nil
	}
	return func(v Version) Judgement {
		return Judgement{
			Errors:   append(ValidateValidatingPolicyBindingAt(v, b, old), SizeErrors(b)...),
			Warnings: StaticSuffixWarnings(v, b.Name, old != nil),
		}
	}
}

// MutatingPolicyCheck is the check of a MutatingAdmissionPolicy.
func MutatingPolicyCheck(p, old *admissionregistrationv1.MutatingAdmissionPolicy) Check {
	if old != nil && replaced(p.Name, old.Name) {
		old = nil
	}
	return func(v Version) Judgement {
		return Judgement{
			Errors:   append(ValidateMutatingPolicyAt(v, p, old), SizeErrors(p)...),
			Warnings: StaticSuffixWarnings(v, p.Name, old != nil),
		}
	}
}

// MutatingPolicyBindingCheck is the check of a MutatingAdmissionPolicyBinding.
func MutatingPolicyBindingCheck(b, old *admissionregistrationv1.MutatingAdmissionPolicyBinding) Check {
	if old != nil && replaced(b.Name, old.Name) {
		old = nil
	}
	return func(v Version) Judgement {
		return Judgement{
			Errors:   append(ValidateMutatingPolicyBindingAt(v, b, old), SizeErrors(b)...),
			Warnings: StaticSuffixWarnings(v, b.Name, old != nil),
		}
	}
}
