package webhook_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/advice"
)

var lockoutCRDs = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// installCRD creates a CustomResourceDefinition of plural.<group> with the given scope on the
// local control plane, waits until discovery serves it, and deletes it when the test ends.
func installCRD(t *testing.T, group, plural, kind, scope string) {
	t.Helper()
	cfg := acctest.Cluster(t).RESTConfig()
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": plural + "." + group},
		"spec": map[string]any{
			"group": group, "scope": scope,
			"names": map[string]any{"plural": plural, "singular": strings.ToLower(kind), "kind": kind, "listKind": kind + "List"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}},
		},
	}}
	ctx := context.Background()
	if _, err := dyn.Resource(lockoutCRDs).Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dyn.Resource(lockoutCRDs).Delete(ctx, crd.GetName(), metav1.DeleteOptions{}) })
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		list, err := dc.ServerResourcesForGroupVersion(group + "/v1")
		if err == nil && slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == plural }) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s.%s not in discovery after 60 s: %v", plural, group, err)
		}
	}
}

// slowHooksConfig is a mutating configuration of two fail-closed webhooks of 20 s each, whose
// rules name only plural.group, and only its namespaced objects (scope Namespaced): every
// namespaced object of that resource waits for both, 40 s; a cluster-scoped resource is
// matched by neither.
func slowHooksConfig(providerBlock, name, group, plural string) string {
	hook := func(n string) string {
		return fmt.Sprintf(`
  webhook {
    name                      = "%s.lockout.example.com"
    admission_review_versions = ["v1"]
    side_effects              = "None"
    failure_policy            = "Fail"
    timeout_seconds           = 20
    client_config {
      url = "https://webhooks.example.com/%s"
    }
    rule {
      operations   = ["CREATE"]
      api_groups   = [%q]
      api_versions = ["v1"]
      resources    = [%q]
      scope        = "Namespaced"
    }
  }`, n, n, group, plural)
	}
	return providerBlock + fmt.Sprintf(`
resource "admission_mutating_webhook_configuration" "test" {
  metadata {
    name = %q
  }%s%s
}
`, name, hook("first"), hook("second"))
}

// The scope of a custom resource, read from the live server's discovery at plan, decides the
// timeouts warning: a namespaced resource warns, a cluster-scoped one (which the rules' scope
// Namespaced leaves out) does not, and a resource the cluster does not serve gets no claim.
func TestAccLockoutLiveScope(t *testing.T) {
	const group = "lockout.example.com"
	installCRD(t, group, "clusterwidgets", "ClusterWidget", "Cluster")
	installCRD(t, group, "widgets", "Widget", "Namespaced")
	cases := []struct {
		name, plural string
		offline      bool
		warn         bool
	}{
		{"cluster-scoped", "clusterwidgets", false, false},
		{"namespaced", "widgets", false, true},
		{"not served", "gizmos", false, false},          // its scope is unknown: no claim
		{"namespaced, offline", "widgets", true, false}, // without the cluster the scope is unknown
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			provider := acctest.ProviderBlock(t)
			if tc.offline {
				provider = offlineProvider
			}
			diags, ok := acctest.Plan(t, slowHooksConfig(provider, randomName(), group, tc.plural))
			if !ok {
				t.Fatalf("plan failed: %+v", diags)
			}
			var warned []acctest.Diagnostic
			for _, d := range diags {
				if d.Summary == advice.SummaryFailClosedTimeouts {
					warned = append(warned, d)
				} else if d.Severity == "warning" && strings.HasPrefix(d.Summary, "Fail-closed") {
					t.Errorf("unexpected warning %s: %s", d.Summary, d.Detail)
				}
			}
			if tc.warn != (len(warned) == 1) {
				t.Fatalf("timeouts warning given %d times, want %v: %+v", len(warned), tc.warn, diags)
			}
			for _, d := range warned {
				t.Logf("%s: %s", d.Summary, d.Detail)
			}
			if tc.warn && (!strings.Contains(warned[0].Detail, "add up to 40 s") || !strings.Contains(warned[0].Detail, "widgets in namespace")) {
				t.Errorf("warning: %s", warned[0].Detail)
			}
		})
	}
}

// The lockout check's verdicts, request by request, against the local kube-apiserver: each
// configuration below is installed with fail-closed webhooks that cannot be reached, every
// request the check tries is made for real (a dry run, as the user the check assumes), and the
// server must reject exactly those the check says the webhook intercepts. Only requests of the
// group lockout-probe are intercepted at all (a match condition of every webhook), so the rest
// of the suite is never held up.
func TestAccLockoutAgreesWithServer(t *testing.T) {
	cfg := acctest.Cluster(t).RESTConfig()
	cs := acctest.Clientset(t)
	ctx := context.Background()
	const ownNamespace, canaryNamespace = "lockout-webhooks", "lockout-canary"
	for _, ns := range []string{ownNamespace, canaryNamespace} {
		_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	admin, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}

	onlyProbes := admissionregistrationv1.MatchCondition{Name: "probes-only", Expression: "'lockout-probe' in request.userInfo.groups"}
	everything := []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*/*"}},
	}}
	url := "https://127.0.0.1:1/unreachable"
	hook := func(mutate func(h *admissionregistrationv1.MutatingWebhook)) admissionregistrationv1.MutatingWebhook {
		fail, none := admissionregistrationv1.Fail, admissionregistrationv1.SideEffectClassNone
		h := admissionregistrationv1.MutatingWebhook{
			Name: "probe.lockout.example.com", ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url},
			Rules: everything, FailurePolicy: &fail, SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
			TimeoutSeconds: ptrTo(int32(2)), MatchConditions: []admissionregistrationv1.MatchCondition{onlyProbes},
		}
		if mutate != nil {
			mutate(&h)
		}
		return h
	}
	notIn := func(ns ...string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
			Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: ns}}}
	}
	variants := []struct {
		name string
		hook admissionregistrationv1.MutatingWebhook
	}{
		{"everything", hook(nil)},
		{"kube-system left out", hook(func(h *admissionregistrationv1.MutatingWebhook) { h.NamespaceSelector = notIn("kube-system") })},
		{"opt-in object selector", hook(func(h *admissionregistrationv1.MutatingWebhook) {
			h.ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"inject": "true"}}
		})},
		{"system users left out", hook(func(h *admissionregistrationv1.MutatingWebhook) {
			h.MatchConditions = append(h.MatchConditions, admissionregistrationv1.MatchCondition{
				Name: "not-system", Expression: "!request.userInfo.username.startsWith('system:')"})
		})},
		{"nodes left out", hook(func(h *admissionregistrationv1.MutatingWebhook) {
			h.MatchConditions = append(h.MatchConditions, admissionregistrationv1.MatchCondition{
				Name: "not-nodes", Expression: "!('system:nodes' in request.userInfo.groups)"})
		})},
		{"namespaced objects only", hook(func(h *admissionregistrationv1.MutatingWebhook) {
			h.Rules = []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*/*"},
					Scope: ptrTo(admissionregistrationv1.NamespacedScope)},
			}}
		})},
		{"pods and replica sets, behind a service of its own", hook(func(h *admissionregistrationv1.MutatingWebhook) {
			h.ClientConfig = admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{
				Namespace: ownNamespace, Name: "absent", Path: ptrTo("/mutate")}}
			h.NamespaceSelector = notIn("kube-system")
			h.Rules = []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"", "apps"}, APIVersions: []string{"v1"}, Resources: []string{"pods", "replicasets"}},
			}}
		})},
	}

	// A canary webhook in each configuration tells when the server has it in effect.
	canary := hook(func(h *admissionregistrationv1.MutatingWebhook) {
		h.Name = "canary.lockout.example.com"
		h.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": canaryNamespace}}
		h.Rules = []admissionregistrationv1.RuleWithOperations{{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
		}}
	})
	canaryProbe := advice.LockoutProbe{Operation: admission.Create, Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		Kind: "ConfigMap", Namespace: canaryNamespace, Name: "canary",
		User: &user.DefaultInfo{Name: "canary", Groups: []string{"lockout-probe", "system:masters"}}}
	waitCanary := func(t *testing.T, rejected bool) {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			err := probe(t, cfg, admin, canaryProbe)
			if isWebhookRejection(err) == rejected {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the canary webhook is not yet (or still) in effect after 60 s: %v", err)
			}
		}
	}

	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			obj := &admissionregistrationv1.MutatingWebhookConfiguration{
				ObjectMeta: metav1.ObjectMeta{Name: "lockout-probe.example.com"},
				Webhooks:   []admissionregistrationv1.MutatingWebhook{v.hook, canary},
			}
			if _, err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, obj, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			defer func() {
				_ = cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(ctx, obj.Name, metav1.DeleteOptions{})
				waitCanary(t, false)
			}()
			waitCanary(t, true)
			checked, rejected := 0, 0
			for _, p := range advice.LockoutProbes(obj, 0) {
				p.User = &user.DefaultInfo{Name: p.User.GetName(), Groups: append(slices.Clone(p.User.GetGroups()), "lockout-probe", "system:masters")}
				want, known := advice.LockoutIntercepts(obj, 0, p)
				if !known {
					t.Errorf("%s %s: the check makes no claim", p.Operation, describeProbe(p))
					continue
				}
				ensureExists(t, admin, p)
				err := probe(t, cfg, admin, p)
				if got := isWebhookRejection(err); got != want {
					t.Errorf("%s %s as %s: the server rejects it: %v, the check says intercepted: %v (%v)", p.Operation, describeProbe(p), p.User.GetName(), got, want, err)
				}
				checked++
				if want {
					rejected++
				}
			}
			t.Logf("%d requests agree, %d of them rejected", checked, rejected)
		})
	}
}

func ptrTo[T any](v T) *T { return &v }

func describeProbe(p advice.LockoutProbe) string {
	r := p.Resource.Resource
	if p.Subresource != "" {
		r += "/" + p.Subresource
	}
	if p.Namespace != "" {
		return p.Namespace + "/" + r + "/" + p.Name
	}
	return r + "/" + p.Name
}

func isWebhookRejection(err error) bool {
	return err != nil && strings.Contains(err.Error(), "failed calling webhook")
}

// probeObject is a valid object for p's resource, with p's name and namespace.
func probeObject(t *testing.T, p advice.LockoutProbe) *unstructured.Unstructured {
	t.Helper()
	podSpec := map[string]any{"containers": []any{map[string]any{"name": "c", "image": "registry.k8s.io/pause:3.10"}}}
	template := map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "probe"}}, "spec": podSpec}
	workload := map[string]any{"selector": map[string]any{"matchLabels": map[string]any{"app": "probe"}}, "template": template}
	var spec map[string]any
	extra := map[string]any{}
	switch p.Resource.Resource {
	case "pods":
		spec = podSpec
	case "deployments", "daemonsets", "replicasets":
		spec = workload
	case "services":
		spec = map[string]any{"ports": []any{map[string]any{"port": int64(53)}}}
	case "leases":
		spec = map[string]any{"holderIdentity": "probe"}
	case "nodes":
		spec = map[string]any{}
	case "certificatesigningrequests":
		spec = map[string]any{"request": csrPEM(t), "signerName": "example.com/probe", "usages": []any{"client auth"}}
	case "clusterroles":
		extra["rules"] = []any{}
	case "clusterrolebindings":
		extra["roleRef"] = map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": p.Name}
	case "endpoints":
		extra["subsets"] = []any{}
	case "endpointslices":
		extra["addressType"] = "IPv4"
		extra["endpoints"] = []any{}
	case "configmaps":
	default:
		t.Fatalf("no object for %s", p.Resource)
	}
	meta := map[string]any{"name": p.Name}
	o := map[string]any{"apiVersion": p.Resource.GroupVersion().String(), "kind": p.Kind, "metadata": meta}
	if p.Namespace != "" {
		meta["namespace"] = p.Namespace
	}
	if spec != nil {
		o["spec"] = spec
	}
	maps.Copy(o, extra)
	return &unstructured.Unstructured{Object: o}
}

func csrPEM(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "probe"}}, key)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}))
}

// ensureExists creates, as the administrator, the object an UPDATE probe changes.
func ensureExists(t *testing.T, admin dynamic.Interface, p advice.LockoutProbe) {
	t.Helper()
	if p.Operation != admission.Update {
		return
	}
	r := admin.Resource(p.Resource).Namespace(p.Namespace)
	if _, err := r.Get(context.Background(), p.Name, metav1.GetOptions{}); err == nil {
		return
	}
	if _, err := r.Create(context.Background(), probeObject(t, p), metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create %s: %v", describeProbe(p), err)
	}
}

// probe makes p's request as p's user, a dry run: a create of a new object, or an update (of
// the object or its subresource) that adds a label.
func probe(t *testing.T, cfg *rest.Config, admin dynamic.Interface, p advice.LockoutProbe) error {
	t.Helper()
	as := rest.CopyConfig(cfg)
	as.Impersonate = rest.ImpersonationConfig{UserName: p.User.GetName(), Groups: p.User.GetGroups()}
	client, err := dynamic.NewForConfig(as)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r := client.Resource(p.Resource).Namespace(p.Namespace)
	dry := []string{metav1.DryRunAll}
	if p.Operation == admission.Create {
		_, err := r.Create(ctx, probeObject(t, p), metav1.CreateOptions{DryRun: dry})
		return err
	}
	cur, err := admin.Resource(p.Resource).Namespace(p.Namespace).Get(ctx, p.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get %s: %v", describeProbe(p), err)
	}
	labels := cur.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels["lockout-probe"] = "x"
	cur.SetLabels(labels)
	if p.Subresource == "status" {
		_, err = r.UpdateStatus(ctx, cur, metav1.UpdateOptions{DryRun: dry})
	} else {
		_, err = r.Update(ctx, cur, metav1.UpdateOptions{DryRun: dry})
	}
	return err
}

// The same for validating admission policies: a policy that denies every request it is
// evaluated on, bound with Deny, under five match settings; the server must deny exactly the
// requests the check says the policy reaches.
func TestAccPolicyLockoutAgreesWithServer(t *testing.T) {
	cfg := acctest.Cluster(t).RESTConfig()
	cs := acctest.Clientset(t)
	ctx := context.Background()
	const canaryNamespace = "lockout-policy-canary"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: canaryNamespace}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	admin, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rule := func(groups, resources []string) admissionregistrationv1.NamedRuleWithOperations {
		return admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
			Rule:       admissionregistrationv1.Rule{APIGroups: groups, APIVersions: []string{"*"}, Resources: resources},
		}}
	}
	// Every policy also reaches the canary's configmaps, which tell when it is in effect.
	canaryRule := rule([]string{""}, []string{"configmaps"})
	onlyProbes := admissionregistrationv1.MatchCondition{Name: "probes-only", Expression: "'lockout-probe' in request.userInfo.groups"}
	policy := func(rules []admissionregistrationv1.NamedRuleWithOperations, conditions ...admissionregistrationv1.MatchCondition) *admissionregistrationv1.ValidatingAdmissionPolicy {
		fail := admissionregistrationv1.Fail
		return &admissionregistrationv1.ValidatingAdmissionPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: "lockout-probe.example.com"},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
				FailurePolicy:    &fail,
				MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: append(rules, canaryRule)},
				MatchConditions:  append([]admissionregistrationv1.MatchCondition{onlyProbes}, conditions...),
				Validations:      []admissionregistrationv1.Validation{{Expression: "false", Message: "lockout probe"}},
			},
		}
	}
	binding := func(m *admissionregistrationv1.MatchResources) *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
		return &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "lockout-probe.example.com"},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "lockout-probe.example.com",
				ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}, MatchResources: m},
		}
	}
	all := []admissionregistrationv1.NamedRuleWithOperations{rule([]string{"*"}, []string{"*/*"})}
	variants := []struct {
		name    string
		policy  *admissionregistrationv1.ValidatingAdmissionPolicy
		binding *admissionregistrationv1.ValidatingAdmissionPolicyBinding
	}{
		{"everything", policy(all), binding(nil)},
		{"binding leaves kube-system out", policy(all), binding(&admissionregistrationv1.MatchResources{
			NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
				Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"kube-system"}}}}})},
		{"binding's opt-in object selector", policy(all), binding(&admissionregistrationv1.MatchResources{
			ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"inject": "true"}}})},
		{"policy leaves system users out", policy(all, admissionregistrationv1.MatchCondition{
			Name: "not-system", Expression: "!request.userInfo.username.startsWith('system:')"}), binding(nil)},
		{"pods and leases", policy([]admissionregistrationv1.NamedRuleWithOperations{
			rule([]string{""}, []string{"pods"}), rule([]string{"coordination.k8s.io"}, []string{"leases"})}), binding(nil)},
	}
	canary := func(t *testing.T) error {
		as := rest.CopyConfig(cfg)
		as.Impersonate = rest.ImpersonationConfig{UserName: "canary", Groups: []string{"lockout-probe", "system:masters"}}
		c, err := dynamic.NewForConfig(as)
		if err != nil {
			t.Fatal(err)
		}
		cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "canary", "namespace": canaryNamespace, "labels": map[string]any{"inject": "true"}}}}
		_, err = c.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace(canaryNamespace).
			Create(context.Background(), cm, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err
	}
	waitCanary := func(t *testing.T, denied bool) {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			err := canary(t)
			if isPolicyDenial(err) == denied {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the policy is not yet (or still) in effect after 60 s: %v", err)
			}
		}
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			policies, bindings := cs.AdmissionregistrationV1().ValidatingAdmissionPolicies(), cs.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings()
			if _, err := policies.Create(ctx, v.policy, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := bindings.Create(ctx, v.binding, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			defer func() {
				_ = bindings.Delete(ctx, v.binding.Name, metav1.DeleteOptions{})
				_ = policies.Delete(ctx, v.policy.Name, metav1.DeleteOptions{})
				waitCanary(t, false)
			}()
			waitCanary(t, true)
			checked, denied := 0, 0
			for _, p := range advice.PolicyLockoutProbes() {
				p.User = &user.DefaultInfo{Name: p.User.GetName(), Groups: append(slices.Clone(p.User.GetGroups()), "lockout-probe", "system:masters")}
				want, known := advice.PolicyIntercepts(v.policy, v.binding, p)
				if !known {
					t.Errorf("%s %s: the check makes no claim", p.Operation, describeProbe(p))
					continue
				}
				ensureExists(t, admin, p)
				err := probe(t, cfg, admin, p)
				if got := isPolicyDenial(err); got != want {
					t.Errorf("%s %s as %s: the server denies it: %v, the check says reached: %v (%v)", p.Operation, describeProbe(p), p.User.GetName(), got, want, err)
				}
				checked++
				if want {
					denied++
				}
			}
			t.Logf("%d requests agree, %d of them denied", checked, denied)
		})
	}
}

func isPolicyDenial(err error) bool {
	return err != nil && strings.Contains(err.Error(), "lockout probe")
}
