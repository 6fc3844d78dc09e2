// Package validation holds the API server's rules for the admissionregistration.k8s.io/v1
// kinds: it checks them the way kube-apiserver v1.37 does on create and update, so that a plan
// can fail where the apply would, at each server version (judge.go, version.go). The webhook
// configurations are here (Default, Validate, ServerWarnings), the admission policies and their
// bindings in policy*.go (DefaultValidatingPolicy, ValidateValidatingPolicy, ...); the server's
// defaults are named once (defaults.go). The CEL expressions are compiled by
// internal/celcompile; what the server accepts but will hurt is internal/advice's.
//
// Both webhook configuration kinds come as a MutatingWebhookConfiguration: a validating one is
// one whose webhooks have no reinvocationPolicy, the only field the server's rules for the two
// kinds (k8s.io/kubernetes pkg/apis/admissionregistration/validation, validateValidatingWebhook
// and validateMutatingWebhook) do not share. The package works on API types only, does no I/O,
// and speaks Kubernetes field paths ("webhooks[0].rules[1].resources[2]",
// "spec.validations[0].expression"); internal/apipath turns such a path into a Terraform
// attribute path.
//
// Comments name the upstream source each rule comes from, by package and function (v1.37.2); a
// function named without a package (validateRule, validateMatchConditions, ...) is in
// k8s.io/kubernetes pkg/apis/admissionregistration/validation.
package validation

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/validate/content"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/util/webhook"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/apipath"
)

// StaticConfigSuffix is the name suffix reserved for manifest-based admission configurations
// (ValidateStaticSuffix). From 1.37 a server rejects it on create; a 1.36 server warns.
const StaticConfigSuffix = ".static.k8s.io"

// Values the server accepts, each list sorted as the server prints it in "supported values".
var (
	supportedFailurePolicies      = []string{"Fail", "Ignore"}
	supportedMatchPolicies        = []string{"Equivalent", "Exact"}
	supportedReinvocationPolicies = []string{"IfNeeded", "Never"}
	supportedOperations           = []string{"*", "CONNECT", "CREATE", "DELETE", "UPDATE"}
	supportedScopes               = []string{"*", "Cluster", "Namespaced"}
	// noSideEffectClasses is what a create accepts; Some and Unknown are only kept on update
	// (validateMutatingWebhook; ValidateMutatingWebhookConfigurationUpdate relaxes it).
	noSideEffectClasses = []string{"None", "NoneOnDryRun"}
	// supportedSideEffectClasses is what an update accepts once the stored object has a webhook
	// with side effects.
	supportedSideEffectClasses = []string{"None", "NoneOnDryRun", "Some", "Unknown"}
	// acceptedAdmissionReviewVersions are the AdmissionReview versions the server speaks
	// (AcceptedAdmissionReviewVersions).
	acceptedAdmissionReviewVersions = []string{"v1", "v1beta1"}
)

// Validate returns the errors a kube-apiserver of version Assumed (1.37) returns when
// creating obj: ValidateAt(Assumed, obj, nil).
func Validate(obj *admissionregistrationv1.MutatingWebhookConfiguration) field.ErrorList {
	return ValidateAt(Assumed, obj, nil)
}

// ValidateAt returns the errors a kube-apiserver of version v returns when creating obj, or,
// when old is not nil, when updating old, as stored, to obj. Both have already been defaulted
// as the server does (see Default); paths are the server's (field.Path strings such as
// "webhooks[0].rules[1].resources[2]", "metadata.name").
//
// Like the server, ValidateAt ignores metadata.namespace (cleared for this cluster-scoped kind)
// and metadata.generation (set by the server), and, on a create whose name is empty and
// generateName is set, validates a generated name as well (generateName cut to 58 characters
// plus 5 characters from the generator's alphabet). Errors come in the server's order.
//
// An update (ValidateMutatingWebhookConfigurationUpdate) relaxes what the stored object already
// breaks (sideEffects Some or Unknown, admissionReviewVersions without a known version, repeated
// webhook names, invalid label values in selectors), does not check match conditions at all
// when every webhook keeps its own, and compiles an expression the stored object has in the
// server's StoredExpressions environment; the reserved name suffix is not checked on update.
func ValidateAt(v Version, obj, old *admissionregistrationv1.MutatingWebhookConfiguration) field.ErrorList {
	if obj == nil {
		return nil
	}
	o := createOptions(v)
	name := obj.Name
	var errs field.ErrorList
	if old != nil {
		o = webhookUpdateOptions(v, obj, old)
		errs = validateMetaUpdate(v, &obj.ObjectMeta, &old.ObjectMeta)
	} else if name == "" && obj.GenerateName != "" {
		name = generatedName(obj.GenerateName)
	}

	errs = append(errs, validateObjectMeta(v, &obj.ObjectMeta, name, field.NewPath("metadata"))...)

	// Compile the match conditions ahead, in parallel; the pass below then reads the results.
	if !o.ignoreMatchConditions {
		precompile(o, obj)
	}

	// validateMutatingWebhookConfiguration: per webhook, its own fields, then
	// admissionReviewVersions, then name uniqueness.
	webhooksPath := field.NewPath("webhooks")
	names := make(map[string]struct{}, len(obj.Webhooks))
	for i := range obj.Webhooks {
		hook := &obj.Webhooks[i]
		p := webhooksPath.Index(i)
		errs = append(errs, validateWebhook(o, hook, p)...)
		errs = append(errs, validateAdmissionReviewVersions(hook.AdmissionReviewVersions, o.requireRecognizedAdmissionReviewVersion, p.Child("admissionReviewVersions"))...)
		// A non-empty name equal to an earlier webhook's name (validateMutatingWebhookConfiguration).
		if hook.Name != "" && o.requireUniqueWebhookNames {
			if _, dup := names[hook.Name]; dup {
				errs = append(errs, field.Duplicate(p.Child("name"), hook.Name))
			} else {
				names[hook.Name] = struct{}{}
			}
		}
	}

	// ValidateStaticSuffix, checked by the registry strategy after the rest, on create only
	// (k8s.io/kubernetes pkg/registry/admissionregistration/mutatingwebhookconfiguration, Validate).
	if old == nil {
		errs = append(errs, validateStaticSuffix(v, name)...)
	}
	return errs
}

// generatedName stands in for the name the server generates from generateName (k8s.io/apiserver
// pkg/storage/names, simpleNameGenerator.GenerateName): at most
// the first 58 characters, then 5 random characters of "bcdfghjklmnpqrstvwxz2456789". Every
// character of that alphabet is valid anywhere in a DNS subdomain, so any fixed pick validates the
// same way as the random one.
func generatedName(generateName string) string {
	const maxPrefix = 63 - 5
	if len(generateName) > maxPrefix {
		generateName = generateName[:maxPrefix]
	}
	return generateName + "xxxxx"
}

// validateObjectMeta is the server's create-time ObjectMeta check (k8s.io/apimachinery
// pkg/api/validation ValidateObjectMetaAccessor), made of the same
// apimachinery helpers in the same order. Map entries are visited in sorted key order (the
// server's order is Go map order, i.e. random), so that the result is stable.
func validateObjectMeta(v Version, meta *metav1.ObjectMeta, name string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if meta.GenerateName != "" {
		for _, msg := range genericvalidation.NameIsDNSSubdomain(meta.GenerateName, true) {
			errs = append(errs, field.Invalid(fldPath.Child("generateName"), meta.GenerateName, msg))
		}
	}
	if name == "" {
		errs = append(errs, field.Required(fldPath.Child("name"), "name or generateName is required"))
	} else {
		for _, msg := range genericvalidation.NameIsDNSSubdomain(name, false) {
			errs = append(errs, field.Invalid(fldPath.Child("name"), name, msg))
		}
	}
	// namespace is cleared and generation set to 1 before validation (k8s.io/apiserver
	// pkg/registry/rest BeforeCreate, then the strategy's PrepareForCreate), so neither can fail.
	for _, k := range slices.Sorted(maps.Keys(meta.Labels)) {
		errs = append(errs, metav1validation.ValidateLabels(map[string]string{k: meta.Labels[k]}, fldPath.Child("labels"))...)
	}
	errs = append(errs, validateAnnotations(meta.Annotations, fldPath.Child("annotations"))...)
	errs = append(errs, validateOwnerReferences(v, dedupOwnerReferences(meta.OwnerReferences), fldPath.Child("ownerReferences"))...)
	errs = append(errs, genericvalidation.ValidateFinalizers(meta.Finalizers, fldPath.Child("finalizers"))...)
	errs = append(errs, metav1validation.ValidateManagedFields(meta.ManagedFields, fldPath.Child("managedFields"), metav1validation.CoveredByDeclarative)...)
	return errs
}

// validateOwnerReferences is genericvalidation.ValidateOwnerReferences of a server of version
// v. Before 1.37 (k8s.io/apimachinery before v0.37) an owner reference's errors were all
// Invalid and named no index (metadata.ownerReferences.uid, "uid must not be empty"; from
// 1.34 "must not be empty"), and an apiVersion that is not a group/version was "version must
// not be empty".
func validateOwnerReferences(v Version, refs []metav1.OwnerReference, fldPath *field.Path) field.ErrorList {
	if v.AtLeast(37) {
		return genericvalidation.ValidateOwnerReferences(refs, fldPath)
	}
	var errs field.ErrorList
	empty := func(what string) string {
		if v.AtLeast(34) {
			return "must not be empty"
		}
		return what + " must not be empty"
	}
	firstController := ""
	for _, ref := range refs {
		gvk := schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind)
		if gvk.Version == "" {
			errs = append(errs, field.Invalid(fldPath.Child("apiVersion"), ref.APIVersion, "version must not be empty"))
		}
		if gvk.Kind == "" {
			errs = append(errs, field.Invalid(fldPath.Child("kind"), ref.Kind, empty("kind")))
		}
		if ref.Name == "" {
			errs = append(errs, field.Invalid(fldPath.Child("name"), ref.Name, empty("name")))
		}
		if ref.UID == "" {
			errs = append(errs, field.Invalid(fldPath.Child("uid"), ref.UID, empty("uid")))
		}
		if _, banned := genericvalidation.BannedOwners[gvk]; banned {
			errs = append(errs, field.Invalid(fldPath, ref, fmt.Sprintf("%s is disallowed from being an owner", gvk)))
		}
		if ref.Controller != nil && *ref.Controller {
			if name := ref.Kind + "/" + ref.Name; firstController == "" {
				firstController = name
			} else {
				errs = append(errs, field.Invalid(fldPath, refs, fmt.Sprintf("Only one reference can have Controller set to true. Found \"true\" in references for %v and %v", firstController, name)))
			}
		}
	}
	return errs
}

// dedupOwnerReferences drops each owner reference equal to an earlier one, as
// the server's request handler does before validation (k8s.io/apiserver
// pkg/endpoints/handlers, with a warning), so that two identical controller
// references are one and not a conflict.
func dedupOwnerReferences(refs []metav1.OwnerReference) []metav1.OwnerReference {
	var out []metav1.OwnerReference
	for _, ref := range refs {
		if !slices.ContainsFunc(out, func(r metav1.OwnerReference) bool { return equality.Semantic.DeepEqual(r, ref) }) {
			out = append(out, ref)
		}
	}
	return out
}

// validateAnnotations is genericvalidation.ValidateAnnotations in sorted key order: each key,
// lower-cased, must be a qualified name; keys and values together at most 256 KiB.
func validateAnnotations(annotations map[string]string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, k := range slices.Sorted(maps.Keys(annotations)) {
		for _, msg := range content.IsLabelKey(strings.ToLower(k)) {
			errs = append(errs, field.Invalid(fldPath, k, msg).WithOrigin("format=k8s-label-key"))
		}
	}
	if genericvalidation.ValidateAnnotationsSize(annotations) != nil {
		errs = append(errs, field.TooLong(fldPath, "", genericvalidation.TotalAnnotationSizeLimitB))
	}
	return errs
}

// validateWebhook checks one webhook's own fields in the server's order (validateMutatingWebhook).
func validateWebhook(o *options, hook *admissionregistrationv1.MutatingWebhook, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	// name: Required if empty; else one Invalid with the subdomain messages joined by ",";
	// else at least three dot-separated segments. apimachinery's helper is exactly this.
	errs = append(errs, utilvalidation.IsFullyQualifiedName(fldPath.Child("name"), hook.Name)...)

	for j := range hook.Rules {
		errs = append(errs, validateRule(&hook.Rules[j], fldPath.Child("rules").Index(j))...)
	}

	// Enums, checked only when set; compared exactly.
	if hook.FailurePolicy != nil && !slices.Contains(supportedFailurePolicies, string(*hook.FailurePolicy)) {
		errs = append(errs, field.NotSupported(fldPath.Child("failurePolicy"), *hook.FailurePolicy, supportedFailurePolicies))
	}
	if hook.MatchPolicy != nil && !slices.Contains(supportedMatchPolicies, string(*hook.MatchPolicy)) {
		errs = append(errs, field.NotSupported(fldPath.Child("matchPolicy"), *hook.MatchPolicy, supportedMatchPolicies))
	}
	allowedSideEffects := supportedSideEffectClasses
	if o.requireNoSideEffects {
		allowedSideEffects = noSideEffectClasses
	}
	if hook.SideEffects == nil {
		errs = append(errs, field.Required(fldPath.Child("sideEffects"), "must specify one of "+strings.Join(allowedSideEffects, ", ")))
	} else if !slices.Contains(allowedSideEffects, string(*hook.SideEffects)) {
		errs = append(errs, field.NotSupported(fldPath.Child("sideEffects"), *hook.SideEffects, allowedSideEffects))
	}
	if t := hook.TimeoutSeconds; t != nil && (*t < 1 || *t > 30) {
		errs = append(errs, field.Invalid(fldPath.Child("timeoutSeconds"), *t, "the timeout value must be between 1 and 30 seconds"))
	}

	// k8s.io/apimachinery pkg/apis/meta/v1/validation ValidateLabelSelector
	selectorOpts := metav1validation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: o.allowInvalidLabelValueInSelector}
	if hook.NamespaceSelector != nil {
		errs = append(errs, validateLabelSelectorWith(hook.NamespaceSelector, selectorOpts, fldPath.Child("namespaceSelector"))...)
	}
	if hook.ObjectSelector != nil {
		errs = append(errs, validateLabelSelectorWith(hook.ObjectSelector, selectorOpts, fldPath.Child("objectSelector"))...)
	}

	if hook.ReinvocationPolicy != nil && !slices.Contains(supportedReinvocationPolicies, string(*hook.ReinvocationPolicy)) {
		errs = append(errs, field.NotSupported(fldPath.Child("reinvocationPolicy"), *hook.ReinvocationPolicy, supportedReinvocationPolicies))
	}

	errs = append(errs, validateClientConfig(&hook.ClientConfig, fldPath.Child("clientConfig"))...)

	if !o.ignoreMatchConditions {
		errs = append(errs, validateMatchConditions(o, hook.MatchConditions, fldPath.Child("matchConditions"))...)
	}
	return errs
}

// validateRule checks one webhooks[i].rules[j] (validateRuleWithOperations, then validateRule).
func validateRule(rule *admissionregistrationv1.RuleWithOperations, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList

	ops := rule.Operations
	if len(ops) == 0 {
		errs = append(errs, field.Required(fldPath.Child("operations"), ""))
	}
	if len(ops) > 1 && slices.Contains(ops, admissionregistrationv1.OperationAll) {
		errs = append(errs, field.Invalid(fldPath.Child("operations"), ops, "if '*' is present, must not specify other operations"))
	}
	for k, op := range ops {
		if !slices.Contains(supportedOperations, string(op)) {
			errs = append(errs, field.NotSupported(fldPath.Child("operations").Index(k), op, supportedOperations))
		}
	}

	if len(rule.APIGroups) == 0 {
		errs = append(errs, field.Required(fldPath.Child("apiGroups"), ""))
	}
	if len(rule.APIGroups) > 1 && slices.Contains(rule.APIGroups, "*") {
		errs = append(errs, field.Invalid(fldPath.Child("apiGroups"), rule.APIGroups, "if '*' is present, must not specify other API groups"))
	}
	if len(rule.APIVersions) == 0 {
		errs = append(errs, field.Required(fldPath.Child("apiVersions"), ""))
	}
	if len(rule.APIVersions) > 1 && slices.Contains(rule.APIVersions, "*") {
		errs = append(errs, field.Invalid(fldPath.Child("apiVersions"), rule.APIVersions, "if '*' is present, must not specify other API versions"))
	}
	for k, v := range rule.APIVersions {
		if v == "" {
			errs = append(errs, field.Required(fldPath.Child("apiVersions").Index(k), ""))
		}
	}

	errs = append(errs, validateResources(rule.Resources, fldPath.Child("resources"))...)

	if rule.Scope != nil && !slices.Contains(supportedScopes, string(*rule.Scope)) {
		errs = append(errs, field.NotSupported(fldPath.Child("scope"), *rule.Scope, supportedScopes))
	}
	return errs
}

// validateResources checks a rule's resources, subresources allowed (the server's
// validateResources). The checks are the server's, including its order dependence: "R/S" is
// rejected only after an earlier "R/*" or "*/S", and for "*" only the last slash-free element
// decides.
func validateResources(resources []string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(resources) == 0 {
		errs = append(errs, field.Required(fldPath, ""))
	}
	wildcardSub := map[string]bool{} // R of an earlier "R/*"
	wildcardRes := map[string]bool{} // S of an earlier "*/S"
	hasDoubleWildcard, hasSingleWildcard, hasPlainResource := false, false, false
	for k, rs := range resources {
		if rs == "" {
			errs = append(errs, field.Required(fldPath.Index(k), ""))
			continue
		}
		if rs == "*/*" {
			hasDoubleWildcard = true
		}
		if rs == "*" {
			hasSingleWildcard = true
		}
		res, sub, hasSlash := strings.Cut(rs, "/")
		if !hasSlash {
			// Overwritten by every slash-free element: only the last one counts.
			hasPlainResource = rs != "*"
			continue
		}
		if wildcardSub[res] {
			errs = append(errs, field.Invalid(fldPath.Index(k), rs, fmt.Sprintf("if '%s/*' is present, must not specify %s", res, rs)))
		}
		if wildcardRes[sub] {
			errs = append(errs, field.Invalid(fldPath.Index(k), rs, fmt.Sprintf("if '*/%s' is present, must not specify %s", sub, rs)))
		}
		if sub == "*" {
			wildcardSub[res] = true
		}
		if res == "*" {
			wildcardRes[sub] = true
		}
	}
	if len(resources) > 1 && hasDoubleWildcard {
		errs = append(errs, field.Invalid(fldPath, resources, "if '*/*' is present, must not specify other resources"))
	}
	if hasSingleWildcard && hasPlainResource {
		errs = append(errs, field.Invalid(fldPath, resources, "if '*' is present, must not specify other resources without subresources"))
	}
	return errs
}

// validateAdmissionReviewVersions checks webhooks[i].admissionReviewVersions (the server's
// validateAdmissionReviewVersions). A known version (v1, v1beta1) is required when
// requireRecognized holds: always on create.
func validateAdmissionReviewVersions(versions []string, requireRecognized bool, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(versions) == 0 {
		return append(errs, field.Required(fldPath, "must specify one of "+strings.Join(acceptedAdmissionReviewVersions, ", ")))
	}
	seen := make(map[string]bool, len(versions))
	hasAccepted := false
	for k, v := range versions {
		if seen[v] {
			// A duplicate gets this error only.
			errs = append(errs, field.Invalid(fldPath.Index(k), v, "duplicate version"))
			continue
		}
		seen[v] = true
		for _, msg := range utilvalidation.IsDNS1035Label(v) {
			errs = append(errs, field.Invalid(fldPath.Index(k), v, msg))
		}
		if slices.Contains(acceptedAdmissionReviewVersions, v) {
			hasAccepted = true
		}
	}
	if requireRecognized && !hasAccepted {
		errs = append(errs, field.Invalid(fldPath, versions, "must include at least one of "+strings.Join(acceptedAdmissionReviewVersions, ", ")))
	}
	return errs
}

// validateClientConfig checks webhooks[i].clientConfig (the clientConfig switch in
// validateMutatingWebhook). caBundle is not validated.
func validateClientConfig(cc *admissionregistrationv1.WebhookClientConfig, fldPath *field.Path) field.ErrorList {
	switch {
	case (cc.URL == nil) == (cc.Service == nil):
		return field.ErrorList{field.Required(fldPath, "exactly one of url or service is required")}
	case cc.URL != nil:
		// k8s.io/apiserver's own check, with https forced as the server does.
		return webhook.ValidateWebhookURL(fldPath.Child("url"), *cc.URL, true)
	default:
		svc := cc.Service
		// The server's default (k8s.io/kubernetes pkg/apis/admissionregistration/v1
		// SetDefaults_ServiceReference), should Default not have run.
		port := int32(443)
		if svc.Port != nil {
			port = *svc.Port
		}
		// k8s.io/apiserver's own check. The server passes name and namespace in swapped argument
		// positions (validateMutatingWebhook calls ValidateWebhookService(path, Name, Namespace,
		// ...), whose parameters are namespace, name): an empty name is reported at
		// service.namespace and an empty namespace at service.name. We make the same call so that
		// paths agree.
		return webhook.ValidateWebhookService(fldPath.Child("service"), svc.Name, svc.Namespace, svc.Path, port)
	}
}

// validateLabelSelector is metav1validation.ValidateLabelSelector with matchLabels in
// sorted key order, label values in matchExpressions checked.
func validateLabelSelector(sel *metav1.LabelSelector, fldPath *field.Path) field.ErrorList {
	return validateLabelSelectorWith(sel, metav1validation.LabelSelectorValidationOptions{}, fldPath)
}

// validateLabelSelectorWith is validateLabelSelector with the server's options: an update may
// skip the label values in matchExpressions.
func validateLabelSelectorWith(sel *metav1.LabelSelector, opts metav1validation.LabelSelectorValidationOptions, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, k := range slices.Sorted(maps.Keys(sel.MatchLabels)) {
		errs = append(errs, metav1validation.ValidateLabels(map[string]string{k: sel.MatchLabels[k]}, fldPath.Child("matchLabels"))...)
	}
	for k, req := range sel.MatchExpressions {
		errs = append(errs, metav1validation.ValidateLabelSelectorRequirement(req, opts, fldPath.Child("matchExpressions").Index(k))...)
	}
	return errs
}

// qualifiedName reports each way value fails to be a qualified name, one Invalid each
// (k8s.io/kubernetes pkg/apis/core/validation ValidateQualifiedName).
func qualifiedName(value string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range content.IsLabelKey(value) {
		errs = append(errs, field.Invalid(fldPath, value, msg).WithOrigin("format=qualified-name"))
	}
	return errs
}

// CreateOnly reports whether the server enforces e only when it creates an
// object: on an update it may accept the same value, because the stored
// object already has it (the server's ratcheting,
// ValidateMutatingWebhookConfigurationUpdate, ValidateValidatingAdmissionPolicyUpdate,
// ValidateMutatingAdmissionPolicyUpdate). Such an error is certain only
// for a new object. These are:
//   - for every kind, the reserved name suffix (ValidateStaticSuffix is called on create only);
//   - for webhook configurations, sideEffects Some or Unknown, admissionReviewVersions without a
//     known version, invalid label values in selectors, repeated webhook names;
//   - for policies, every error of spec.matchConditions (an update that keeps paramKind and the
//     match conditions does not check them), and a compilation error of another expression when
//     the StoredExpressions environment accepts it (an update that keeps the expression compiles
//     it there; see storedExpressionsOnly).
func CreateOnly(e *field.Error) bool {
	switch {
	case e.Type == field.ErrorTypeInvalid && e.Field == "metadata.name":
		return strings.HasPrefix(e.Detail, "names ending with")
	case strings.HasPrefix(e.Field, "spec."):
		return policyCreateOnly(e)
	case !strings.HasPrefix(e.Field, "webhooks["):
		return false
	case e.Type == field.ErrorTypeNotSupported && strings.HasSuffix(e.Field, ".sideEffects"):
		v := fmt.Sprint(e.BadValue)
		return v == "Some" || v == "Unknown"
	case e.Type == field.ErrorTypeInvalid && strings.HasSuffix(e.Field, ".admissionReviewVersions"):
		return strings.HasPrefix(e.Detail, "must include at least one of")
	case e.Type == field.ErrorTypeInvalid && strings.Contains(e.Field, ".matchExpressions[") && strings.Contains(e.Field, "].values["):
		return true
	case e.Type == field.ErrorTypeDuplicate && strings.HasSuffix(e.Field, "].name"):
		return true
	}
	return false
}

// Message gives a plain message for users: the error without its path, as the server puts it in
// a status cause (for example `Unsupported value: "Always": supported values: "Fail", "Ignore"`),
// in the words of the provider's schemas (apipath.InOurWords: what to change where the server's
// words do not say it).
func Message(e *field.Error) string {
	if e == nil {
		return ""
	}
	return apipath.InOurWords(e.Field, e.ErrorBody())
}
