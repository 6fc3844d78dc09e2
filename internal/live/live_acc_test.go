package live_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest/controlplane"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/live"
)

// cluster is the local control plane of the acceptance tests (TF_ACC set).
var cluster *controlplane.ControlPlane

func TestMain(m *testing.M) {
	os.Exit(controlplane.RunTests(m, "live", controlplane.Options{}, &cluster))
}

func need(t *testing.T) {
	t.Helper()
	controlplane.Require(t, cluster)
}

// readerAs is a Reader over the provider's client made from cfg.
func readerAs(t *testing.T, cfg *rest.Config, limits live.Limits) *live.Reader {
	t.Helper()
	c, err := kube.NewClient(cfg, kube.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := live.For(c, limits)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// namespace creates a namespace for one test and deletes it when the test ends.
func namespace(t *testing.T, admin kubernetes.Interface, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := admin.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = admin.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{}) })
}

// A webhook's service as the API server would find it: absent, present without endpoints,
// without the port, with endpoints that are not ready, and with a ready one.
func TestAccBackend(t *testing.T) {
	need(t)
	ctx := context.Background()
	admin := kubernetes.NewForConfigOrDie(cluster.RESTConfig())
	namespace(t, admin, "live-backend")
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "hooks", Namespace: "live-backend"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "https", Port: 443}}}}
	r := readerAs(t, cluster.RESTConfig(), live.Limits{})

	b := r.Backend(ctx, "live-backend", "hooks", 443)
	if b.State != live.BackendNoService || b.Err != nil || !strings.Contains(b.Problem.Error(), `services "hooks" not found`) {
		t.Fatalf("absent: %+v", b)
	}
	if _, err := admin.CoreV1().Services("live-backend").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if b := r.Backend(ctx, "live-backend", "hooks", 443); b.State != live.BackendNoEndpoint ||
		b.Problem.Error() != `no endpoints available for service "hooks"` {
		t.Fatalf("no endpoints: %+v", b)
	}
	if b := r.Backend(ctx, "live-backend", "hooks", 8443); b.State != live.BackendNoPort ||
		b.Problem.Error() != `no service port 8443 found for service "hooks"` {
		t.Fatalf("another port: %+v", b)
	}
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: "hooks-1", Namespace: "live-backend", Labels: map[string]string{discoveryv1.LabelServiceName: "hooks"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("https"), Port: ptr.To[int32](9443)}},
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.7"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(false)}}},
	}
	slices := admin.DiscoveryV1().EndpointSlices("live-backend")
	slice, err := slices.Create(ctx, slice, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if b := r.Backend(ctx, "live-backend", "hooks", 443); b.State != live.BackendNoEndpoint {
		t.Fatalf("an endpoint not ready: %+v", b)
	}
	slice.Endpoints[0].Conditions.Ready = ptr.To(true)
	if _, err := slices.Update(ctx, slice, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if b := r.Backend(ctx, "live-backend", "hooks", 443); b.State != live.BackendReady || b.Problem != nil || b.Err != nil {
		t.Fatalf("ready: %+v", b)
	}
}

// Params by name and by selector, in a namespace and in each request's namespace; a kind the
// cluster does not serve is no answer.
func TestAccParams(t *testing.T) {
	need(t)
	ctx := context.Background()
	admin := kubernetes.NewForConfigOrDie(cluster.RESTConfig())
	namespace(t, admin, "live-params")
	namespace(t, admin, "live-params-other")
	r := readerAs(t, cluster.RESTConfig(), live.Limits{})
	configMaps := &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
	none := func(ref *admissionregistrationv1.ParamRef) (bool, bool, *live.Params) {
		p := r.Params(ctx, configMaps, ref)
		n, known := p.None()
		return n, known, p
	}
	byName := &admissionregistrationv1.ParamRef{Name: "limits", Namespace: "live-params"}
	if n, known, p := none(byName); !n || !known || p.Resource.Resource != "configmaps" || !p.Namespaced {
		t.Fatalf("by name, absent: %v %v %+v", n, known, p)
	}
	bySelector := &admissionregistrationv1.ParamRef{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "web"}}}
	if n, known, p := none(bySelector); !n || !known || !p.PerRequestNamespace {
		t.Fatalf("by selector in each namespace, absent: %v %v %+v", n, known, p)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "limits", Namespace: "live-params-other", Labels: map[string]string{"team": "web"}}}
	if _, err := admin.CoreV1().ConfigMaps("live-params-other").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if n, known, _ := none(byName); !n || !known {
		t.Errorf("by name in another namespace than the one it is in: %v %v", n, known)
	}
	if n, known, p := none(bySelector); n || !known || len(p.Listing.Items) != 1 {
		t.Errorf("by selector in each namespace, present in one: %v %v %+v", n, known, p)
	}
	cm.Namespace = "live-params"
	if _, err := admin.CoreV1().ConfigMaps("live-params").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if n, known, p := none(byName); n || !known || len(p.Listing.Items) != 1 || p.Listing.Items[0].GetNamespace() != "live-params" {
		t.Errorf("by name, present: %v %v %+v", n, known, p)
	}
	inNamespace := &admissionregistrationv1.ParamRef{Namespace: "live-params", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "db"}}}
	if n, known, _ := none(inNamespace); !n || !known {
		t.Errorf("by selector in a namespace, none of those labels: %v %v", n, known)
	}
	unserved := r.Params(ctx, &admissionregistrationv1.ParamKind{APIVersion: "example.com/v1", Kind: "Limits"}, byName)
	if n, known := unserved.None(); n || known || unserved.Err == nil {
		t.Errorf("a kind the cluster does not serve: %v %v %v", n, known, unserved.Err)
	}
}

// A list is read a page at a time up to its cap, and says how much of it was read; a list the
// reader may not make, or a cluster that does not answer, is no answer, and says why.
func TestAccList(t *testing.T) {
	need(t)
	ctx := context.Background()
	admin := kubernetes.NewForConfigOrDie(cluster.RESTConfig())
	namespace(t, admin, "live-list")
	for i := range 7 {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("c%d", i), Namespace: "live-list"}}
		if _, err := admin.CoreV1().ConfigMaps("live-list").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	configMaps := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	all := readerAs(t, cluster.RESTConfig(), live.Limits{PageSize: 2}).List(ctx, configMaps, "live-list", metav1.ListOptions{})
	if !all.Complete() || len(all.Items) != 7 || all.Total != 7 || all.Examined() != "all 7" {
		t.Errorf("in pages of 2: %d items, total %d, %s", len(all.Items), all.Total, all.Examined())
	}
	exactly := readerAs(t, cluster.RESTConfig(), live.Limits{PageSize: 2, Objects: 7}).List(ctx, configMaps, "live-list", metav1.ListOptions{})
	if !exactly.Complete() || len(exactly.Items) != 7 {
		t.Errorf("a cap of exactly as many: %s", exactly.Examined())
	}
	capped := readerAs(t, cluster.RESTConfig(), live.Limits{PageSize: 2, Objects: 5}).List(ctx, configMaps, "live-list", metav1.ListOptions{})
	var re *live.ReadError
	if capped.Complete() || len(capped.Items) != 5 || !errors.As(capped.Stopped, &re) || re.Failure != live.TooMany {
		t.Fatalf("capped at 5: %d items, %v", len(capped.Items), capped.Stopped)
	}
	if capped.Total != 7 || !strings.HasPrefix(capped.Examined(), "5 of 7 (there are too many configmaps in namespace \"live-list\"") {
		t.Errorf("capped at 5: total %d, %s", capped.Total, capped.Examined())
	}

	nobody := readerAs(t, cluster.TokenRESTConfig(cluster.UserToken("nobody")), live.Limits{})
	denied := nobody.List(ctx, configMaps, "live-list", metav1.ListOptions{})
	if !errors.As(denied.Stopped, &re) || re.Failure != live.Forbidden || len(denied.Items) != 0 || denied.Examined() == "" {
		t.Fatalf("nobody: %v", denied.Stopped)
	}
	if !nobody.Report(denied.Stopped) || nobody.Report(denied.Stopped) {
		t.Error("a forbidden list is reported once")
	}
	if b := nobody.Backend(ctx, "live-list", "hooks", 443); b.State != live.BackendUnknown || !errors.As(b.Err, &re) || re.Failure != live.Forbidden {
		t.Errorf("nobody's backend: %+v", b)
	}

	cfg := cluster.RESTConfig()
	cfg.Host = "https://127.0.0.1:1"
	away := readerAs(t, cfg, live.Limits{Time: 5 * time.Second}).List(ctx, configMaps, "", metav1.ListOptions{})
	if !errors.As(away.Stopped, &re) || re.Failure != live.Unreached {
		t.Fatalf("no cluster: %v", away.Stopped)
	}
	if readerAs(t, cfg, live.Limits{}).Report(away.Stopped) {
		t.Error("a cluster that cannot be reached is not reported")
	}
}
