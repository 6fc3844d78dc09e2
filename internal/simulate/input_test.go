package simulate

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// Bad inputs are errors that name the field, never panics.
func TestInputErrors(t *testing.T) {
	for _, c := range []struct {
		name, kind string
		in         any
		want       string
	}{
		{"not an object", "ValidatingAdmissionPolicy", "x", "want an object"},
		{"wrong kind", "ValidatingAdmissionPolicy", map[string]any{"kind": "Pod"}, "kind: want ValidatingAdmissionPolicy"},
		{"wrong API version", "ValidatingAdmissionPolicy", map[string]any{"apiVersion": "v1", "kind": "ValidatingAdmissionPolicy"}, "apiVersion: want admissionregistration.k8s.io/v1"},
		{"API form, unknown field", "ValidatingAdmissionPolicy", map[string]any{"kind": "ValidatingAdmissionPolicy", "spec": map[string]any{"validationz": []any{}}}, `unknown field "validationz"`},
		{"API form, wrong type", "ValidatingAdmissionPolicy", map[string]any{"kind": "ValidatingAdmissionPolicy", "spec": map[string]any{"validations": "x"}}, "spec.validations"},
		{"API form, labels unknown", "ValidatingAdmissionPolicy", map[string]any{"kind": "ValidatingAdmissionPolicy", "metadata": map[string]any{"labels": map[string]any{"a": Unknown{}}}}, "metadata.labels.a is not known yet"},
		{"API form, uid unknown is no matter", "ValidatingAdmissionPolicy", map[string]any{"kind": "ValidatingAdmissionPolicy", "metadata": map[string]any{"uid": Unknown{}}, "spec": "x"}, "cannot unmarshal string"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var p ValidatingPolicy
			err := DecodeAPIObject(c.in, c.kind, &p)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
	for _, c := range []struct {
		name string
		in   any
		want string
	}{
		{"not an object", "x", "want an object"},
		{"unknown field", map[string]any{"objects": nil}, "objects: unknown field"},
		{"object not an object", map[string]any{"object": "x"}, "object: want an object in API form"},
		{"object without kind", map[string]any{"object": map[string]any{"metadata": map[string]any{}}}, "object: "},
		{"update without old", map[string]any{"operation": "UPDATE", "object": deployment("a", 1)}, "old_object: an UPDATE needs object and old_object"},
		{"create without object", map[string]any{"operation": "CREATE"}, "object: a CREATE needs an object"},
		{"custom kind without resource", map[string]any{"object": map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w"}}}, "resource: example.com/v1, Kind=Widget is not built into kube-apiserver"},
		{"other namespace", map[string]any{"object": deployment("a", 1), "namespace": map[string]any{"name": "b"}}, `namespace.name: "b" is not the object's namespace "a"`},
		{"label not a string", map[string]any{"object": deployment("a", 1), "namespace": map[string]any{"labels": map[string]any{"x": true}}}, "namespace.labels.x: want a string"},
		{"params not a list", map[string]any{"object": deployment("a", 1), "params": map[string]any{}}, "params: want a list"},
		{"param not an object", map[string]any{"object": deployment("a", 1), "params": []any{"x"}}, "params[0]: want an object"},
		{"authorizer rule field", map[string]any{"object": deployment("a", 1), "authorizer": []any{map[string]any{"verbs": "get"}}}, "authorizer[0].verbs: unknown field"},
		{"unknown request field", map[string]any{"object": Unknown{}}, "object is not known yet"},
	} {
		t.Run("request "+c.name, func(t *testing.T) {
			_, err := ParseRequest(c.in)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
}

// A custom resource kind is answered when the request names its resource.
func TestCustomResourceRequest(t *testing.T) {
	r, err := ParseRequest(map[string]any{
		"object":   map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w", "namespace": "apps"}},
		"resource": map[string]any{"group": "example.com", "version": "v1", "resource": "widgets", "namespaced": true},
	})
	if err != nil {
		t.Fatal(err)
	}
	var p ValidatingPolicy
	if err := DecodeAPIObject(tree(t, `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: widgets}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [example.com], apiVersions: ["*"], operations: [CREATE], resources: [widgets]}]
  validations: [{expression: "object.metadata.name.size() > 3", message: short}]
`), "ValidatingAdmissionPolicy", &p); err != nil {
		t.Fatal(err)
	}
	b := ValidatingBinding{}
	b.Name = "b"
	b.Spec.ValidationActions = []ValidationAction{"Deny"}
	res, err := Validate(context.Background(), &p, &b, r)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Matched || res.Allowed || !strings.Contains(res.Message, `widgets.example.com "w" is forbidden`) {
		t.Fatalf("%+v", res)
	}
}

// FuzzInputs: no input makes decoding or evaluation panic.
func FuzzInputs(f *testing.F) {
	f.Add(`{"kind":"ValidatingAdmissionPolicy","spec":{"validations":[{"expression":"object.x"}]}}`, `{"object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}}`)
	f.Add(`{"metadata":[{"name":"p"}],"spec":[{"match_constraints":[{"resource_rules":[{"api_groups":["*"],"api_versions":["*"],"operations":["*"],"resources":["*"]}]}],"validations":[{"expression":"false"}]}]}`,
		`{"operation":"DELETE","old_object":{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"}}}`)
	f.Add(`{"spec":{"paramKind":{"apiVersion":"///","kind":"X"}}}`, `{"object":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"a","namespace":"b"}},"params":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}]}`)
	f.Fuzz(func(t *testing.T, policy, request string) {
		var pt, rt any
		if json.Unmarshal([]byte(policy), &pt) != nil || json.Unmarshal([]byte(request), &rt) != nil {
			return
		}
		var p ValidatingPolicy
		if err := DecodeAPIObject(pt, "ValidatingAdmissionPolicy", &p); err != nil {
			var ie *InputError
			var ue *ErrUnknown
			if !errors.As(err, &ie) && !errors.As(err, &ue) {
				t.Fatalf("not an input error: %v", err)
			}
			return
		}
		r, err := ParseRequest(rt)
		if err != nil {
			return
		}
		var b ValidatingBinding
		_, _ = Validate(context.Background(), &p, &b, r)
		var m MutatingPolicy
		_ = DecodeAPIObject(pt, "MutatingAdmissionPolicy", &m)
		_, _ = Mutate(context.Background(), &m, &MutatingBinding{}, r)
	})
}
