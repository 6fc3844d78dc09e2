package validation

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Hints for mistakes whose words at the server do not say what to change: what the server's
// error gains in our words (Message). The advice on what the server does not see at all is
// internal/advice's.

// paramsHint is what the error of an expression that reads params in a policy without
// paramKind adds to the server's "undeclared reference to 'params'": the compiler declares
// params only for a policy with a paramKind (k8s.io/apiserver pkg/admission/plugin/cel
// createEnvForOpts, HasParams).
const paramsHint = "params is declared only in a policy with a param_kind: add a param_kind block " +
	"that names the kind of the parameter resources (and a param_ref to the binding), or do not read params."

// hint is what to add to the message of e, if anything.
func hint(e *field.Error) string {
	if e.Type == field.ErrorTypeInvalid && strings.HasPrefix(e.Field, "spec.") &&
		strings.Contains(e.Detail, "undeclared reference to 'params'") {
		return paramsHint
	}
	return ""
}
