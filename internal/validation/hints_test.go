package validation

import (
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

func jsonPatchPolicy(expressions ...string) *admissionregistrationv1.MutatingAdmissionPolicy {
	p := &admissionregistrationv1.MutatingAdmissionPolicy{}
	p.Name = "patch.example.com"
	p.Spec.ReinvocationPolicy = admissionregistrationv1.NeverReinvocationPolicy
	p.Spec.MatchConstraints = &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
		RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
		},
	}}}
	for _, e := range expressions {
		p.Spec.Mutations = append(p.Spec.Mutations, admissionregistrationv1.Mutation{
			PatchType: admissionregistrationv1.PatchTypeJSONPatch, JSONPatch: &admissionregistrationv1.JSONPatch{Expression: e},
		})
	}
	return p
}

func TestJSONPatchPathWarnings(t *testing.T) {
	p := jsonPatchPolicy(
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
	if errs := Offline(MutatingPolicyCheck(DefaultMutatingPolicy(p), nil)); len(errs) != 1 || errs[0].Field != "spec.mutations[6].jsonPatch.expression" {
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
		if got[i].Path.String() != w.field || !strings.Contains(got[i].Message, w.says) || got[i].Summary != SummaryJSONPatchPath {
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

func TestParamsWithoutParamKindSaysToAddIt(t *testing.T) {
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{}
	p.Name = "params.example.com"
	p.Spec.MatchConstraints = jsonPatchPolicy().Spec.MatchConstraints
	p.Spec.Validations = []admissionregistrationv1.Validation{{Expression: "object.spec.replicas <= params.data.max"}}
	errs := Offline(ValidatingPolicyCheck(DefaultValidatingPolicy(p), nil))
	if len(errs) != 1 || errs[0].Field != "spec.validations[0].expression" {
		t.Fatalf("want the expression rejected, got %v", errs)
	}
	msg := Message(errs[0])
	if !strings.HasPrefix(msg, errs[0].ErrorBody()) || !strings.Contains(msg, "add a param_kind block") {
		t.Errorf("the message keeps the server's words and says to add param_kind: %q", msg)
	}
	// With a param_kind, params is declared.
	p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
	if errs := Offline(ValidatingPolicyCheck(DefaultValidatingPolicy(p), nil)); len(errs) != 0 {
		t.Errorf("with a param_kind: %v", errs)
	}
	// Other errors have no hint.
	for _, e := range Offline(MutatingPolicyCheck(DefaultMutatingPolicy(jsonPatchPolicy("[")), nil)) {
		if Message(e) != e.ErrorBody() {
			t.Errorf("a hint on %v", e)
		}
	}
}
