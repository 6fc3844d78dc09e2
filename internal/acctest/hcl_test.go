package acctest

import (
	"strings"
	"testing"
)

// An object of a public project's YAML reads as the resource a user writes: snake-case
// blocks, maps for labels and match_labels, webhooks and their rules in the singular, and
// strings whose template sequences Terraform would otherwise interpolate kept as written.
func TestResourceHCL(t *testing.T) {
	typ, name, hcl, err := ResourceHCL("x", []byte(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: v.example.com
  labels: {app: v}
  resourceVersion: "1"
webhooks:
- name: v.example.com
  admissionReviewVersions: [v1]
  sideEffects: None
  timeoutSeconds: 5
  clientConfig:
    service: {namespace: ns, name: svc}
  namespaceSelector:
    matchLabels: {"kubernetes.io/metadata.name": ns}
  matchConditions:
  - name: c
    expression: "'${x}' != '%{y}' && \"a\" != 'b'"
  rules:
  - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
status: {}
`))
	if err != nil {
		t.Fatal(err)
	}
	if typ != "admission_validating_webhook_configuration" || name != "v.example.com" {
		t.Errorf("got %s %s", typ, name)
	}
	for _, want := range []string{
		`resource "admission_validating_webhook_configuration" "x" {`,
		`labels = { "app" = "v" }`,
		"  webhook {\n",
		"    rule {\n",
		`admission_review_versions = ["v1"]`,
		`timeout_seconds = 5`,
		"      service {\n",
		`match_labels = { "kubernetes.io/metadata.name" = "ns" }`,
		`expression = "'$${x}' != '%%{y}' && \"a\" != 'b'"`,
	} {
		if !strings.Contains(hcl, want) {
			t.Errorf("no %q in\n%s", want, hcl)
		}
	}
	if strings.Contains(hcl, "resource_version") || strings.Contains(hcl, "status") {
		t.Errorf("what the server sets is written:\n%s", hcl)
	}
}
