package simulate

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// namespaceObject sees the namespace's annotations, as the server reads the whole Namespace.
func TestNamespaceAnnotations(t *testing.T) {
	policy := `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: max-replicas}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
  validations:
  - expression: "object.spec.replicas <= int(namespaceObject.metadata.annotations['max-replicas'])"
    message: too many
`
	binding := `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: max-replicas}
spec: {policyName: max-replicas, validationActions: [Deny]}
`
	ns := map[string]any{"name": "default", "annotations": map[string]any{"max-replicas": "5"}}
	if res := validateCase(t, policy, binding, map[string]any{"object": deployment("default", 3), "namespace": ns}); !res.Allowed {
		t.Errorf("3 of 5: %+v", res)
	}
	if res := validateCase(t, policy, binding, map[string]any{"object": deployment("default", 6), "namespace": ns}); res.Allowed {
		t.Errorf("6 of 5: %+v", res)
	}
	// A Namespace in API form.
	apiNS := map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "default", "annotations": map[string]any{"max-replicas": "2"}}}
	if res := validateCase(t, policy, binding, map[string]any{"object": deployment("default", 3), "namespace": apiNS}); res.Allowed {
		t.Errorf("3 of 2: %+v", res)
	}
}

// Inputs the request does not use are errors naming them.
func TestUnusedInputs(t *testing.T) {
	for _, c := range []struct {
		req  map[string]any
		want string
	}{
		{map[string]any{"object": deployment("default", 1), "namespace": map[string]any{"name": "default", "owner": "x"}}, "namespace.owner"},
		{map[string]any{"object": map[string]any{"apiVersion": "v1", "kind": "Node", "metadata": map[string]any{"name": "n"}}, "namespace": "default"}, "namespace"},
		{map[string]any{"object": deployment("default", 1), "user_info": map[string]any{"name": "x"}}, "user_info.name"},
		{map[string]any{"object": deployment("default", 1), "resource": map[string]any{"resource": "deployments", "scope": "x"}}, "resource.scope"},
		{map[string]any{"operation": "DELETE", "object": deployment("default", 1)}, "object"},
	} {
		_, err := ParseRequest(c.req)
		var ie *InputError
		if !errors.As(err, &ie) || ie.Path != c.want {
			t.Errorf("%v: got %v, want an error at %s", c.req, err, c.want)
		}
	}
}

func hpa(version string) map[string]any {
	return map[string]any{"apiVersion": "autoscaling/" + version, "kind": "HorizontalPodAutoscaler",
		"metadata": map[string]any{"name": "web", "namespace": "default"},
		"spec": map[string]any{"scaleTargetRef": map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
			"minReplicas": 1, "maxReplicas": 20}}
}

// A policy on autoscaling/v1 HPAs with matchPolicy Equivalent sees an autoscaling/v2 request,
// converted to v1; with Exact it does not.
func TestEquivalentHPA(t *testing.T) {
	policy := `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: hpa}
spec:
  matchConstraints:
    matchPolicy: %s
    resourceRules: [{apiGroups: [autoscaling], apiVersions: [v1], operations: [CREATE], resources: [horizontalpodautoscalers]}]
  validations:
  - expression: "object.apiVersion == 'autoscaling/v1' && object.spec.maxReplicas <= 10"
    message: at most 10
`
	binding := `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: hpa}
spec: {policyName: hpa, validationActions: [Deny]}
`
	res := validateCase(t, strings.Replace(policy, "%s", "Equivalent", 1), binding, map[string]any{"object": hpa("v2")})
	if !res.Matched || res.Allowed || !strings.Contains(res.Message, "at most 10") {
		t.Errorf("Equivalent: %+v", res)
	}
	res = validateCase(t, strings.Replace(policy, "%s", "Exact", 1), binding, map[string]any{"object": hpa("v2")})
	if res.Matched || !res.Allowed {
		t.Errorf("Exact: %+v", res)
	}
}

// A webhook on events.k8s.io/v1 events is called for a core v1 Event (the server stores them together).
func TestEquivalentEvents(t *testing.T) {
	m, _, err := DecodeAPIWebhookConfiguration(tree(t, `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: events}
webhooks:
- name: events.example.com
  clientConfig: {url: "https://example.com/events"}
  sideEffects: None
  admissionReviewVersions: [v1]
  rules: [{apiGroups: [events.k8s.io], apiVersions: [v1], operations: [CREATE], resources: [events]}]
`))
	if err != nil {
		t.Fatal(err)
	}
	event := map[string]any{"apiVersion": "v1", "kind": "Event", "metadata": map[string]any{"name": "e", "namespace": "default"},
		"involvedObject": map[string]any{"kind": "Pod", "name": "p", "namespace": "default"}, "reason": "Started", "message": "m", "type": "Normal"}
	r, err := ParseRequest(map[string]any{"object": event})
	if err != nil {
		t.Fatal(err)
	}
	res, err := MatchMutatingWebhooks(context.Background(), m, r)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Called, []string{"events.example.com"}) {
		t.Errorf("core v1 Event: %+v", res)
	}
	m.Webhooks[0].MatchPolicy = ptrTo(admissionregistrationv1.Exact)
	res, err = MatchMutatingWebhooks(context.Background(), m, r)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Called) != 0 {
		t.Errorf("Exact: %+v", res)
	}
}

// The privileged group system:masters is authorized for everything, as the server's authorizer chain says.
func TestPrivilegedGroup(t *testing.T) {
	policy := `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"]}]
  validations:
  - expression: authorizer.group('apps').resource('deployments').namespace('default').check('create').allowed()
    message: may not
`
	binding := `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b}
spec: {policyName: p, validationActions: [Deny]}
`
	res := validateCase(t, policy, binding, map[string]any{"object": deployment("default", 1),
		"user_info": map[string]any{"username": "admin", "groups": []any{"system:masters", "system:authenticated"}}})
	if !res.Allowed {
		t.Errorf("system:masters: %+v", res)
	}
	res = validateCase(t, policy, binding, map[string]any{"object": deployment("default", 1),
		"user_info": map[string]any{"username": "dev", "groups": []any{"system:authenticated"}}})
	if res.Allowed {
		t.Errorf("no rule, no privileged group: %+v", res)
	}
}

// A request on a subresource finds its resource from its object's kind where one resource has
// that subresource with objects of that kind, and says which resources to choose among otherwise.
func TestSubresourceResource(t *testing.T) {
	pod := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p", "namespace": "default"}}
	r, err := ParseRequest(map[string]any{"operation": "UPDATE", "object": pod, "old_object": pod, "sub_resource": "status"})
	if err != nil || r.Resource.Resource != "pods" || r.Subresource != "status" || r.Namespace == nil {
		t.Fatalf("pods/status: %+v %v", r, err)
	}
	scale := map[string]any{"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": map[string]any{"name": "web", "namespace": "default"}, "spec": map[string]any{"replicas": 3}}
	_, err = ParseRequest(map[string]any{"operation": "UPDATE", "object": scale, "old_object": scale, "sub_resource": "scale"})
	if err == nil || !strings.Contains(err.Error(), "apps/deployments") && !strings.Contains(err.Error(), "deployments.apps") {
		t.Errorf("a Scale names no resource: %v", err)
	}
	r, err = ParseRequest(map[string]any{"operation": "UPDATE", "object": scale, "old_object": scale, "sub_resource": "scale",
		"resource": map[string]any{"group": "apps", "version": "v1", "resource": "deployments"}})
	if err != nil || r.Kind.Kind != "Scale" || r.Namespace == nil || r.Namespace.Name != "default" {
		t.Fatalf("deployments/scale: %+v %v", r, err)
	}
	// The resource named alone: its group and version are the built-in resource's.
	r, err = ParseRequest(map[string]any{"operation": "UPDATE", "object": scale, "old_object": scale, "sub_resource": "scale",
		"resource": map[string]any{"resource": "statefulsets"}})
	if err != nil || r.Resource.Group != "apps" || r.Resource.Version != "v1" || r.Resource.Resource != "statefulsets" {
		t.Fatalf("statefulsets/scale: %+v %v", r, err)
	}
	if _, err := ParseRequest(map[string]any{"object": scale, "sub_resource": "scale", "resource": map[string]any{"resource": "widgets"}}); err == nil {
		t.Errorf("an unknown resource named alone: no error")
	}
}
