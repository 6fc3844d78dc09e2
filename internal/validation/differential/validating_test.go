package differential

import (
	"encoding/json"
	"slices"

	v1 "k8s.io/api/admissionregistration/v1"
)

// The validating kind. A ValidatingWebhook is a MutatingWebhook without reinvocationPolicy, and
// the JSON of the two kinds is otherwise the same; the provider's core holds either kind as a
// MutatingWebhookConfiguration, converting through that JSON (webhook.convertJSON). The cases of
// the validating kind are the generator's, converted the same way.

// viaJSON converts one form of a configuration into another through its JSON: what the target
// type has no field for is dropped.
func viaJSON[T any](from any) *T {
	data, err := json.Marshal(from)
	if err != nil {
		panic(err)
	}
	to := new(T)
	if err := json.Unmarshal(data, to); err != nil {
		panic(err)
	}
	return to
}

// validatingForm is the ValidatingWebhookConfiguration of o: o without reinvocationPolicy.
func validatingForm(o *mwc) *v1.ValidatingWebhookConfiguration {
	return viaJSON[v1.ValidatingWebhookConfiguration](o)
}

// validatingCases derives the cases of the validating kind from the generator's: each object is
// what the core holds for the ValidatingWebhookConfiguration made from it (reinvocationPolicy
// dropped), and Validate and the server judge that.
//
// A mutatingOnly step leaves no trace in that object, so it is taken out of the case's steps,
// rule and note. A case made by such steps alone is the valid object it started from under
// another name: it is dropped (and counted), not relabelled. The other cases keep the rule's
// verdict: every step left is still in the object, and a case with several steps is made only of
// rejecting mutators.
func validatingCases(mutating []testCase) (cases []testCase, dropped int) {
	for _, c := range mutating {
		steps := slices.DeleteFunc(slices.Clone(c.steps), func(s step) bool { return s.mutatingOnly })
		if len(steps) < len(c.steps) {
			if len(steps) == 0 {
				dropped++
				continue
			}
			c.steps = steps
			c.rule, c.note = describe(steps)
		}
		c.obj = viaJSON[mwc](validatingForm(c.obj))
		cases = append(cases, c)
	}
	return cases, dropped
}
