package simulate

import (
	"context"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/jsontest"
)

func mutateCase(t *testing.T, policy string, req map[string]any) *MutateResult {
	t.Helper()
	var p MutatingPolicy
	if err := DecodeAPIObject(tree(t, policy), "MutatingAdmissionPolicy", &p); err != nil {
		t.Fatal(err)
	}
	b := MutatingBinding{}
	b.Name = "b"
	r, err := ParseRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Mutate(context.Background(), &p, &b, r)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestMutate(t *testing.T) {
	policy := `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: team-label}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  reinvocationPolicy: IfNeeded
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{metadata: Object.metadata{labels: {"team": "web"}},
               spec: Object.spec{containers: [Object.spec.containers{name: "app", imagePullPolicy: "Always"}]}}
  - patchType: JSONPatch
    jsonPatch:
      expression: '[JSONPatch{op: "add", path: "/metadata/annotations", value: {"seen": "yes"}}]'
`
	pod := map[string]any{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "p", "namespace": "default", "labels": map[string]any{"app": "x"}},
		"spec": map[string]any{"containers": []any{
			map[string]any{"name": "app", "image": "nginx"},
			map[string]any{"name": "sidecar", "image": "envoy"},
		}}}
	res := mutateCase(t, policy, map[string]any{"object": pod})
	if !res.Matched || !res.Allowed {
		t.Fatalf("%+v", res)
	}
	labels := res.Object.GetLabels()
	if !reflect.DeepEqual(labels, map[string]string{"app": "x", "team": "web"}) {
		t.Errorf("labels %v", labels)
	}
	if res.Object.GetAnnotations()["seen"] != "yes" {
		t.Errorf("annotations %v", res.Object.GetAnnotations())
	}
	containers, _, _ := unstructured.NestedSlice(res.Object.Object, "spec", "containers")
	pull, _ := jsontest.At(containers, 0, "imagePullPolicy")
	name, _ := jsontest.At(containers, 1, "name")
	if len(containers) != 2 || pull != "Always" || name != "sidecar" {
		t.Errorf("containers merged by name: %v", containers)
	}
	// A deployment is not matched: the object is unchanged.
	res = mutateCase(t, policy, map[string]any{"object": deployment("default", 1)})
	if res.Matched || res.Object.GetLabels() != nil {
		t.Errorf("deployment: %+v", res)
	}
}
