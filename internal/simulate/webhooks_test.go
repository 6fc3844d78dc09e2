package simulate

import (
	"context"
	"reflect"
	"testing"
)

const webhookConfig = `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: injector}
webhooks:
- name: pods.injector.example.com
  clientConfig: {url: "https://example.com/pods"}
  sideEffects: None
  admissionReviewVersions: [v1]
  rules:
  - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  namespaceSelector:
    matchExpressions:
    - {key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system]}
- name: labelled.injector.example.com
  clientConfig: {url: "https://example.com/labelled"}
  sideEffects: None
  admissionReviewVersions: [v1]
  rules:
  - {apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"]}
  objectSelector: {matchLabels: {inject: "true"}}
- name: deployments.injector.example.com
  clientConfig: {url: "https://example.com/deployments"}
  sideEffects: None
  admissionReviewVersions: [v1]
  rules:
  - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
- name: conditioned.injector.example.com
  clientConfig: {url: "https://example.com/c"}
  sideEffects: None
  admissionReviewVersions: [v1]
  rules:
  - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  matchConditions:
  - {name: not-system, expression: "!request.userInfo.username.startsWith('system:')"}
`

func TestMatchWebhooks(t *testing.T) {
	m, v, err := DecodeAPIWebhookConfiguration(tree(t, webhookConfig))
	if err != nil || m == nil || v != nil {
		t.Fatal(m, v, err)
	}
	pod := func(ns string, labels map[string]any) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p", "namespace": ns, "labels": labels}}
	}
	for _, c := range []struct {
		req     map[string]any
		called  []string
		skipped []string
	}{
		{map[string]any{"object": pod("default", nil)}, []string{"pods.injector.example.com", "conditioned.injector.example.com"},
			[]string{"object_selector", "rules"}},
		{map[string]any{"object": pod("kube-system", map[string]any{"inject": "true"}), "user_info": map[string]any{"username": "system:node:a"}},
			[]string{"labelled.injector.example.com"}, []string{"namespace_selector", "rules", "match_condition"}},
		// The labelled webhook's rules and selector take a TokenReview, but no webhook sees the
		// review resources (k8s.io/kubernetes pkg/kubeapiserver/admission/exclusion).
		{map[string]any{"object": map[string]any{"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
			"metadata": map[string]any{"name": "t", "labels": map[string]any{"inject": "true"}}}},
			nil, []string{"excluded_resource", "excluded_resource", "excluded_resource", "excluded_resource"}},
	} {
		r, err := ParseRequest(c.req)
		if err != nil {
			t.Fatal(err)
		}
		res, err := MatchMutatingWebhooks(context.Background(), m, r)
		if err != nil {
			t.Fatal(err)
		}
		var reasons []string
		for _, s := range res.Skipped {
			reasons = append(reasons, string(s.Reason))
		}
		if !reflect.DeepEqual(res.Called, c.called) || !reflect.DeepEqual(reasons, c.skipped) {
			t.Errorf("%v: called %v skipped %+v", c.req, res.Called, res.Skipped)
		}
	}
}
