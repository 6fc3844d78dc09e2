package validation

import (
	"reflect"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/celcompile"
)

// options are the server's validationOptions for one request (k8s.io/kubernetes
// pkg/apis/admissionregistration/validation): a create, or an update of a stored object, to a
// server of one version. An update relaxes some rules where the stored object already breaks
// them (ratcheting) and compiles the expressions it keeps in the StoredExpressions environment.
type options struct {
	version Version
	update  bool

	ignoreMatchConditions                   bool
	requireNoSideEffects                    bool
	requireRecognizedAdmissionReviewVersion bool
	requireUniqueWebhookNames               bool
	allowInvalidLabelValueInSelector        bool

	// preexisting are the expressions of the stored object, by the set the server keeps them in
	// (preexistingExpressions).
	preexisting map[exprSet]map[string]bool
}

// exprSet names one of the server's sets of preexisting expressions.
type exprSet int

const (
	setMatchConditions exprSet = iota
	setValidations
	setMessages
	setAuditValues
	setApplyConfigurations
)

// createOptions are the options of a create (ValidateMutatingWebhookConfiguration,
// ValidateValidatingAdmissionPolicy, ...): every rule in force, every expression new.
func createOptions(v Version) *options {
	return &options{
		version:                                 v,
		requireNoSideEffects:                    true,
		requireRecognizedAdmissionReviewVersion: true,
		requireUniqueWebhookNames:               true,
	}
}

// keep records expressions of the stored object in set.
func (o *options) keep(set exprSet, exprs ...string) {
	if o.preexisting == nil {
		o.preexisting = map[exprSet]map[string]bool{}
	}
	if o.preexisting[set] == nil {
		o.preexisting[set] = map[string]bool{}
	}
	for _, e := range exprs {
		o.preexisting[set][e] = true
	}
}

// env returns the environment the server compiles an expression in: StoredExpressions when
// lookup (the string the server looks up, trimmed or not as it has it) is in set, else
// NewExpressions (validateMatchConditionsExpression, validateValidationExpression, ...).
func (o *options) env(set exprSet, lookup string) celcompile.Env {
	if o.preexisting[set][lookup] {
		return storedExpressionsEnv(o.version)
	}
	return newExpressionsEnv(o.version)
}

// matchConditionEnv is env for a match condition, whose trimmed expression is looked up.
func (o *options) matchConditionEnv(trimmed string) celcompile.Env {
	return o.env(setMatchConditions, trimmed)
}

// webhookUpdateOptions are the options of an update of old to obj
// (ValidateMutatingWebhookConfigurationUpdate, ValidateValidatingWebhookConfigurationUpdate).
func webhookUpdateOptions(v Version, obj, old *admissionregistrationv1.MutatingWebhookConfiguration) *options {
	o := &options{
		version:                                 v,
		update:                                  true,
		ignoreMatchConditions:                   sameMatchConditions(obj.Webhooks, old.Webhooks),
		requireNoSideEffects:                    true,
		requireRecognizedAdmissionReviewVersion: true,
		requireUniqueWebhookNames:               true,
	}
	names := map[string]bool{}
	for _, hook := range old.Webhooks {
		// mutatingHasNoSideEffects: a null sideEffects counts as having side effects.
		if hook.SideEffects == nil || !isNoSideEffectClass(*hook.SideEffects) {
			o.requireNoSideEffects = false
		}
		// mutatingHasAcceptedAdmissionReviewVersions: a non-empty list without a known version.
		if len(hook.AdmissionReviewVersions) > 0 && !hasAcceptedVersion(hook.AdmissionReviewVersions) {
			o.requireRecognizedAdmissionReviewVersion = false
		}
		// mutatingHasUniqueWebhookNames: empty names count.
		if names[hook.Name] {
			o.requireUniqueWebhookNames = false
		}
		names[hook.Name] = true
		// mutatingWebhookHasInvalidLabelValueInSelector: any strict error in either selector.
		for _, sel := range []*metav1.LabelSelector{hook.NamespaceSelector, hook.ObjectSelector} {
			if sel != nil && len(metav1validation.ValidateLabelSelector(sel, metav1validation.LabelSelectorValidationOptions{}, nil)) > 0 {
				o.allowInvalidLabelValueInSelector = true
			}
		}
		// findMutatingPreexistingExpressions: the expressions as stored, untrimmed.
		for _, mc := range hook.MatchConditions {
			o.keep(setMatchConditions, mc.Expression)
		}
	}
	return o
}

func isNoSideEffectClass(s admissionregistrationv1.SideEffectClass) bool {
	return s == admissionregistrationv1.SideEffectClassNone || s == admissionregistrationv1.SideEffectClassNoneOnDryRun
}

func hasAcceptedVersion(versions []string) bool {
	for _, v := range versions {
		for _, a := range acceptedAdmissionReviewVersions {
			if v == a {
				return true
			}
		}
	}
	return false
}

// sameMatchConditions is ignoreMutatingWebhookMatchConditions: as many webhooks, and each
// one's match conditions deeply equal to the stored one's (order counts; nil and empty differ).
func sameMatchConditions(hooks, old []admissionregistrationv1.MutatingWebhook) bool {
	if len(hooks) != len(old) {
		return false
	}
	for i := range old {
		if !reflect.DeepEqual(hooks[i].MatchConditions, old[i].MatchConditions) {
			return false
		}
	}
	return true
}

// policyMatchConditionsKept is ignoreValidatingAdmissionPolicyMatchConditions (and its
// mutating twin): paramKind and the match conditions semantically equal to the stored ones.
func policyMatchConditionsKept(paramKind, oldParamKind *admissionregistrationv1.ParamKind, conditions, oldConditions []admissionregistrationv1.MatchCondition) bool {
	return equality.Semantic.DeepEqual(paramKind, oldParamKind) && equality.Semantic.DeepEqual(conditions, oldConditions)
}

// validateMetaUpdate is what an update checks of metadata beyond a create's checks
// (k8s.io/apiserver pkg/registry/rest BeforeUpdate and validateCommonFields,
// genericvalidation.ValidateObjectMetaAccessorUpdate), after the server has copied in what
// the request leaves out: the uid, the creation time, the generation, and, for server-side
// apply, the resourceVersion. Only a changed name can fail then ("field is immutable"), with
// the owner and finalizer rules of an update.
//
// The owner references are checked as on create, so a server before 1.37 reports them in its
// own form (validateOwnerReferences): here they are left out there.
func validateMetaUpdate(v Version, meta, old *metav1.ObjectMeta) field.ErrorList {
	// Server-side apply sends no resourceVersion and updates the stored one.
	old = old.DeepCopy()
	if old.ResourceVersion == "" {
		old.ResourceVersion = "1"
	}
	m := meta.DeepCopy()
	if m.UID == "" {
		m.UID = old.UID
	}
	m.CreationTimestamp = old.CreationTimestamp
	m.DeletionTimestamp = old.DeletionTimestamp
	if m.DeletionGracePeriodSeconds == nil {
		m.DeletionGracePeriodSeconds = old.DeletionGracePeriodSeconds
	}
	m.Generation = old.Generation
	m.ResourceVersion = old.ResourceVersion
	m.Namespace, m.ManagedFields = old.Namespace, old.ManagedFields
	// The request handler has dropped repeated owner references (see dedupOwnerReferences).
	m.OwnerReferences = dedupOwnerReferences(m.OwnerReferences)
	errs := genericvalidation.ValidateObjectMetaUpdate(m, old, field.NewPath("metadata"))
	if !v.AtLeast(37) {
		errs = slices.DeleteFunc(errs, func(e *field.Error) bool { return strings.HasPrefix(e.Field, "metadata.ownerReferences") })
	}
	return errs
}
