package matching

import (
	"context"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"sigs.k8s.io/yaml"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

var (
	podsGVR        = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	deploymentsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
)

// request is a CREATE of an object of kind in namespace ns, with labels, by username.
func request(gvr schema.GroupVersionResource, kind, ns string, labels map[string]string, username string) admission.Attributes {
	gvk := gvr.GroupVersion().WithKind(kind)
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(gvk)
	obj.SetName("object-1")
	obj.SetNamespace(ns)
	obj.SetLabels(labels)
	return admission.NewAttributesRecord(obj, nil, gvk, ns, "object-1", gvr, "", admission.Create, nil, false,
		&user.DefaultInfo{Name: username, Groups: []string{user.AllAuthenticated}})
}

// fromYAML is the object of type T that doc describes.
func fromYAML[T any](t *testing.T, doc string) *T {
	t.Helper()
	out := new(T)
	if err := yaml.Unmarshal([]byte(doc), out); err != nil {
		t.Fatal(err)
	}
	return out
}

func configuration(t *testing.T, doc string) *admissionregistrationv1.MutatingWebhookConfiguration {
	return fromYAML[admissionregistrationv1.MutatingWebhookConfiguration](t, doc)
}

func newMatcher(t *testing.T, c Config) *Matcher {
	t.Helper()
	m, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// webhooks: one on pods outside kube-system, one on labelled objects of every kind, one on
// pods with a match condition on the user.
const webhooks = `
metadata: {name: hooks}
webhooks:
- name: pods.example.com
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  namespaceSelector: {matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system]}]}
- name: labelled.example.com
  rules: [{apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"]}]
  objectSelector: {matchLabels: {inject: "true"}}
- name: people.example.com
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  matchConditions: [{name: not-system, expression: "!request.userInfo.username.startsWith('system:')"}]
- name: team.example.com
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  namespaceSelector: {matchLabels: {team: web}}
`

type answer struct {
	outcome Outcome
	reason  Reason
}

func answers(t *testing.T, m *Matcher, hooks []Webhook, attr admission.Attributes) []answer {
	t.Helper()
	var out []answer
	for _, h := range hooks {
		a := m.Webhook(context.Background(), h, attr)
		out = append(out, answer{a.Outcome, a.Reason})
	}
	return out
}

func TestWebhookWithSyntheticNamespaces(t *testing.T) {
	m := newMatcher(t, Config{Namespaces: SyntheticNamespaces()})
	hooks := MutatingWebhooks(configuration(t, webhooks))
	for _, c := range []struct {
		name string
		attr admission.Attributes
		want []answer
	}{
		{"a pod in apps", request(podsGVR, "Pod", "apps", nil, "alice"),
			[]answer{{Called, ""}, {NotCalled, SkippedByObjectSelector}, {Called, ""}, {NotCalled, SkippedByNamespaceSelector}}},
		{"a labelled pod in kube-system by a system user", request(podsGVR, "Pod", "kube-system", map[string]string{"inject": "true"}, "system:node:n"),
			[]answer{{NotCalled, SkippedByNamespaceSelector}, {Called, ""}, {NotCalled, SkippedByMatchCondition}, {NotCalled, SkippedByNamespaceSelector}}},
		{"a deployment", request(deploymentsGVR, "Deployment", "apps", nil, "alice"),
			[]answer{{NotCalled, SkippedByRules}, {NotCalled, SkippedByObjectSelector}, {NotCalled, SkippedByRules}, {NotCalled, SkippedByNamespaceSelector}}},
		// No webhook sees the review resources, nor the admission configuration kinds.
		{"a token review", request(schema.GroupVersionResource{Group: "authentication.k8s.io", Version: "v1", Resource: "tokenreviews"}, "TokenReview", "",
			map[string]string{"inject": "true"}, "alice"),
			[]answer{{NotCalled, SkippedExcludedResource}, {NotCalled, SkippedExcludedResource}, {NotCalled, SkippedExcludedResource}, {NotCalled, SkippedExcludedResource}}},
		{"a webhook configuration", request(schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingwebhookconfigurations"},
			"MutatingWebhookConfiguration", "", map[string]string{"inject": "true"}, "alice"),
			[]answer{{NotCalled, SkippedAdmissionConfiguration}, {NotCalled, SkippedAdmissionConfiguration}, {NotCalled, SkippedAdmissionConfiguration},
				{NotCalled, SkippedAdmissionConfiguration}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := answers(t, m, hooks, c.attr)
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("%s: got %v, want %v", hooks[i].Name(), got[i], c.want[i])
				}
			}
		})
	}
	// Before 1.37 the server calls webhooks for the review resources: the webhook on every
	// labelled object sees a labelled token review; from 1.37, and with no version given, none.
	review := request(schema.GroupVersionResource{Group: "authentication.k8s.io", Version: "v1", Resource: "tokenreviews"}, "TokenReview", "",
		map[string]string{"inject": "true"}, "alice")
	for v, want := range map[int]Outcome{31: Called, 36: Called, 37: NotCalled, 0: NotCalled} {
		at := newMatcher(t, Config{Namespaces: SyntheticNamespaces(), Version: validation.Minor(v)})
		if a := at.Webhook(context.Background(), hooks[1], review); a.Outcome != want {
			t.Errorf("a token review at 1.%d: %+v, want %v", v, a, want)
		}
	}
	// The detail of a skip names what left the request out.
	a := m.Webhook(context.Background(), hooks[2], request(podsGVR, "Pod", "apps", nil, "system:admin"))
	if a.Detail != "not-system" {
		t.Errorf("detail %q, want the condition's name", a.Detail)
	}
	a = m.Webhook(context.Background(), hooks[0], request(podsGVR, "Pod", "kube-system", nil, "alice"))
	if a.Detail != "kubernetes.io/metadata.name notin (kube-system)" {
		t.Errorf("detail %q, want the selector", a.Detail)
	}
}

// A match condition that cannot be evaluated fails the request under failurePolicy Fail (the
// default), with the server's Forbidden error, and leaves the webhook out under Ignore.
func TestWebhookConditionThatFails(t *testing.T) {
	cfg := configuration(t, `
metadata: {name: hooks}
webhooks:
- name: fail.example.com
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  matchConditions: [{name: asks, expression: "authorizer.group('').resource('pods').check('list').allowed()"}]
- name: ignore.example.com
  failurePolicy: Ignore
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  matchConditions: [{name: asks, expression: "authorizer.group('').resource('pods').check('list').allowed()"}]
`)
	m := newMatcher(t, Config{Namespaces: SyntheticNamespaces()}) // no authorizer
	hooks := MutatingWebhooks(cfg)
	attr := request(podsGVR, "Pod", "apps", nil, "alice")
	a := m.Webhook(context.Background(), hooks[0], attr)
	if a.Outcome != Failed || a.Err == nil || !apierrors.IsForbidden(a.Err) || !strings.Contains(a.Err.Error(), `pods "object-1" is forbidden`) {
		t.Errorf("Fail: got %+v", a)
	}
	if a := m.Webhook(context.Background(), hooks[1], attr); a.Outcome != NotCalled || a.Reason != SkippedByMatchCondition {
		t.Errorf("Ignore: got %+v", a)
	}
}

// The namespaces a request gives decide namespace selectors by their labels; a namespace not
// given is not found, which fails the request where a selector must read it.
func TestWebhookWithGivenNamespaces(t *testing.T) {
	web := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "apps", Labels: map[string]string{corev1.LabelMetadataName: "apps", "team": "web"}}}
	m := newMatcher(t, Config{Namespaces: GivenNamespaces(web)})
	hooks := MutatingWebhooks(configuration(t, webhooks))
	if a := m.Webhook(context.Background(), hooks[3], request(podsGVR, "Pod", "apps", nil, "alice")); a.Outcome != Called {
		t.Errorf("team web: got %+v", a)
	}
	a := m.Webhook(context.Background(), hooks[3], request(podsGVR, "Pod", "elsewhere", nil, "alice"))
	if a.Outcome != Failed || !apierrors.IsNotFound(a.Err) {
		t.Errorf("a namespace not given: got %+v", a)
	}
	// A selector that matches everything does not read the namespace.
	if a := m.Webhook(context.Background(), hooks[2], request(podsGVR, "Pod", "elsewhere", nil, "alice")); a.Outcome != Called {
		t.Errorf("no selector: got %+v", a)
	}
}

// The cluster's namespaces, read once within a limit: one that was read decides; one the list
// did not reach, or a list that was forbidden, is no answer (Failed), never a guess.
func TestLiveNamespaces(t *testing.T) {
	ns := func(name, team string) runtime.Object {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelMetadataName: name, "team": team}}}
	}
	hooks := MutatingWebhooks(configuration(t, webhooks))
	ctx := context.Background()

	client := fake.NewClientset(ns("a", "web"), ns("b", "db"), ns("c", "web"))
	all := LiveNamespaces(ctx, client, 0)
	if all.Incomplete() != nil || all.Read() != 3 {
		t.Fatalf("unlimited: read %d, incomplete %v", all.Read(), all.Incomplete())
	}
	m := newMatcher(t, Config{Namespaces: all})
	for name, want := range map[string]Outcome{"a": Called, "b": NotCalled, "c": Called, "gone": Failed} {
		if a := m.Webhook(ctx, hooks[3], request(podsGVR, "Pod", name, nil, "alice")); a.Outcome != want {
			t.Errorf("namespace %s: got %+v, want %v", name, a, want)
		}
	}
	if a := m.Webhook(ctx, hooks[3], request(podsGVR, "Pod", "gone", nil, "alice")); !apierrors.IsNotFound(a.Err) {
		t.Errorf("a namespace the complete list does not have is not found: %v", a.Err)
	}

	two := LiveNamespaces(ctx, client, 2)
	if two.Incomplete() == nil || two.Read() != 2 {
		t.Fatalf("limit 2: read %d, incomplete %v", two.Read(), two.Incomplete())
	}
	m = newMatcher(t, Config{Namespaces: two})
	a := m.Webhook(ctx, hooks[3], request(podsGVR, "Pod", "c", nil, "alice"))
	if a.Outcome != Failed || apierrors.IsNotFound(a.Err) || !strings.Contains(a.Err.Error(), "more than 2 namespaces") {
		t.Errorf("a namespace past the limit: got %+v", a)
	}

	forbidden := fake.NewClientset(ns("a", "web"))
	forbidden.PrependReactor("list", "namespaces", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(corev1.Resource("namespaces"), "", nil)
	})
	none := LiveNamespaces(ctx, forbidden, 100)
	if none.Incomplete() == nil || none.Read() != 0 {
		t.Fatalf("forbidden: read %d, incomplete %v", none.Read(), none.Incomplete())
	}
	m = newMatcher(t, Config{Namespaces: none})
	if a := m.Webhook(ctx, hooks[3], request(podsGVR, "Pod", "a", nil, "alice")); a.Outcome != Failed || !strings.Contains(a.Err.Error(), "forbidden") {
		t.Errorf("forbidden list: got %+v", a)
	}
}

// With no equivalents a rule matches only the resource as requested; with equivalents (the
// seam: a registry of resources that share their objects), a rule with matchPolicy Equivalent
// matches a request on an equivalent resource, and the webhook is called with the resource and
// kind its rule names, while Exact still does not match.
func TestEquivalents(t *testing.T) {
	cfg := configuration(t, `
metadata: {name: hooks}
webhooks:
- name: equivalent.example.com
  matchPolicy: Equivalent
  rules: [{apiGroups: [extensions], apiVersions: [v1beta1], operations: [CREATE], resources: [deployments]}]
- name: exact.example.com
  matchPolicy: Exact
  rules: [{apiGroups: [extensions], apiVersions: [v1beta1], operations: [CREATE], resources: [deployments]}]
`)
	hooks := MutatingWebhooks(cfg)
	attr := request(deploymentsGVR, "Deployment", "apps", nil, "alice")
	ctx := context.Background()

	none := newMatcher(t, Config{Namespaces: SyntheticNamespaces()})
	for _, h := range hooks {
		if a := none.Webhook(ctx, h, attr); a.Outcome != NotCalled || a.Reason != SkippedByRules {
			t.Errorf("no equivalents, %s: got %+v", h.Name(), a)
		}
	}

	legacy := schema.GroupVersionResource{Group: "extensions", Version: "v1beta1", Resource: "deployments"}
	registry := runtime.NewEquivalentResourceRegistryWithIdentity(func(gr schema.GroupResource) string {
		if gr.Resource == "deployments" {
			return "deployments" // both groups' deployments share their storage
		}
		return gr.String()
	})
	registry.RegisterKindFor(deploymentsGVR, "", deploymentsGVR.GroupVersion().WithKind("Deployment"))
	registry.RegisterKindFor(legacy, "", legacy.GroupVersion().WithKind("Deployment"))
	m := newMatcher(t, Config{Namespaces: SyntheticNamespaces(), Equivalents: registry})
	if a := m.Webhook(ctx, hooks[0], attr); a.Outcome != Called || a.Resource != legacy || a.Kind != legacy.GroupVersion().WithKind("Deployment") {
		t.Errorf("equivalent: got %+v", a)
	}
	if a := m.Webhook(ctx, hooks[1], attr); a.Outcome != NotCalled || a.Reason != SkippedByRules {
		t.Errorf("exact: got %+v", a)
	}
	if m.ObjectInterfaces().GetEquivalentResourceMapper() != Equivalents(registry) {
		t.Error("the dispatchers would not see the matcher's equivalents")
	}
}

func matchResources(t *testing.T, doc string) *admissionregistrationv1.MatchResources {
	return fromYAML[admissionregistrationv1.MatchResources](t, doc)
}

func TestPolicy(t *testing.T) {
	constraints := matchResources(t, `
resourceRules: [{apiGroups: ["", apps], apiVersions: [v1], operations: [CREATE], resources: [pods, deployments]}]
excludeResourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: ["*"], resources: [deployments], resourceNames: [object-1]}]
`)
	outsideSystem := matchResources(t, `namespaceSelector: {matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system]}]}`)
	fail := admissionregistrationv1.Fail
	conditions := CompilePolicyConditions([]admissionregistrationv1.MatchCondition{{Name: "people", Expression: "!request.userInfo.username.startsWith('system:')"}},
		false, &fail, "validating", "p")
	m := newMatcher(t, Config{Namespaces: SyntheticNamespaces()})
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		p      PolicyBinding
		attr   admission.Attributes
		want   Outcome
		failed string
	}{
		{"a pod", PolicyBinding{Constraints: constraints}, request(podsGVR, "Pod", "apps", nil, "alice"), Called, ""},
		{"an excluded deployment", PolicyBinding{Constraints: constraints}, request(deploymentsGVR, "Deployment", "apps", nil, "alice"), NotCalled, ""},
		{"the binding narrows", PolicyBinding{Constraints: constraints, Resources: outsideSystem}, request(podsGVR, "Pod", "kube-system", nil, "alice"), NotCalled, ""},
		{"the binding lets through", PolicyBinding{Constraints: constraints, Resources: outsideSystem}, request(podsGVR, "Pod", "apps", nil, "alice"), Called, ""},
		{"a condition leaves out", PolicyBinding{Constraints: constraints, Conditions: conditions}, request(podsGVR, "Pod", "apps", nil, "system:x"), NotCalled, "people"},
		{"a condition lets through", PolicyBinding{Constraints: constraints, Conditions: conditions}, request(podsGVR, "Pod", "apps", nil, "alice"), Called, ""},
		{"no constraints", PolicyBinding{}, request(podsGVR, "Pod", "apps", nil, "alice"), Failed, ""},
		{"a policy", PolicyBinding{Constraints: matchResources(t, `{}`)}, request(schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1",
			Resource: "validatingadmissionpolicies"}, "ValidatingAdmissionPolicy", "", nil, "alice"), NotCalled, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := m.Policy(ctx, c.p, c.attr)
			if a.Outcome != c.want || a.FailedCondition != c.failed {
				t.Errorf("got %+v, want %v (failed condition %q)", a, c.want, c.failed)
			}
			if a.Outcome == Called && a.Kind != c.attr.GetKind() {
				t.Errorf("seen as %v", a.Kind)
			}
		})
	}
}
