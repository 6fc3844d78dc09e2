package advice

import (
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"sigs.k8s.io/yaml"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

// patchPolicy is a mutating policy on deployments with a JSON patch mutation per expression.
func patchPolicy(t *testing.T, expressions ...string) *admissionregistrationv1.MutatingAdmissionPolicy {
	t.Helper()
	p := &admissionregistrationv1.MutatingAdmissionPolicy{}
	if err := yaml.Unmarshal([]byte(`
metadata: {name: patch.example.com}
spec:
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules: [{operations: [CREATE], apiGroups: [apps], apiVersions: [v1], resources: [deployments]}]
`), p); err != nil {
		t.Fatal(err)
	}
	for _, e := range expressions {
		p.Spec.Mutations = append(p.Spec.Mutations, admissionregistrationv1.Mutation{
			PatchType: admissionregistrationv1.PatchTypeJSONPatch, JSONPatch: &admissionregistrationv1.JSONPatch{Expression: e}})
	}
	return p
}

func TestJSONPatchPathWarnings(t *testing.T) {
	p := patchPolicy(t,
		`[JSONPatch{op: "replace", path: "/spec/replicas", value: 3}]`,
		`[JSONPatch{op: "replace", path: "spec/replicas", value: 3}]`,
		`[JSONPatch{op: "add", path: "/metadata/labels/a~1b", value: "x"}, JSONPatch{op: "add", path: "replicas", value: 1}]`,
		// Not literals: not checked.
		`[JSONPatch{op: "replace", path: "/spec/" + "replicas", value: 3}]`,
		`object.spec.template.spec.containers.map(c, JSONPatch{op: "add", path: "/spec/x~2", value: c.name})`,
		`[JSONPatch{op: "replace", path: "", value: object}]`,
		`[JSONPatch{op: "replace", path: `, // does not parse: the server's compile says so
	)
	// The server accepts every one of these (the mutating policy's rules compile them).
	if errs := validation.Offline(validation.MutatingPolicyCheck(validation.DefaultMutatingPolicy(p), nil)); len(errs) != 1 || errs[0].Field != "spec.mutations[6].jsonPatch.expression" {
		t.Fatalf("want only the expression that does not parse rejected, got %v", errs)
	}
	got := JSONPatchPathWarnings(p)
	want := []struct{ field, says string }{
		{"spec.mutations[1].jsonPatch.expression", `At 1:33 the path "spec/replicas" of a JSONPatch is not a JSON pointer`},
		{"spec.mutations[2].jsonPatch.expression", `"replicas" names no field`},
	}
	if len(got) != len(want) {
		t.Fatalf("want %d warnings, got %d: %v", len(want), len(got), got)
	}
	for i, w := range want {
		if got[i].Path.String() != w.field || !strings.Contains(got[i].Message, w.says) || got[i].Summary != SummaryJSONPatchPath || got[i].Kind != warning.Hint {
			t.Errorf("warning %d: got %s: %s, want %s saying %q", i, got[i].Path, got[i].Message, w.field, w.says)
		}
	}
	if !strings.Contains(got[0].Message, `Write "/spec/replicas".`) || !strings.Contains(got[0].Message, `"spec/replicas" names "/replicas"`) {
		t.Errorf("the warning does not say what to write and what the path names: %s", got[0].Message)
	}
	if JSONPatchPathWarnings(nil) != nil {
		t.Error("a nil policy has warnings")
	}
}

func TestIsJSONPointer(t *testing.T) {
	for s, want := range map[string]bool{
		"": true, "/": true, "/spec/replicas": true, "/a~0b/c~1d": true, "/a/0/-": true,
		"spec/replicas": false, "replicas": false, " /spec": false,
	} {
		if got := isJSONPointer(s); got != want {
			t.Errorf("isJSONPointer(%q) = %v, want %v", s, got, want)
		}
	}
}
