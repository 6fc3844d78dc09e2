package apipath

import "testing"

func TestInOurWords(t *testing.T) {
	const paramsError = "Invalid value: \"params.x\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params'"
	withHint := paramsError + "\n\nparams is declared only in a policy with a param_kind: add a param_kind block " +
		"that names the kind of the parameter resources (and a param_ref to the binding), or do not read params."
	for _, tc := range []struct{ path, in, want string }{
		{"metadata.name", "Required value: name or generateName is required", "Required value: name is required"},
		{"spec.matchConstraints.namespaceSelector.matchExpressions[0].operator", `Unsupported value: "in": not a valid selector operator`,
			`Unsupported value: "in": not a valid selector operator: one of In, NotIn, Exists, DoesNotExist`},
		{"webhooks[2].clientConfig", "Required value: exactly one of url or service is required", "Required value: set one of url or a service block"},
		{"spec.policyName", "Required value: name or generateName is required", "Required value: name or generateName is required"},
		{"spec.validations[0].expression", paramsError, withHint},
		{"metadata.annotations", paramsError, paramsError},
	} {
		got := InOurWords(tc.path, tc.in)
		if got != tc.want {
			t.Errorf("InOurWords(%q, %q) = %q, want %q", tc.path, tc.in, got, tc.want)
		}
		if again := InOurWords(tc.path, got); again != got {
			t.Errorf("InOurWords twice on %q: %q, want %q", tc.path, again, got)
		}
	}
}
