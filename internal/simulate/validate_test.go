package simulate

import (
	"context"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

func tree(t *testing.T, y string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(y), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

const replicasPolicy = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replicas-limit}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
    - apiGroups: [apps]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [deployments]
  variables:
  - name: max
    expression: int(params.data.max)
  validations:
  - expression: object.spec.replicas <= variables.max
    messageExpression: "'replicas must be at most ' + string(variables.max)"
    reason: Forbidden
  auditAnnotations:
  - key: replicas
    valueExpression: string(object.spec.replicas)
`

const replicasBinding = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replicas-limit}
spec:
  policyName: replicas-limit
  validationActions: [Deny]
  paramRef: {name: limits, namespace: default, parameterNotFoundAction: Deny}
  matchResources:
    namespaceSelector:
      matchExpressions:
      - {key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system]}
`

func deployment(ns string, replicas int) map[string]any {
	return map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": ns},
		"spec":     map[string]any{"replicas": replicas},
	}
}

func validateCase(t *testing.T, policy, binding string, req map[string]any) *ValidateResult {
	t.Helper()
	var p ValidatingPolicy
	var b ValidatingBinding
	if err := DecodeAPIObject(tree(t, policy), "ValidatingAdmissionPolicy", &p); err != nil {
		t.Fatal(err)
	}
	if err := DecodeAPIObject(tree(t, binding), "ValidatingAdmissionPolicyBinding", &b); err != nil {
		t.Fatal(err)
	}
	r, err := ParseRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Validate(context.Background(), &p, &b, r)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestValidateReplicas(t *testing.T) {
	limits := []any{map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "limits", "namespace": "default"}, "data": map[string]any{"max": "5"}}}
	res := validateCase(t, replicasPolicy, replicasBinding, map[string]any{"object": deployment("default", 6), "params": limits})
	if !res.Matched || res.Allowed {
		t.Fatalf("6 replicas: %+v", res)
	}
	want := `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'replicas-limit' with binding 'replicas-limit' denied request: replicas must be at most 5`
	if res.Message != want || res.Reason != "Forbidden" || res.Code != 403 {
		t.Errorf("message %q reason %q code %d, want %q", res.Message, res.Reason, res.Code, want)
	}
	if res.AuditAnnotations["replicas-limit/replicas"] != "6" {
		t.Errorf("audit annotations %v", res.AuditAnnotations)
	}
	res = validateCase(t, replicasPolicy, replicasBinding, map[string]any{"object": deployment("default", 3), "params": limits})
	if !res.Matched || !res.Allowed {
		t.Fatalf("3 replicas: %+v", res)
	}
	res = validateCase(t, replicasPolicy, replicasBinding, map[string]any{"object": deployment("kube-system", 6), "params": limits})
	if res.Matched || !res.Allowed {
		t.Fatalf("kube-system: %+v", res)
	}
	// No param: parameterNotFoundAction Deny with failurePolicy Fail.
	res = validateCase(t, replicasPolicy, replicasBinding, map[string]any{"object": deployment("default", 3)})
	if res.Allowed || !strings.Contains(res.Message, "no params found") {
		t.Fatalf("no params: %+v", res)
	}
}

func TestValidateWarnAuthorizer(t *testing.T) {
	policy := `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"]}
  validations:
  - expression: authorizer.group('apps').resource('deployments').namespace('default').check('delete').allowed()
    message: may not
`
	binding := `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b}
spec: {policyName: p, validationActions: [Warn, Audit]}
`
	res := validateCase(t, policy, binding, map[string]any{"object": deployment("default", 1)})
	if !res.Allowed || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "may not") {
		t.Fatalf("%+v", res)
	}
	if _, ok := res.AuditAnnotations["validation.policy.admission.k8s.io/validation_failure"]; !ok {
		t.Errorf("audit %v", res.AuditAnnotations)
	}
	res = validateCase(t, policy, binding, map[string]any{"object": deployment("default", 1),
		"authorizer": []any{map[string]any{"verb": "delete", "resource": "deployments", "api_group": "apps"}}})
	if !res.Allowed || len(res.Warnings) != 0 {
		t.Fatalf("allowed by the authorizer: %+v", res)
	}
}
