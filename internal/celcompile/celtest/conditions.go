// Package celtest holds match conditions of the kinds people write, and the switches of the
// compile (SetShortcuts, ResetCache), for the tests and benchmarks of the CEL compile
// (internal/celcompile) and of the validation that uses it. Only tests import it.
package celtest

import (
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// RealisticConditions returns n match conditions of the kind people write: namespace and user
// exclusions, label checks. Every expression differs from the others by a number, salt*1000+i.
func RealisticConditions(n, salt int) []admissionregistrationv1.MatchCondition {
	forms := []string{
		`request.namespace != "ns-%d"`,
		`!(request.userInfo.username in ["system:serviceaccount:kube-system:sa-%d", "system:admin"])`,
		`!request.userInfo.groups.exists(g, g == "team-%d")`,
		`!has(object.metadata.labels) || !("skip-%d" in object.metadata.labels)`,
		`object.metadata.name.startsWith("app-%d") || request.operation == "DELETE"`,
		`request.resource.group != "example-%d.com" && request.dryRun != true`,
	}
	return fillConditions(forms, n, salt)
}

// UnshapedConditions returns n match conditions like RealisticConditions, but each with an
// integer constant of its own, so that no two share a shape (celcompile, shape.go) and every one is
// parsed and checked: the cost of a configuration whose conditions are all different.
func UnshapedConditions(n, salt int) []admissionregistrationv1.MatchCondition {
	forms := []string{
		`request.namespace != "ns" || size(request.name) != %d`,
		`!(request.userInfo.username in ["system:admin"]) || request.userInfo.groups.size() > %d`,
		`!request.userInfo.groups.exists(g, g == "team" && size(g) == %d)`,
		`!has(object.metadata.labels) || size(object.metadata.labels) < %d`,
		`object.metadata.name.startsWith("app") || object.spec.replicas == %d`,
		`request.resource.group != "example.com" && object.metadata.generation != %d`,
	}
	return fillConditions(forms, n, salt)
}

// fillConditions returns n match conditions cycling through forms, each with the number
// salt*1000+i written into it.
func fillConditions(forms []string, n, salt int) []admissionregistrationv1.MatchCondition {
	out := make([]admissionregistrationv1.MatchCondition, n)
	for i := range out {
		out[i] = admissionregistrationv1.MatchCondition{
			Name:       fmt.Sprintf("condition-%d", i),
			Expression: fmt.Sprintf(forms[i%len(forms)], salt*1000+i),
		}
	}
	return out
}
