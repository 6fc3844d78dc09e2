package validation

import (
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiservercel "k8s.io/apiserver/pkg/cel"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/celcompile"
)

// maxMatchConditions is the server's limit on matchConditions per webhook (validateMatchConditions).
const maxMatchConditions = 64

// newExpressionsEnv is the environment a server of version v compiles new or changed
// expressions in (celcompile.NewExpressions).
func newExpressionsEnv(v Version) celcompile.Env { return celcompile.NewExpressions(v.minor) }

// storedExpressionsEnv is the environment a server of version v compiles the expressions it
// keeps on an update in (celcompile.StoredExpressions).
func storedExpressionsEnv(v Version) celcompile.Env { return celcompile.StoredExpressions(v.minor) }

// validateMatchConditions checks webhooks[i].matchConditions (the server's validateMatchConditions),
// each expression compiled in the environment o gives it.
func validateMatchConditions(o *options, conditions []admissionregistrationv1.MatchCondition, fldPath *field.Path) field.ErrorList {
	compile := func(expr string, p *field.Path) *field.Error {
		return compileMatchCondition(o.matchConditionEnv(expr), expr, p)
	}
	return validateMatchConditionsWith(conditions, compile, fldPath)
}

// validateMatchConditionsWith checks match conditions (validateMatchConditions), compiling each
// trimmed expression with compile, which returns the field error of an expression that does not
// compile: webhooks and policies differ only there.
func validateMatchConditionsWith(conditions []admissionregistrationv1.MatchCondition, compile func(expr string, fldPath *field.Path) *field.Error, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(conditions) > maxMatchConditions {
		errs = append(errs, field.TooMany(fldPath, len(conditions), maxMatchConditions))
	}
	seen := make(map[string]struct{}, len(conditions))
	for j, mc := range conditions {
		p := fldPath.Index(j)
		errs = append(errs, validateMatchCondition(mc, compile, p)...)
		if mc.Name != "" {
			if _, dup := seen[mc.Name]; dup {
				errs = append(errs, field.Duplicate(p.Child("name"), mc.Name))
			} else {
				seen[mc.Name] = struct{}{}
			}
		}
	}
	return errs
}

// validateMatchCondition checks one match condition: its trimmed expression compiles to a bool,
// and its name is a qualified name (validateMatchCondition).
func validateMatchCondition(mc admissionregistrationv1.MatchCondition, compile func(string, *field.Path) *field.Error, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	expr := strings.TrimSpace(mc.Expression)
	if expr == "" {
		errs = append(errs, field.Required(fldPath.Child("expression"), ""))
	} else if err := compile(expr, fldPath.Child("expression")); err != nil {
		errs = append(errs, err)
	}
	if mc.Name == "" {
		errs = append(errs, field.Required(fldPath.Child("name"), ""))
	} else {
		errs = append(errs, qualifiedName(mc.Name, fldPath.Child("name"))...)
	}
	return errs
}

// compileMatchCondition compiles expr in env and turns a failure into the field error the
// server would return (validateMatchConditionsExpression, convertCELErrorToValidationError).
func compileMatchCondition(env celcompile.Env, expr string, fldPath *field.Path) *field.Error {
	celErr := celcompile.CompileMatchCondition(env, expr)
	if celErr == nil {
		return nil
	}
	switch celErr.Type {
	case apiservercel.ErrorTypeRequired:
		return field.Required(fldPath, celErr.Detail)
	case apiservercel.ErrorTypeInvalid:
		return field.Invalid(fldPath, expr, celErr.Detail)
	default:
		return field.InternalError(fldPath, celErr)
	}
}

// precompile compiles ahead, in parallel, every distinct match-condition expression of obj in
// the environment o gives it (celcompile.Precompile), so that the in-order validation pass
// that follows finds them all compiled. It changes no result, only the time taken.
func precompile(o *options, obj *admissionregistrationv1.MutatingWebhookConfiguration) {
	var pending []celcompile.Pending
	for i := range obj.Webhooks {
		for _, mc := range obj.Webhooks[i].MatchConditions {
			expr := strings.TrimSpace(mc.Expression)
			pending = append(pending, celcompile.Pending{Env: o.matchConditionEnv(expr), Expr: expr})
		}
	}
	celcompile.Precompile(pending)
}

// celFieldError turns a compiler error into the server's field error
// (convertCELErrorToValidationError): badValue is what the server quotes, the expression as
// its accessor holds it.
func celFieldError(err *apiservercel.Error, fldPath *field.Path, badValue string) *field.Error {
	switch err.Type {
	case apiservercel.ErrorTypeRequired:
		return field.Required(fldPath, err.Detail)
	case apiservercel.ErrorTypeInvalid:
		return field.Invalid(fldPath, badValue, err.Detail)
	case apiservercel.ErrorTypeInternal:
		return field.InternalError(fldPath, err)
	}
	return field.InternalError(fldPath, fmt.Errorf("unsupported error type: %w", err))
}

// policyCreateOnly is CreateOnly for an error at a path under spec: the match conditions, which
// ValidateValidatingAdmissionPolicyUpdate and ValidateMutatingAdmissionPolicyUpdate skip when
// paramKind and the match conditions are unchanged.
//
// An expression that fails in every supported server's NewExpressions environment fails in
// their StoredExpressions environments too (the newest one's has nothing more), so keeping it
// in an update does not help: its error holds on update as on create.
func policyCreateOnly(e *field.Error) bool {
	return strings.HasPrefix(e.Field, "spec.matchConditions")
}
