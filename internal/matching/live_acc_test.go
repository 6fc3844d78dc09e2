package matching_test

import (
	"context"
	"os"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest/controlplane"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/matching"
)

// cluster is the local control plane of the acceptance tests (TF_ACC set).
var cluster *controlplane.ControlPlane

func TestMain(m *testing.M) {
	os.Exit(controlplane.RunTests(m, "matching", controlplane.Options{}, &cluster))
}

// The cluster's namespaces decide namespace selectors by the labels they have there; a
// namespace the cluster does not have is not found; a reader who may not list namespaces gets
// no answer (Failed), and the source says why.
func TestAccLiveNamespaces(t *testing.T) {
	if cluster == nil {
		t.Skip("acceptance test: set TF_ACC=1 (make test does) to run it against a local kube-apiserver")
	}
	ctx := context.Background()
	admin := kubernetes.NewForConfigOrDie(cluster.RESTConfig())
	for name, team := range map[string]string{"matching-web": "web", "matching-db": "db"} {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"team": team}}}
		if _, err := admin.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = admin.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{}) })
	}
	cfg := &admissionregistrationv1.MutatingWebhookConfiguration{}
	if err := yaml.Unmarshal([]byte(`
metadata: {name: team-web}
webhooks:
- name: web.example.com
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  namespaceSelector: {matchLabels: {team: web}}
`), cfg); err != nil {
		t.Fatal(err)
	}
	hook := matching.MutatingWebhooks(cfg)[0]
	configMapIn := func(ns string) admission.Attributes {
		gvr := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
		obj := &unstructured.Unstructured{}
		obj.SetGroupVersionKind(gvr.GroupVersion().WithKind("ConfigMap"))
		obj.SetName("c")
		obj.SetNamespace(ns)
		return admission.NewAttributesRecord(obj, nil, obj.GroupVersionKind(), ns, "c", gvr, "", admission.Create, nil, false,
			&user.DefaultInfo{Name: "alice", Groups: []string{user.AllAuthenticated}})
	}

	live := matching.LiveNamespaces(ctx, admin, 0)
	if live.Incomplete() != nil || live.Read() < 6 { // default, kube-system, kube-public, kube-node-lease and the two above
		t.Fatalf("read %d namespaces, incomplete: %v", live.Read(), live.Incomplete())
	}
	m, err := matching.New(matching.Config{Namespaces: live})
	if err != nil {
		t.Fatal(err)
	}
	for ns, want := range map[string]matching.Outcome{"matching-web": matching.Called, "matching-db": matching.NotCalled, "matching-absent": matching.Failed} {
		a := m.Webhook(ctx, hook, configMapIn(ns))
		if a.Outcome != want {
			t.Errorf("%s: got %+v, want %v", ns, a, want)
		}
		if want == matching.Failed && !apierrors.IsNotFound(a.Err) {
			t.Errorf("%s: %v, want not found", ns, a.Err)
		}
	}

	few := matching.LiveNamespaces(ctx, admin, 2)
	if few.Read() != 2 || few.Incomplete() == nil || !strings.Contains(few.Incomplete().Error(), "more than 2") {
		t.Errorf("limit 2: read %d, incomplete: %v", few.Read(), few.Incomplete())
	}

	nobody := kubernetes.NewForConfigOrDie(cluster.TokenRESTConfig(cluster.UserToken("nobody")))
	denied := matching.LiveNamespaces(ctx, nobody, 0)
	if denied.Read() != 0 || !apierrors.IsForbidden(denied.Incomplete()) {
		t.Fatalf("nobody: read %d, incomplete: %v", denied.Read(), denied.Incomplete())
	}
	m, err = matching.New(matching.Config{Namespaces: denied})
	if err != nil {
		t.Fatal(err)
	}
	if a := m.Webhook(ctx, hook, configMapIn("matching-web")); a.Outcome != matching.Failed || !strings.Contains(a.Err.Error(), "forbidden") {
		t.Errorf("nobody: got %+v, want no answer that says the list was forbidden", a)
	}
}
