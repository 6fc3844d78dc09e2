package typecheck_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/typecheck"
)

// mutatingPolicy is a mutating policy with the rules and mutations given: an expression that
// starts with "[" is a JSON patch, any other an apply configuration.
func mutatingPolicy(rules []admissionregistrationv1.NamedRuleWithOperations, expressions ...string) *admissionregistrationv1.MutatingAdmissionPolicy {
	p := &admissionregistrationv1.MutatingAdmissionPolicy{}
	p.Name = "test.example.com"
	p.Spec.MatchConstraints = &admissionregistrationv1.MatchResources{ResourceRules: rules}
	for _, e := range expressions {
		m := admissionregistrationv1.Mutation{PatchType: admissionregistrationv1.PatchTypeApplyConfiguration, ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: e}}
		if strings.HasPrefix(strings.TrimSpace(e), "[") {
			m = admissionregistrationv1.Mutation{PatchType: admissionregistrationv1.PatchTypeJSONPatch, JSONPatch: &admissionregistrationv1.JSONPatch{Expression: e}}
		}
		p.Spec.Mutations = append(p.Spec.Mutations, m)
	}
	return p
}

func TestMutatingPolicyApplyConfigurationTypo(t *testing.T) {
	got := typecheck.New(nil).MutatingPolicy(mutatingPolicy(deployments(), "Object{spec: Object.spec{replicass: 3}}"))
	want := []typecheck.Warning{{
		Field: "spec.mutations[0].applyConfiguration.expression",
		Message: "apps/v1, Kind=Deployment: ERROR: <input>:1:35: undefined field 'replicass'\n" +
			" | Object{spec: Object.spec{replicass: 3}}\n" +
			" | ..................................^\n",
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestMutatingPolicyCorrectMutationsNoWarning(t *testing.T) {
	p := mutatingPolicy(deployments(),
		"Object{spec: Object.spec{replicas: 3}}",
		"Object{metadata: Object.metadata{labels: {'managed': 'true'}, annotations: {'a': string(object.spec.replicas)}}}",
		`Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{
			containers: [Object.spec.template.spec.containers{name: 'sidecar', image: 'example.com/sidecar:1', ports: [{'containerPort': 8080}]}],
			nodeSelector: {'disk': 'ssd'},
			serviceAccountName: object.spec.template.spec.serviceAccountName + '-x'}}}}`,
		"Object{spec: Object.spec{strategy: Object.spec.strategy{rollingUpdate: Object.spec.strategy.rollingUpdate{maxSurge: '25%', maxUnavailable: 1}}}}",
		"Object{spec: Object.spec{template: {'metadata': {'labels': {'a': 'b'}}}}}",
		// A map-typed field built as an Object, as Kyverno's samples write it: the server turns
		// the Object into the map of its fields and sets the label.
		`Object{metadata: Object.metadata{labels: Object.metadata.labels{foo: "bar"}}}`,
		`Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{nodeSelector: Object.spec.template.spec.nodeSelector{disk: "ssd"}}}}}`,
		`[JSONPatch{op: "replace", path: "/spec/replicas", value: 3}]`,
		`[JSONPatch{op: "add", path: "/spec/selector", value: Object.spec.selector{matchLabels: {"environment": "test"}}}]`,
		`[JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("example.com/env"), value: "test"}]`,
		"Object{spec: Object.spec{paused: request.operation == 'CREATE' && authorizer.requestResource.check('update').allowed()}}",
	)
	if got := typecheck.New(nil).MutatingPolicy(p); len(got) != 0 {
		t.Errorf("want no warning, got %q", got)
	}
}

func TestMutatingPolicyTypedFields(t *testing.T) {
	p := mutatingPolicy(deployments(),
		"Object{spec: Object.spec{replicas: 'three'}}",
		"Object{spec: Object.spec{paused: 1}}",
		"Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{imagee: 'x'}]}}}}",
		"Object{spec: Object.spec.templatee{}}",
		"Object{metadata: Object.metadata{labels: 'a'}}",
		`[JSONPatch{op: "add", path: "/spec/selector", value: Object.spec.selector{matchLabel: {"environment": "test"}}}]`,
		`[JSONPatch{op: "add", pathh: "/spec/replicas", value: 1}]`,
		"Object{spec: Object.spec{replicas: object.spec.replicass}}",
		`Object{metadata: Object.metadata{labels: Object.metadata.labels{a: "b"}, annotations: 'x'}}`,
	)
	want := map[string]string{
		"spec.mutations[0].applyConfiguration.expression": "expected type of field 'replicas' is 'int' but provided type is 'string'",
		"spec.mutations[1].applyConfiguration.expression": "expected type of field 'paused' is 'bool' but provided type is 'int'",
		"spec.mutations[2].applyConfiguration.expression": "undefined field 'imagee'",
		"spec.mutations[3].applyConfiguration.expression": "Object.spec.templatee",
		"spec.mutations[4].applyConfiguration.expression": "expected type of field 'labels' is 'map(string, dyn)' but provided type is 'string'",
		"spec.mutations[5].jsonPatch.expression":          "undefined field 'matchLabel'",
		// The server's JSONPatch type words it so (k8s.io/apiserver pkg/cel/mutation JSONPatchType).
		"spec.mutations[6].jsonPatch.expression":          "expected type of field 'pathh' is '' but provided type is 'string'",
		"spec.mutations[7].applyConfiguration.expression": "undefined field 'replicass'",
		// Of the two fields, only the string given to a map: the Object given to labels is applied.
		"spec.mutations[8].applyConfiguration.expression": "expected type of field 'annotations' is 'map(string, dyn)' but provided type is 'string'",
	}
	got := typecheck.New(nil).MutatingPolicy(p)
	if len(got) != len(want) {
		t.Errorf("want %d warnings, got %d: %q", len(want), len(got), got)
	}
	for _, w := range got {
		if want[w.Field] == "" || !strings.Contains(w.Message, want[w.Field]) {
			t.Errorf("%s: want a message with %q, got %q", w.Field, want[w.Field], w.Message)
		}
		if strings.Contains(w.Message, "'Object.metadata.labels'") {
			t.Errorf("%s: an Object given to labels is applied by the server: %q", w.Field, w.Message)
		}
	}
}

func TestMutatingPolicyVariablesParamsAndConditions(t *testing.T) {
	p := mutatingPolicy(deployments(),
		"Object{spec: Object.spec{replicas: variables.replicas}}",
		"Object{spec: Object.spec{replicas: variables.name}}",
		"Object{metadata: Object.metadata{labels: params.data}}",
		"Object{metadata: Object.metadata{labels: params.dataa}}",
	)
	p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
	p.Spec.Variables = []admissionregistrationv1.Variable{
		{Name: "replicas", Expression: "object.spec.replicas + 1"},
		{Name: "name", Expression: "object.metadata.name"},
		{Name: "typo", Expression: "object.spec.replicass"},
	}
	p.Spec.MatchConditions = []admissionregistrationv1.MatchCondition{
		{Name: "ok", Expression: "object.spec.replicas > 0"},
		{Name: "typo", Expression: "object.spec.pausedd"},
	}
	want := map[string]string{
		"spec.mutations[1].applyConfiguration.expression": "expected type of field 'replicas' is 'int' but provided type is 'string'",
		"spec.mutations[3].applyConfiguration.expression": "undefined field 'dataa'",
		"spec.matchConditions[1].expression":              "undefined field 'pausedd'",
		"spec.variables[2].expression":                    "undefined field 'replicass'",
	}
	got := typecheck.New(nil).MutatingPolicy(p)
	if len(got) != len(want) {
		t.Errorf("want %d warnings, got %d: %q", len(want), len(got), got)
	}
	for _, w := range got {
		if want[w.Field] == "" || !strings.Contains(w.Message, want[w.Field]) {
			t.Errorf("%s: want a message with %q, got %q", w.Field, want[w.Field], w.Message)
		}
	}
}

func TestMutatingPolicyKinds(t *testing.T) {
	typo := "Object{spec: Object.spec{replicass: 3}}"
	p := mutatingPolicy([]admissionregistrationv1.NamedRuleWithOperations{rule("apps", "v1", "deployments", "statefulsets", "replicasets")}, typo)
	got := typecheck.New(nil).MutatingPolicy(p)
	if len(got) != 1 || strings.Count(got[0].Message, "undefined field 'replicass'") != 3 ||
		!strings.HasPrefix(got[0].Message, "apps/v1, Kind=Deployment: ") || !strings.Contains(got[0].Message, "\napps/v1, Kind=StatefulSet: ") {
		t.Errorf("want one warning with a part per kind, got %q", got)
	}
	for name, rules := range map[string][]admissionregistrationv1.NamedRuleWithOperations{
		"wildcard resources": {rule("apps", "v1", "*")},
		"wildcard group":     {rule("*", "v1", "deployments")},
		"unknown resource":   {rule("apps", "v1", "deploymentz")},
	} {
		if got := typecheck.New(nil).MutatingPolicy(mutatingPolicy(rules, typo)); len(got) != 0 {
			t.Errorf("%s: want no warning, got %q", name, got)
		}
	}
	if got := typecheck.New(nil).MutatingPolicy(nil); len(got) != 0 {
		t.Errorf("nil policy: want no warning, got %q", got)
	}
}

func TestMutatingPolicyCustomResource(t *testing.T) {
	live, calls := counted(newFakeCluster(), nil)
	c := typecheck.New(live)
	p := mutatingPolicy(widgets(),
		"Object{spec: Object.spec{size: 3, color: 'red'}}",
		"Object{spec: Object.spec{extra: Object.spec.extra{anything: {'goes': 1}}}}",
		"Object{spec: Object.spec{sizee: 3}}",
		`[JSONPatch{op: "replace", path: "/spec/size", value: object.spec.size + 1}]`,
	)
	got := c.MutatingPolicy(p)
	if len(got) != 1 || got[0].Field != "spec.mutations[2].applyConfiguration.expression" ||
		!strings.HasPrefix(got[0].Message, "example.com/v1, Kind=Widget: ERROR: ") || !strings.Contains(got[0].Message, "undefined field 'sizee'") {
		t.Errorf("want one warning about sizee, got %q", got)
	}
	c.MutatingPolicy(p)
	if n := calls.Load(); n != 1 {
		t.Errorf("live called %d times, want 1", n)
	}
}

func TestMutatingPolicyNeverPanics(t *testing.T) {
	p := mutatingPolicy(deployments(), "Object{", "", "[JSONPatch{}]", "{b'a': 1}", "Object.spec.template.spec.containers{}")
	p.Spec.Mutations = append(p.Spec.Mutations,
		admissionregistrationv1.Mutation{PatchType: admissionregistrationv1.PatchTypeJSONPatch},
		admissionregistrationv1.Mutation{PatchType: "Other"})
	_ = typecheck.New(nil).MutatingPolicy(p)
}
