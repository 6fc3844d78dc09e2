package validation

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestMessage(t *testing.T) {
	p := field.NewPath("webhooks").Index(0)
	cases := []struct {
		err  *field.Error
		want string
	}{
		{field.NotSupported(p.Child("failurePolicy"), "Always", supportedFailurePolicies),
			`Unsupported value: "Always": supported values: "Fail", "Ignore"`},
		{field.Required(p.Child("name"), ""), "Required value"},
		{field.Required(p.Child("sideEffects"), "must specify one of None, NoneOnDryRun"),
			"Required value: must specify one of None, NoneOnDryRun"},
		{field.Invalid(p.Child("timeoutSeconds"), int32(0), "the timeout value must be between 1 and 30 seconds"),
			"Invalid value: 0: the timeout value must be between 1 and 30 seconds"},
		{field.TooMany(p.Child("matchConditions"), 65, 64), "Too many: 65: must have at most 64 items"},
		{field.Duplicate(p.Child("name"), "a.b.c"), `Duplicate value: "a.b.c"`},
		{nil, ""},
	}
	for _, tc := range cases {
		if got := Message(tc.err); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}
