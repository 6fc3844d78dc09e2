package impact

import (
	"context"
	"fmt"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	fakediscovery "k8s.io/client-go/discovery/fake"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/live"
)

// A fake cluster of deployments and config maps in two namespaces, one labelled env=prod. The
// fakes stand for the API server's lists only; what the impact judges is the simulator's.

var (
	deployments = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	configMaps  = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
)

func deployment(ns, name string, replicas int64, labels map[string]any) *unstructured.Unstructured {
	md := map[string]any{"name": name, "namespace": ns}
	if labels != nil {
		md["labels"] = labels
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment", "metadata": md,
		"spec": map[string]any{"replicas": replicas, "selector": map[string]any{"matchLabels": map[string]any{"app": name}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": name}},
				"spec": map[string]any{"containers": []any{map[string]any{"name": "app", "image": "nginx"}}}}},
	}}
}

func configMap(ns, name string, data map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "namespace": ns}, "data": data}}
}

func fakeCluster(t *testing.T, objs ...runtime.Object) *Cluster {
	t.Helper()
	return fakeClusterWith(t, Bounds{MaxObjects: 3, PageSize: 2}, objs...)
}

func fakeClusterWith(t testing.TB, b Bounds, objs ...runtime.Object) *Cluster {
	t.Helper()
	c, _ := fakeClusterAndLists(t, b, objs...)
	return c
}

// fakeClusterAndLists is fakeClusterWith and its dynamic client, for reactors on its lists.
func fakeClusterAndLists(t testing.TB, b Bounds, objs ...runtime.Object) (*Cluster, *dynamicfake.FakeDynamicClient) {
	t.Helper()
	disc := &fakediscovery.FakeDiscovery{Fake: &kubefake.NewClientset().Fake}
	disc.Resources = []*metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{
			{Name: "configmaps", Kind: "ConfigMap", Namespaced: true, Verbs: []string{"get", "list", "update"}},
			{Name: "namespaces", Kind: "Namespace", Verbs: []string{"get", "list", "update"}},
		}},
		{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{
			{Name: "deployments", Kind: "Deployment", Namespaced: true, Verbs: []string{"get", "list", "update"}},
			{Name: "deployments/status", Kind: "Deployment", Namespaced: true, Verbs: []string{"get", "update"}},
		}},
	}
	kube := kubefake.NewClientset(
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "prod", Labels: map[string]string{"env": "prod", corev1.LabelMetadataName: "prod"}}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "dev", Labels: map[string]string{corev1.LabelMetadataName: "dev"}}},
	)
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{deployments: "DeploymentList", configMaps: "ConfigMapList"}, objs...)
	return NewCluster(live.Clients{Typed: kube, Dynamic: dyn, Discovery: disc}, b), dyn
}

func maxReplicasPolicy(max int, actions ...admissionregistrationv1.ValidationAction) ValidatingPair {
	return ValidatingPair{
		Policy: &admissionregistrationv1.ValidatingAdmissionPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: "max-replicas"},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
				MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
						Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
					}}}},
				Validations: []admissionregistrationv1.Validation{{
					Expression:        fmt.Sprintf("object.spec.replicas <= %d", max),
					MessageExpression: fmt.Sprintf("'at most %d replicas, not ' + string(object.spec.replicas)", max),
				}},
			},
		},
		Binding: &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "max-replicas-prod"},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
				PolicyName: "max-replicas", ValidationActions: actions,
				MatchResources: &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}},
			},
		},
	}
}

func refs(t Tally) string {
	var out []string
	for _, v := range t.First {
		out = append(out, v.Ref())
	}
	return strings.Join(out, ",")
}

func TestValidatingDeniesWhatBreaksTheRuleInSelectedNamespaces(t *testing.T) {
	c := fakeClusterWith(t, Bounds{MaxObjects: 10, PageSize: 2},
		deployment("prod", "small", 1, nil), deployment("prod", "big", 5, nil), deployment("prod", "huge", 9, nil),
		deployment("prod", "cut", 9, nil), // the fourth of prod: beyond MaxObjects 3
		deployment("dev", "big", 5, nil),
		configMap("prod", "c", nil))
	res := c.Validating(context.Background(), maxReplicasPolicy(3, admissionregistrationv1.Deny), nil, Options{})
	if res.Examined != 5 || res.Matched != 4 || res.Denied.Count != 3 {
		t.Fatalf("got %s", res)
	}
	if got := refs(res.Denied); got != "prod/big,prod/cut,prod/huge" {
		t.Errorf("denied %s", got)
	}
	if msg := res.Denied.First[0].Message; msg != "at most 3 replicas, not 5" {
		t.Errorf("message %q: want the policy's message without the server's prefix", msg)
	}
	ws := res.Warnings(Report{Subject: `Binding "max-replicas-prod"`})
	if len(ws) != 1 || ws[0].Summary != SummaryDeny {
		t.Fatalf("warnings %v", ws)
	}
	for _, want := range []string{"would deny 3 of the 4 existing Deployments it matches (in 1 namespace), on their next write", "  prod/big: at most 3 replicas, not 5", "Examined 5 objects of deployments.apps"} {
		if !strings.Contains(ws[0].Message, want) {
			t.Errorf("the warning lacks %q:\n%s", want, ws[0].Message)
		}
	}
}

func TestValidatingSaysWhatTheBoundsLeftOut(t *testing.T) {
	c := fakeCluster(t, deployment("prod", "a", 5, nil), deployment("prod", "b", 5, nil), deployment("prod", "c", 5, nil), deployment("prod", "d", 5, nil))
	res := c.Validating(context.Background(), maxReplicasPolicy(3, admissionregistrationv1.Deny), nil, Options{})
	if res.Examined != 3 || len(res.Lists) != 1 || res.Lists[0].Cut != CutByLimit {
		t.Fatalf("got %s, lists %+v", res, res.Lists)
	}
	ws := res.Warnings(Report{Subject: "B", Bounds: c.Bounds, MaxObjectsSetting: "impact_max_objects", Gate: true})
	var incomplete string
	for _, w := range ws {
		if w.Summary == SummaryIncomplete || (w.Summary == SummaryGateFailure && strings.Contains(w.Message, "examined")) {
			incomplete = w.Message
			if !w.Gated {
				t.Errorf("with the gate on, what a denying binding could not see fails the plan")
			}
		}
	}
	if !strings.Contains(incomplete, "examined 3 deployments.apps and left the rest (the most per resource: 3, the provider's impact_max_objects)") {
		t.Errorf("the cut is not said: %v", ws)
	}
}

func TestValidatingSaysWhichListIsForbidden(t *testing.T) {
	c, dyn := fakeClusterAndLists(t, Bounds{MaxObjects: 10}, deployment("prod", "five", 5, nil), configMap("prod", "c", nil))
	dyn.PrependReactor("list", "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", fmt.Errorf("RBAC: no"))
	})
	pair := maxReplicasPolicy(3, admissionregistrationv1.Deny)
	rule := &pair.Policy.Spec.MatchConstraints.ResourceRules[0].Rule
	rule.APIGroups, rule.Resources = []string{"", "apps"}, []string{"deployments", "configmaps"}
	pair.Policy.Spec.Validations[0].Expression = "!has(object.spec) || object.spec.replicas <= 3"
	res := c.Validating(context.Background(), pair, nil, Options{})
	if res.Denied.Count != 1 || len(res.Lists) != 2 {
		t.Fatalf("got %s, lists %+v", res, res.Lists)
	}
	var said bool
	for _, w := range res.Warnings(Report{Subject: "B"}) {
		if w.Gated {
			t.Errorf("a list the credentials may not read fails no plan without the gate: %v", w)
		}
		said = said || (w.Summary == SummaryIncomplete && strings.Contains(w.Message, "could not list configmaps: forbidden to the provider's credentials"))
	}
	if !said {
		t.Errorf("the forbidden list is not named: %v", res.Warnings(Report{Subject: "B"}))
	}
}

func TestValidatingFlips(t *testing.T) {
	c := fakeCluster(t, deployment("prod", "two", 2, nil), deployment("prod", "five", 5, nil), deployment("prod", "nine", 9, nil))
	live := maxReplicasPolicy(6, admissionregistrationv1.Deny)
	res := c.Validating(context.Background(), maxReplicasPolicy(3, admissionregistrationv1.Deny), &live, Options{})
	if refs(res.NewlyDenied) != "prod/five" || res.NoLongerDenied.Count != 0 || res.Denied.Count != 2 {
		t.Fatalf("got %s: newly denied %s", res, refs(res.NewlyDenied))
	}
	looser := maxReplicasPolicy(9, admissionregistrationv1.Deny)
	res = c.Validating(context.Background(), looser, &live, Options{})
	if refs(res.NoLongerDenied) != "prod/nine" || res.NewlyDenied.Count != 0 {
		t.Fatalf("got %s: no longer denied %s", res, refs(res.NoLongerDenied))
	}
}

func TestValidatingWarnAuditAndNone(t *testing.T) {
	c := fakeCluster(t, deployment("prod", "five", 5, nil), deployment("prod", "one", 1, nil))
	res := c.Validating(context.Background(), maxReplicasPolicy(3, admissionregistrationv1.Warn, admissionregistrationv1.Audit), nil, Options{})
	if refs(res.Warned) != "prod/five" || refs(res.Audited) != "prod/five" || res.Denied.Count != 0 {
		t.Fatalf("got %s", res)
	}
	if got := res.Warned.First[0].Warnings; len(got) != 1 || got[0] != "at most 3 replicas, not 5" {
		t.Errorf("warnings %q", got)
	}
	res = c.Validating(context.Background(), maxReplicasPolicy(10, admissionregistrationv1.Deny), nil, Options{})
	ws := res.Warnings(Report{Subject: `Binding "b"`})
	if len(ws) != 1 || ws[0].Summary != SummaryNone || !strings.HasPrefix(ws[0].Message, `Binding "b" would deny none of the 2 existing Deployments it matches on their next write.`) {
		t.Fatalf("warnings %v", ws)
	}
}

func TestValidatingCannotTellWhoWrites(t *testing.T) {
	c := fakeCluster(t, deployment("prod", "five", 5, nil))
	pair := maxReplicasPolicy(3, admissionregistrationv1.Deny)
	pair.Policy.Spec.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "not-admins", Expression: "!('admins' in request.userInfo.groups)"}}
	res := c.Validating(context.Background(), pair, nil, Options{})
	if res.CannotTell.Count != 1 || res.Denied.Count != 0 {
		t.Fatalf("got %s", res)
	}
	ws := res.Warnings(Report{Subject: "B"})
	var found bool
	for _, w := range ws {
		found = found || (w.Summary == SummaryIncomplete && strings.Contains(w.Message, "cannot tell for 1 object") && strings.Contains(w.Message, "request.userInfo"))
		if w.Summary == SummaryNone && !strings.Contains(w.Message, "it cannot tell for 1 object") {
			t.Errorf("the none line must not hide what it cannot tell: %s", w.Message)
		}
	}
	if !found {
		t.Errorf("warnings %v", ws)
	}
}

func TestValidatingParams(t *testing.T) {
	c := fakeCluster(t, deployment("prod", "five", 5, nil), deployment("prod", "one", 1, nil),
		configMap("prod", "limits", map[string]any{"max": "2"}))
	pair := maxReplicasPolicy(0, admissionregistrationv1.Deny)
	pair.Policy.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
	pair.Policy.Spec.Validations = []admissionregistrationv1.Validation{{Expression: "object.spec.replicas <= int(params.data.max)", Message: "too many"}}
	deny := admissionregistrationv1.DenyAction
	pair.Binding.Spec.ParamRef = &admissionregistrationv1.ParamRef{Name: "limits", ParameterNotFoundAction: &deny}
	res := c.Validating(context.Background(), pair, nil, Options{})
	if refs(res.Denied) != "prod/five" {
		t.Fatalf("got %s: %s", res, refs(res.Denied))
	}
	pair.Binding.Spec.ParamRef.Name = "absent"
	res = c.Validating(context.Background(), pair, nil, Options{})
	if res.Denied.Count != 2 || !strings.Contains(res.Denied.First[0].Message, "no params found") {
		t.Fatalf("parameterNotFoundAction Deny: got %s, %+v", res, res.Denied.First)
	}
}

func TestNoUpdateRuleAffectsNoExistingObject(t *testing.T) {
	c := fakeCluster(t, deployment("prod", "five", 5, nil))
	pair := maxReplicasPolicy(3, admissionregistrationv1.Deny)
	pair.Policy.Spec.MatchConstraints.ResourceRules[0].Operations = []admissionregistrationv1.OperationType{admissionregistrationv1.Create}
	res := c.Validating(context.Background(), pair, nil, Options{})
	ws := res.Warnings(Report{Subject: "B"})
	if !res.NoUpdate || len(ws) != 1 || !strings.Contains(ws[0].Message, "its rules leave out UPDATE") {
		t.Fatalf("got %s %v", res, ws)
	}
}

func TestMutatingChanges(t *testing.T) {
	c := fakeCluster(t, deployment("prod", "labelled", 1, map[string]any{"team": "a"}), deployment("prod", "bare", 1, nil))
	pair := MutatingPair{
		Policy: &admissionregistrationv1.MutatingAdmissionPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: "team"},
			Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
				MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
						Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
					}}}},
				MatchConditions: []admissionregistrationv1.MatchCondition{{Name: "no-team", Expression: "!has(object.metadata.labels) || !('team' in object.metadata.labels)"}},
				Mutations: []admissionregistrationv1.Mutation{{PatchType: admissionregistrationv1.PatchTypeApplyConfiguration,
					ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: `Object{metadata: Object.metadata{labels: {"team": "unknown"}}}`}}},
			},
		},
		Binding: &admissionregistrationv1.MutatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "team"},
			Spec: admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: "team"}},
	}
	res := c.Mutating(context.Background(), pair, Options{})
	if refs(res.Changed) != "prod/bare" || strings.Join(res.Changed.First[0].Changes, ",") != "metadata.labels" {
		t.Fatalf("got %s: %s %v", res, refs(res.Changed), res.Changed.First)
	}
	ws := res.MutatingWarnings(Report{Subject: `Binding "team"`})
	if len(ws) != 1 || ws[0].Summary != SummaryChange || !strings.Contains(ws[0].Message, "  prod/bare: metadata.labels") {
		t.Fatalf("warnings %v", ws)
	}
}

func TestWords(t *testing.T) {
	for in, want := range map[string]string{"Deployment": "Deployments", "Ingress": "Ingresses", "NetworkPolicy": "NetworkPolicies", "Gateway": "Gateways"} {
		if got := plural(in); got != want {
			t.Errorf("plural(%s) = %s", in, got)
		}
	}
	for in, want := range map[int]string{0: "0", 999: "999", 1204: "1,204", 1234567: "1,234,567"} {
		if got := number(in); got != want {
			t.Errorf("number(%d) = %s", in, got)
		}
	}
	for in, want := range map[string]string{
		"ValidatingAdmissionPolicy 'p' with binding 'b' denied request: too big":          "too big",
		"Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': too big":   "too big",
		"policy 'p' with binding 'b' denied request: failed expression: no such key: max": "failed expression: no such key: max",
		"plain": "plain",
	} {
		if got := trimPrefixes(in); got != want {
			t.Errorf("trimPrefixes(%q) = %q", in, got)
		}
	}
	for in, want := range map[string]string{
		"request.userInfo.username == 'x'":                                           "request.userInfo",
		"authorizer.group('apps').resource('deployments').check('update').allowed()": "the authorizer",
		"object.metadata.name == 'request.userInfo'":                                 "",
		"object.spec.replicas < 3":                                                   "",
	} {
		if got := readsWriter(in); got != want {
			t.Errorf("readsWriter(%q) = %q", in, got)
		}
	}
}

func TestValidatingSeesTheWriteAsTheMutatingPoliciesLeaveIt(t *testing.T) {
	c := fakeClusterWith(t, Bounds{MaxObjects: 10},
		deployment("prod", "shrunk", 5, map[string]any{"shrink": "yes"}), deployment("prod", "big", 5, nil))
	ctx := context.Background()
	api := c.Kube.AdmissionregistrationV1()
	if _, err := api.MutatingAdmissionPolicies().Create(ctx, &admissionregistrationv1.MutatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "shrink"},
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
				}}},
				ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"shrink": "yes"}},
			},
			Mutations: []admissionregistrationv1.Mutation{{PatchType: admissionregistrationv1.PatchTypeApplyConfiguration,
				ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: `Object{spec: Object.spec{replicas: 1}}`}}},
		},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := api.MutatingAdmissionPolicyBindings().Create(ctx, &admissionregistrationv1.MutatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "shrink"}, Spec: admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: "shrink"},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	res := c.Validating(ctx, maxReplicasPolicy(3, admissionregistrationv1.Deny), nil, Options{})
	if refs(res.Denied) != "prod/big" || res.CannotTell.Count != 0 {
		t.Fatalf("the mutating policy sets prod/shrunk's replicas to 1 before the validating policy sees it: got %s, denied %s, cannot tell %+v",
			res, refs(res.Denied), res.CannotTell.First)
	}
}

// A subject that closes with a comma before its verb (`..., as planned,`) drops it before a
// colon: `Binding "b" of ValidatingAdmissionPolicy "p", as planned: ...`.
func TestIncompleteSubjectBeforeColon(t *testing.T) {
	c := fakeCluster(t, deployment("prod", "a", 5, nil), deployment("prod", "b", 5, nil), deployment("prod", "c", 5, nil), deployment("prod", "d", 5, nil))
	res := c.Validating(context.Background(), maxReplicasPolicy(3, admissionregistrationv1.Deny), nil, Options{})
	subject := `Binding "b" of ValidatingAdmissionPolicy "p", as planned,`
	var said bool
	for _, w := range res.Warnings(Report{Subject: subject, Bounds: c.Bounds, MaxObjectsSetting: "impact_max_objects"}) {
		if w.Summary != SummaryIncomplete {
			continue
		}
		said = true
		if strings.Contains(w.Message, ",:") || !strings.HasPrefix(w.Message, `Binding "b" of ValidatingAdmissionPolicy "p", as planned: `) {
			t.Errorf("the subject reads badly: %q", w.Message)
		}
	}
	if !said {
		t.Fatalf("no incomplete line: %v", res.Warnings(Report{Subject: subject}))
	}
}
