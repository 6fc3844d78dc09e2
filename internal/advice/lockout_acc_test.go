package advice

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"maps"
	"os"
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
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest/controlplane"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/matching"
)

// cluster is the local control plane of the acceptance tests (TF_ACC set). The package's tests
// cannot use internal/acctest, which imports this package through the provider.
var cluster *controlplane.ControlPlane

func TestMain(m *testing.M) {
	os.Exit(controlplane.RunTests(m, "advice", controlplane.Options{}, &cluster))
}

// liveCluster is the running control plane; outside acceptance runs it skips the test.
func liveCluster(t testing.TB) *controlplane.ControlPlane {
	t.Helper()
	return controlplane.Require(t, cluster)
}

// intercepts is the lockout check's verdict v on a request: whether the API server calls the
// webhook or evaluates the policy, and whether that is known (false when a match condition
// cannot be evaluated on the synthetic request).
func intercepts(v verdict) (intercepted, known bool) {
	switch v {
	case called:
		return true, true
	case notCalled:
		return false, true
	}
	return false, false
}

// The lockout check's verdicts, request by request, against the local kube-apiserver: each
// configuration below is installed with fail-closed webhooks that cannot be reached, every
// request the check tries is made for real (a dry run, as the user the check assumes), and the
// server must reject exactly those the check says the webhook intercepts. Only requests of the
// group lockout-probe are intercepted at all (a match condition of every webhook), so the rest
// of the suite is never held up.
func TestAccLockoutAgreesWithServer(t *testing.T) {
	cfg := liveCluster(t).RESTConfig()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
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
			TimeoutSeconds: ptr(int32(2)), MatchConditions: []admissionregistrationv1.MatchCondition{onlyProbes},
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
					Scope: ptr(admissionregistrationv1.NamespacedScope)},
			}}
		})},
		{"pods and replica sets, behind a service of its own", hook(func(h *admissionregistrationv1.MutatingWebhook) {
			h.ClientConfig = admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{
				Namespace: ownNamespace, Name: "absent", Path: ptr("/mutate")}}
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
	canaryProbe := criticalRequest{op: admission.Create, gvr: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		kind: "ConfigMap", namespace: canaryNamespace, name: "canary",
		user: &user.DefaultInfo{Name: "canary", Groups: []string{"lockout-probe", "system:masters"}}}
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
			for _, p := range probesOf(&obj.Webhooks[0]) {
				p.user = &user.DefaultInfo{Name: p.user.GetName(), Groups: append(slices.Clone(p.user.GetGroups()), "lockout-probe", "system:masters")}
				want, known := intercepts(hookCalled(newMatcher(), matching.MutatingWebhooks(obj)[0], p.attributes()))
				if !known {
					t.Errorf("%s %s: the check makes no claim", p.op, describeProbe(p))
					continue
				}
				ensureExists(t, admin, p)
				err := probe(t, cfg, admin, p)
				if got := isWebhookRejection(err); got != want {
					t.Errorf("%s %s as %s: the server rejects it: %v, the check says intercepted: %v (%v)", p.op, describeProbe(p), p.user.GetName(), got, want, err)
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

func describeProbe(p criticalRequest) string {
	r := p.gvr.Resource
	if p.sub != "" {
		r += "/" + p.sub
	}
	if p.namespace != "" {
		return p.namespace + "/" + r + "/" + p.name
	}
	return r + "/" + p.name
}

func isWebhookRejection(err error) bool {
	return err != nil && strings.Contains(err.Error(), "failed calling webhook")
}

// probeObject is a valid object for p's resource, with p's name and namespace.
func probeObject(t *testing.T, p criticalRequest) *unstructured.Unstructured {
	t.Helper()
	podSpec := map[string]any{"containers": []any{map[string]any{"name": "c", "image": "registry.k8s.io/pause:3.10"}}}
	template := map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "probe"}}, "spec": podSpec}
	workload := map[string]any{"selector": map[string]any{"matchLabels": map[string]any{"app": "probe"}}, "template": template}
	var spec map[string]any
	extra := map[string]any{}
	switch p.gvr.Resource {
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
		extra["roleRef"] = map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": p.name}
	case "endpoints":
		extra["subsets"] = []any{}
	case "endpointslices":
		extra["addressType"] = "IPv4"
		extra["endpoints"] = []any{}
	case "configmaps":
	default:
		t.Fatalf("no object for %s", p.gvr)
	}
	meta := map[string]any{"name": p.name}
	o := map[string]any{"apiVersion": p.gvr.GroupVersion().String(), "kind": p.kind, "metadata": meta}
	if p.namespace != "" {
		meta["namespace"] = p.namespace
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
func ensureExists(t *testing.T, admin dynamic.Interface, p criticalRequest) {
	t.Helper()
	if p.op != admission.Update {
		return
	}
	r := admin.Resource(p.gvr).Namespace(p.namespace)
	if _, err := r.Get(context.Background(), p.name, metav1.GetOptions{}); err == nil {
		return
	}
	if _, err := r.Create(context.Background(), probeObject(t, p), metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create %s: %v", describeProbe(p), err)
	}
}

// probe makes p's request as p's user, a dry run: a create of a new object, or an update (of
// the object or its subresource) that adds a label.
func probe(t *testing.T, cfg *rest.Config, admin dynamic.Interface, p criticalRequest) error {
	t.Helper()
	as := rest.CopyConfig(cfg)
	as.Impersonate = rest.ImpersonationConfig{UserName: p.user.GetName(), Groups: p.user.GetGroups()}
	client, err := dynamic.NewForConfig(as)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r := client.Resource(p.gvr).Namespace(p.namespace)
	dry := []string{metav1.DryRunAll}
	if p.op == admission.Create {
		_, err := r.Create(ctx, probeObject(t, p), metav1.CreateOptions{DryRun: dry})
		return err
	}
	cur, err := admin.Resource(p.gvr).Namespace(p.namespace).Get(ctx, p.name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get %s: %v", describeProbe(p), err)
	}
	labels := cur.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels["lockout-probe"] = "x"
	cur.SetLabels(labels)
	if p.sub == "status" {
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
	cfg := liveCluster(t).RESTConfig()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
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
			for _, p := range systemRequests {
				p.user = &user.DefaultInfo{Name: p.user.GetName(), Groups: append(slices.Clone(p.user.GetGroups()), "lockout-probe", "system:masters")}
				want, known := intercepts(policyCalled(newMatcher(), v.policy.Spec.MatchConstraints, v.binding.Spec.MatchResources, v.policy.Spec.MatchConditions,
					v.policy.Spec.ParamKind != nil, "validating", v.policy.Name, p.attributes()))
				if !known {
					t.Errorf("%s %s: the check makes no claim", p.op, describeProbe(p))
					continue
				}
				ensureExists(t, admin, p)
				err := probe(t, cfg, admin, p)
				if got := isPolicyDenial(err); got != want {
					t.Errorf("%s %s as %s: the server denies it: %v, the check says reached: %v (%v)", p.op, describeProbe(p), p.user.GetName(), got, want, err)
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
