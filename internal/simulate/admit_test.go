package simulate

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// objectsOf decodes a YAML stream of admission objects.
func objectsOf(t *testing.T, docs string) *AdmitObjects {
	t.Helper()
	objs := &AdmitObjects{}
	for _, doc := range strings.Split(docs, "\n---\n") {
		v := tree(t, doc)
		kind, _ := v.(map[string]any)["kind"].(string)
		var err error
		switch kind {
		case "MutatingAdmissionPolicy":
			p := &MutatingPolicy{}
			err = DecodeAPIObject(v, kind, p)
			objs.MutatingPolicies = append(objs.MutatingPolicies, p)
		case "MutatingAdmissionPolicyBinding":
			b := &MutatingBinding{}
			err = DecodeAPIObject(v, kind, b)
			objs.MutatingBindings = append(objs.MutatingBindings, b)
		case "ValidatingAdmissionPolicy":
			p := &ValidatingPolicy{}
			err = DecodeAPIObject(v, kind, p)
			objs.ValidatingPolicies = append(objs.ValidatingPolicies, p)
		case "ValidatingAdmissionPolicyBinding":
			b := &ValidatingBinding{}
			err = DecodeAPIObject(v, kind, b)
			objs.ValidatingBindings = append(objs.ValidatingBindings, b)
		case "MutatingWebhookConfiguration":
			c := &admissionregistrationv1.MutatingWebhookConfiguration{}
			err = DecodeAPIObject(v, kind, c)
			objs.MutatingWebhooks = append(objs.MutatingWebhooks, c)
		case "ValidatingWebhookConfiguration":
			c := &admissionregistrationv1.ValidatingWebhookConfiguration{}
			err = DecodeAPIObject(v, kind, c)
			objs.ValidatingWebhooks = append(objs.ValidatingWebhooks, c)
		default:
			t.Fatalf("kind %q", kind)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return objs
}

func admit(t *testing.T, objs *AdmitObjects, req map[string]any, answers WebhookAnswers) *AdmitResult {
	t.Helper()
	r, err := ParseRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Admit(context.Background(), objs, r, answers)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

const labelPolicies = `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: add-team}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"team": "web"}}}'}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: add-team}
spec: {policyName: add-team}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: require-team}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
  validations:
  - {expression: "has(object.metadata.labels) && 'team' in object.metadata.labels", message: "a team label is required"}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: require-team}
spec: {policyName: require-team, validationActions: [Deny]}
`

// A mutating policy adds the label a validating policy requires: together they admit, and the
// object has the label; the validating policy alone denies.
func TestAdmitLabelThenRequire(t *testing.T) {
	objs := objectsOf(t, labelPolicies)
	res := admit(t, objs, map[string]any{"object": deployment("apps", 1)}, nil)
	if res.Allowed == nil || !*res.Allowed || res.OrderDependent || res.Object.GetLabels()["team"] != "web" {
		t.Fatalf("got %+v", res)
	}
	kinds := []string{}
	for _, s := range res.Steps {
		kinds = append(kinds, s.Kind+":"+s.Outcome)
	}
	if got := strings.Join(kinds, " "); got != "MutatingAdmissionPolicy:mutated ValidatingAdmissionPolicy:admitted" {
		t.Errorf("steps: %s", got)
	}
	if p, _ := json.Marshal(res.Steps[0].Patch); string(p) != `{"metadata":{"labels":{"team":"web"}}}` {
		t.Errorf("patch: %s", p)
	}
	alone := &AdmitObjects{ValidatingPolicies: objs.ValidatingPolicies, ValidatingBindings: objs.ValidatingBindings}
	res = admit(t, alone, map[string]any{"object": deployment("apps", 1)}, nil)
	if res.Allowed == nil || *res.Allowed || !strings.Contains(*res.Message, "a team label is required") {
		t.Fatalf("alone: %+v", res)
	}
}

// Two policies that set the same label: the result depends on their order, and both orders are
// reported; the top-level object is unknown, the verdict (admitted) is known.
func TestAdmitOrderDependent(t *testing.T) {
	objs := objectsOf(t, `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: a}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
  mutations:
  - patchType: JSONPatch
    jsonPatch: {expression: '[JSONPatch{op: "add", path: "/metadata/labels", value: {"tier": "a"}}]'}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: a}
spec: {policyName: a}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: b}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
  mutations:
  - patchType: JSONPatch
    jsonPatch: {expression: '[JSONPatch{op: "add", path: "/metadata/labels", value: {"tier": "b"}}]'}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: b}
spec: {policyName: b}
`)
	res := admit(t, objs, map[string]any{"object": deployment("apps", 1)}, nil)
	if !res.OrderDependent || len(res.Outcomes) != 2 || res.Orders != 2 || res.ObjectKnown || res.Allowed == nil || !*res.Allowed {
		t.Fatalf("got %+v", res)
	}
	got := map[string]string{}
	for _, o := range res.Outcomes {
		got[strings.Join(o.Orders[0].MutatingPolicies, ",")] = o.Object.GetLabels()["tier"]
	}
	if got["a,b"] != "b" || got["b,a"] != "a" {
		t.Errorf("orders: %v", got)
	}
}

const webhookConfigurations = `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: inject}
webhooks:
- name: inject.example.com
  clientConfig: {service: {name: injector, namespace: system}}
  rules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
  sideEffects: None
  admissionReviewVersions: [v1]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: check}
webhooks:
- name: check.example.com
  clientConfig: {url: "https://check.example.com/validate"}
  rules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
  sideEffects: None
  admissionReviewVersions: [v1]
- name: pods.example.com
  clientConfig: {url: "https://check.example.com/pods"}
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  sideEffects: None
  admissionReviewVersions: [v1]
`

// Webhooks answer as the caller says: a patch is applied by the server's plugin, a denial is
// the server's message; a webhook with no answer makes what depends on it unknown.
func TestAdmitWebhooks(t *testing.T) {
	objs := objectsOf(t, webhookConfigurations)
	req := map[string]any{"object": deployment("apps", 1)}
	patch := []byte(`[{"op": "add", "path": "/metadata/labels", "value": {"injected": "yes"}}]`)
	res := admit(t, objs, req, WebhookAnswers{
		"inject.example.com": {Allowed: true, Patch: patch, Warnings: []string{"injected"}},
		"check.example.com":  {Allowed: true},
	})
	if res.Allowed == nil || !*res.Allowed || !res.ObjectKnown || res.Object.GetLabels()["injected"] != "yes" || len(res.Unanswered) != 0 ||
		len(res.Warnings) != 1 || res.Warnings[0] != "injected" {
		t.Fatalf("answered: %+v", res)
	}
	var steps []string
	for _, s := range res.Steps {
		steps = append(steps, s.Name+":"+s.Outcome+":"+s.Reason)
	}
	if got := strings.Join(steps, " "); got != "inject.example.com:mutated: check.example.com:admitted: pods.example.com:not_matched:rules" {
		t.Errorf("steps: %s", got)
	}

	res = admit(t, objs, req, WebhookAnswers{
		"inject.example.com":      {Allowed: true},
		"check/check.example.com": {Allowed: false, Message: "no", Code: 403},
	})
	if res.Allowed == nil || *res.Allowed || *res.Message != `admission webhook "check.example.com" denied the request: no` || res.Code != 403 {
		t.Fatalf("denied: %+v", res)
	}

	res = admit(t, objs, req, WebhookAnswers{"check.example.com": {Allowed: false, Message: "no"}})
	// The mutating webhook may change the object so that the validating one is not called.
	if res.Allowed != nil || res.Message != nil || res.ObjectKnown || len(res.Unanswered) != 1 || res.Unanswered[0] != "inject/inject.example.com" {
		t.Fatalf("unanswered mutating webhook: %+v", res)
	}
	res = admit(t, objs, req, WebhookAnswers{"inject.example.com": {Allowed: true}})
	if res.Allowed != nil || !res.ObjectKnown || res.Object == nil {
		t.Fatalf("unanswered validating webhook: %+v", res)
	}
	r, err := ParseRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Admit(context.Background(), objs, r, WebhookAnswers{"nobody.example.com": {}}); err == nil || !strings.Contains(err.Error(), "webhook_answers.nobody.example.com") {
		t.Errorf("an answer for no webhook: %v", err)
	}
}

// A mutating policy with reinvocationPolicy IfNeeded runs again after a webhook changed the
// object: the label it sets from the webhook's annotation is there in the end.
func TestAdmitReinvocation(t *testing.T) {
	objs := objectsOf(t, `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: copy}
spec:
  reinvocationPolicy: IfNeeded
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        has(object.metadata.annotations) && 'owner' in object.metadata.annotations
        ? Object{metadata: Object.metadata{labels: {"owner": object.metadata.annotations['owner']}}}
        : Object{}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: copy}
spec: {policyName: copy}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: owner}
webhooks:
- name: owner.example.com
  clientConfig: {url: "https://owner.example.com/"}
  rules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
  sideEffects: None
  admissionReviewVersions: [v1]
`)
	patch := []byte(`[{"op": "add", "path": "/metadata/annotations", "value": {"owner": "ops"}}]`)
	res := admit(t, objs, map[string]any{"object": deployment("apps", 1)}, WebhookAnswers{"owner.example.com": {Allowed: true, Patch: patch}})
	if res.Allowed == nil || !*res.Allowed || !res.ObjectKnown || res.Object.GetLabels()["owner"] != "ops" {
		t.Fatalf("got %+v", res)
	}
	var steps []string
	for _, s := range res.Steps {
		steps = append(steps, s.Name+":"+s.Outcome+":"+strconv.Itoa(s.Round))
	}
	if got := strings.Join(steps, " "); got != "copy:unchanged:1 owner.example.com:mutated:1 copy:mutated:2" {
		t.Errorf("steps: %s", got)
	}
}

// Two validating policies that deny: the server runs them in no fixed order and the client gets
// the first denial, so each is an outcome, with the denial that came first; the verdict is known.
// The notes say the defaults of the built-in kind are not applied.
func TestAdmitTwoDenials(t *testing.T) {
	deny := func(name string) string {
		return `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: ` + name + `}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
  validations:
  - {expression: "false", message: "` + name + ` says no"}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: ` + name + `}
spec: {policyName: ` + name + `, validationActions: [Deny]}
`
	}
	objs := objectsOf(t, strings.TrimSpace(deny("first"))+"\n---\n"+strings.TrimSpace(deny("second")))
	res := admit(t, objs, map[string]any{"object": deployment("apps", 1)}, nil)
	if res.Allowed == nil || *res.Allowed || res.Message != nil || !res.OrderDependent || len(res.Outcomes) != 2 {
		t.Fatalf("got %+v", res)
	}
	for _, o := range res.Outcomes {
		first := strings.TrimSuffix(o.Orders[0].FirstDenial, "/"+strings.Split(o.Orders[0].FirstDenial, "/")[0])
		if o.Message == nil || !strings.HasSuffix(*o.Message, first+" says no") {
			t.Errorf("outcome %q: message %v", o.Orders[0].FirstDenial, o.Message)
		}
	}
	if len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "SetObjectDefaults_Deployment") {
		t.Errorf("notes: %q", res.Notes)
	}
}
