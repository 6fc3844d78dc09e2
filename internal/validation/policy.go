package validation

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/celcompile"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

// The pieces the admission policy kinds share (ValidatingAdmissionPolicy and
// MutatingAdmissionPolicy, and their bindings): metadata and the reserved name suffix,
// failurePolicy, paramKind, matchConstraints / matchResources, match conditions with params,
// variables, and paramRef. As in validation.go, a function named without a package is in
// k8s.io/kubernetes pkg/apis/admissionregistration/validation (v1.37.2).

var (
	// supportedParameterNotFoundActions is in the server's order, not sorted (validateParamRef).
	supportedParameterNotFoundActions = []string{"Deny", "Allow"}
	// supportedMutatingOperations: a mutating policy cannot act on DELETE.
	supportedMutatingOperations = []string{"*", "CONNECT", "CREATE", "UPDATE"}
)

// policyName returns the name the server validates: the name, or, when it is empty and
// generateName is set, one generated from generateName (see generatedName).
func policyName(meta *metav1.ObjectMeta) string {
	if meta.Name == "" && meta.GenerateName != "" {
		return generatedName(meta.GenerateName)
	}
	return meta.Name
}

// staticSuffixMessage is the server's text for the reserved suffix, as an error and as a warning.
var staticSuffixMessage = fmt.Sprintf("names ending with %q are reserved for static manifest-based configurations and cannot be managed via the API", StaticConfigSuffix)

// validateStaticSuffix is ValidateStaticSuffix as a server of version v runs it on a create:
// from 1.37 (gate ManifestBasedAdmissionControlConfig, beta and on by default) the reserved
// suffix is an error, checked by the registry strategy of each kind after the kind's own rules.
// A 1.36 server has the gate off and only warns (StaticSuffixWarnings); before 1.36 the suffix
// is a name like any other.
func validateStaticSuffix(v Version, name string) field.ErrorList {
	if !v.AtLeast(37) || !strings.HasSuffix(name, StaticConfigSuffix) {
		return nil
	}
	return field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), name, staticSuffixMessage)}
}

// StaticSuffixWarnings is the warning a server of version v gives for the reserved suffix in
// the name of any of the kinds (WarningsForStaticSuffix, called by the strategies' WarningsOnCreate
// while the gate is off, in 1.36, and by their WarningsOnUpdate from 1.36 on).
func StaticSuffixWarnings(v Version, name string, update bool) []warning.Warning {
	if !strings.HasSuffix(name, StaticConfigSuffix) || !v.AtLeast(36) || !update && v.AtLeast(37) {
		return nil
	}
	return []warning.Warning{{Path: field.NewPath("metadata", "name"), Kind: warning.Server, Summary: SummaryReservedName, Message: staticSuffixMessage}}
}

// validateFailurePolicy checks a policy's failurePolicy, which the server defaults to Fail
// (validateValidatingAdmissionPolicySpec, validateMutatingAdmissionPolicySpec).
func validateFailurePolicy(fp *admissionregistrationv1.FailurePolicyType, fldPath *field.Path) field.ErrorList {
	if fp == nil {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	if !slices.Contains(supportedFailurePolicies, string(*fp)) {
		return field.ErrorList{field.NotSupported(fldPath, *fp, supportedFailurePolicies)}
	}
	return nil
}

// validateParamKind checks spec.paramKind (validateParamKind): apiVersion as the group and
// version of an APIService, kind a DNS-1035 label once lower-cased.
func validateParamKind(pk *admissionregistrationv1.ParamKind, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	apiVersionPath := fldPath.Child("apiVersion")
	if pk.APIVersion == "" {
		errs = append(errs, field.Required(apiVersionPath, ""))
	} else if group, ver, err := parseGroupVersion(pk.APIVersion); err != nil {
		errs = append(errs, field.Invalid(apiVersionPath, pk.APIVersion, err.Error()))
	} else {
		if group != "" {
			if msgs := utilvalidation.IsDNS1123Subdomain(group); len(msgs) > 0 {
				errs = append(errs, field.Invalid(apiVersionPath, group, strings.Join(msgs, ",")))
			}
		}
		if ver == "" {
			errs = append(errs, field.Invalid(apiVersionPath, pk.APIVersion, "version must be specified"))
		} else if msgs := utilvalidation.IsDNS1035Label(ver); len(msgs) > 0 {
			errs = append(errs, field.Invalid(apiVersionPath, ver, strings.Join(msgs, ",")))
		}
	}
	if pk.Kind == "" {
		errs = append(errs, field.Required(fldPath.Child("kind"), ""))
	} else if msgs := utilvalidation.IsDNS1035Label(strings.ToLower(pk.Kind)); len(msgs) > 0 {
		errs = append(errs, field.Invalid(fldPath.Child("kind"), pk.Kind, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ",")))
	}
	return errs
}

// parseGroupVersion splits "group/version" as the server's parseGroupVersion does: "" and "/"
// are an empty group and version, a string without a slash a version, more than one slash an
// error.
func parseGroupVersion(gv string) (group, ver string, err error) {
	if gv == "" || gv == "/" {
		return "", "", nil
	}
	switch strings.Count(gv, "/") {
	case 0:
		return "", gv, nil
	case 1:
		group, ver, _ = strings.Cut(gv, "/")
		return group, ver, nil
	}
	return "", "", fmt.Errorf("unexpected GroupVersion string: %v", gv)
}

// validateMatchResources checks matchConstraints (policies) or matchResources (bindings)
// (validateMatchResources). Selectors are checked strictly, label values included, on create
// and update alike.
func validateMatchResources(mr *admissionregistrationv1.MatchResources, fldPath *field.Path) field.ErrorList {
	if mr == nil {
		return nil
	}
	var errs field.ErrorList
	if mr.MatchPolicy == nil {
		errs = append(errs, field.Required(fldPath.Child("matchPolicy"), ""))
	} else if !slices.Contains(supportedMatchPolicies, string(*mr.MatchPolicy)) {
		errs = append(errs, field.NotSupported(fldPath.Child("matchPolicy"), *mr.MatchPolicy, supportedMatchPolicies))
	}
	if mr.NamespaceSelector == nil {
		errs = append(errs, field.Required(fldPath.Child("namespaceSelector"), ""))
	} else {
		errs = append(errs, validateLabelSelector(mr.NamespaceSelector, fldPath.Child("namespaceSelector"))...)
	}
	if mr.ObjectSelector == nil {
		errs = append(errs, field.Required(fldPath.Child("objectSelector"), ""))
	} else {
		errs = append(errs, validateLabelSelector(mr.ObjectSelector, fldPath.Child("objectSelector"))...)
	}
	for i := range mr.ResourceRules {
		errs = append(errs, validateNamedRule(&mr.ResourceRules[i], fldPath.Child("resourceRules").Index(i))...)
	}
	for i := range mr.ExcludeResourceRules {
		errs = append(errs, validateNamedRule(&mr.ExcludeResourceRules[i], fldPath.Child("excludeResourceRules").Index(i))...)
	}
	return errs
}

// validateNamedRule checks one resourceRules or excludeResourceRules entry
// (validateNamedRuleWithOperations): its resourceNames, each a path segment name and not
// repeated, then the rule itself, whose fields are inline at the entry's path.
func validateNamedRule(r *admissionregistrationv1.NamedRuleWithOperations, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := make(map[string]bool, len(r.ResourceNames))
	for i, name := range r.ResourceNames {
		p := fldPath.Child("resourceNames").Index(i)
		for _, msg := range content.IsPathSegmentName(name) {
			errs = append(errs, field.Invalid(p, name, msg))
		}
		if seen[name] {
			errs = append(errs, field.Duplicate(p, name))
		}
		seen[name] = true
	}
	return append(errs, validateRule(&r.RuleWithOperations, fldPath)...)
}

// validateMutatingOperations reports each operation of a resource rule that a mutating policy
// or binding cannot have (DELETE, or anything unsupported), at the path the server uses, which
// names no rule and no index (validateMutatingAdmissionPolicySpec,
// validateMutatingAdmissionPolicyBindingSpec). excludeResourceRules are not checked.
func validateMutatingOperations(rules []admissionregistrationv1.NamedRuleWithOperations, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, rule := range rules {
		for _, op := range rule.Operations {
			if !slices.Contains(supportedMutatingOperations, string(op)) {
				errs = append(errs, field.NotSupported(fldPath.Child("resourceRules", "operations"), op, supportedMutatingOperations))
			}
		}
	}
	return errs
}

// validatePolicyMatchConditions checks a policy's spec.matchConditions, as a webhook's
// (validateMatchConditions), with params declared when the policy has a paramKind. An update
// that keeps paramKind and the match conditions does not check them at all.
func validatePolicyMatchConditions(o *options, c *celcompile.Policy, conditions []admissionregistrationv1.MatchCondition, hasParams bool, fldPath *field.Path) field.ErrorList {
	if o.ignoreMatchConditions {
		return nil
	}
	compile := func(expr string, p *field.Path) *field.Error {
		err := c.Compile(o.matchConditionEnv(expr), celcompile.KindMatchCondition, expr, plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true})
		if err == nil {
			return nil
		}
		return celFieldError(err, p, expr)
	}
	return validateMatchConditionsWith(conditions, compile, fldPath)
}

// validateVariables checks spec.variables in order, each compiled with the variables before it
// declared (validateVariable). Names are not checked for repeats: a later variable of the same
// name replaces the earlier one.
//
// The server looks a variable's expression up among the stored policy's validation
// expressions (validateVariable) to choose its environment; so do we.
func validateVariables(o *options, c *celcompile.Policy, vars []admissionregistrationv1.Variable, hasParams bool, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	decls := plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true}
	for i, v := range vars {
		p := fldPath.Index(i)
		if strings.TrimSpace(v.Name) == "" {
			errs = append(errs, field.Required(p.Child("name"), "name is not specified"))
		} else if !isCELIdentifier(v.Name) {
			errs = append(errs, field.Invalid(p.Child("name"), v.Name, "must be a valid CEL identifier"))
		}
		if strings.TrimSpace(v.Expression) == "" {
			errs = append(errs, field.Required(p.Child("expression"), "expression is not specified"))
			continue
		}
		if err := c.CompileVariable(o.env(setValidations, v.Expression), v.Name, v.Expression, decls); err != nil {
			errs = append(errs, celFieldError(err, p.Child("expression"), v.Expression))
		}
	}
	return errs
}

var celIdentifier = regexp.MustCompile(`^[_a-zA-Z][_a-zA-Z0-9]*$`)

// celReserved are the words a CEL identifier cannot be (isCELIdentifier).
var celReserved = []string{"true", "false", "null", "in",
	"as", "break", "const", "continue", "else",
	"for", "function", "if", "import", "let",
	"loop", "package", "namespace", "return",
	"var", "void", "while"}

// isCELIdentifier is the server's isCELIdentifier.
func isCELIdentifier(name string) bool {
	return celIdentifier.MatchString(name) && !slices.Contains(celReserved, name)
}

// validateParamRef checks a binding's paramRef (validateParamRef): name or selector, not both;
// the name a path segment name; parameterNotFoundAction, which has no default, Deny or Allow.
// The namespace is not checked.
func validateParamRef(pr *admissionregistrationv1.ParamRef, fldPath *field.Path) field.ErrorList {
	if pr == nil {
		return nil
	}
	var errs field.ErrorList
	if pr.Name != "" {
		for _, msg := range content.IsPathSegmentName(pr.Name) {
			errs = append(errs, field.Invalid(fldPath.Child("name"), pr.Name, msg))
		}
		if pr.Selector != nil {
			errs = append(errs, field.Forbidden(fldPath.Child("name"), `name and selector are mutually exclusive`))
		}
	}
	if pr.Selector != nil {
		errs = append(errs, validateLabelSelector(pr.Selector, fldPath.Child("selector"))...)
		if pr.Name != "" {
			errs = append(errs, field.Forbidden(fldPath.Child("selector"), `name and selector are mutually exclusive`))
		}
	}
	if pr.Name == "" && pr.Selector == nil {
		errs = append(errs, field.Required(fldPath, `one of name or selector must be specified`))
	}
	if pr.ParameterNotFoundAction == nil || *pr.ParameterNotFoundAction == "" {
		errs = append(errs, field.Required(fldPath.Child("parameterNotFoundAction"), ""))
	} else if !slices.Contains(supportedParameterNotFoundActions, string(*pr.ParameterNotFoundAction)) {
		// The server quotes the pointer, which prints as its value.
		errs = append(errs, field.NotSupported(fldPath.Child("parameterNotFoundAction"), pr.ParameterNotFoundAction, supportedParameterNotFoundActions))
	}
	return errs
}

// validatePolicyName checks a binding's spec.policyName: a DNS subdomain
// (validateValidatingAdmissionPolicyBindingSpec, validateMutatingAdmissionPolicyBindingSpec).
// An empty one is left to the caller, as the two kinds report it differently.
func validatePolicyName(name string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range genericvalidation.NameIsDNSSubdomain(name, false) {
		errs = append(errs, field.Invalid(fldPath, name, msg))
	}
	return errs
}
