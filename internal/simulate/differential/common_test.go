package differential

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/simulate"
)

// The requests are sent by the token user "writer" (group
// system:authenticated), whom RBAC lets write what the requests write; the
// offline authorizer is given the same rules.
const user = "writer"

// grants are what RBAC lets the writer do, as RBAC rules and as the rules
// of the offline authorizer.
var grants = []struct{ group, resource string }{{"", "configmaps"}, {"apps", "deployments"}, {"apps", "deployments/scale"},
	{"autoscaling", "horizontalpodautoscalers"}, {"", "events"}, {"events.k8s.io", "events"}}

var grantVerbs = []string{"get", "list", "create", "update"}

func authorizerRules() []any {
	var out []any
	for _, g := range grants {
		for _, v := range grantVerbs {
			out = append(out, map[string]any{"user": user, "verb": v, "api_group": g.group, "resource": g.resource})
		}
	}
	return out
}

// namespaces of the requests, with their labels.
var namespaces = map[string]map[string]string{
	"sim-prod": {"env": "prod", "team": "a"},
	"sim-dev":  {"env": "dev", "team": "b"},
	"sim-bare": nil,
}

var namespaceNames = []string{"sim-prod", "sim-dev", "sim-bare"}

// namespaceAnnotations are the annotations of the namespaces, which namespaceObject shows.
var namespaceAnnotations = map[string]map[string]string{
	"sim-prod": {"max-replicas": "3", "owner": "team-a"},
	"sim-dev":  {"owner": "team-b"},
}

// world is what every kind's requests share on the server.
type world struct {
	admin  kubernetes.Interface
	dyn    dynamic.Interface
	writer dynamic.Interface
	// adminDyn sends as the admin (system:masters) by token, with the warnings recorded.
	adminDyn dynamic.Interface
	warn     *warningRecorder
	params   []*unstructured.Unstructured // as stored
	version  string
}

var (
	worldOnce sync.Once
	theWorld  *world
	worldErr  error
)

func setup(t *testing.T) *world {
	t.Helper()
	acctest.Cluster(t)
	worldOnce.Do(func() { theWorld, worldErr = newWorld(t) })
	if worldErr != nil {
		t.Fatal(worldErr)
	}
	return theWorld
}

func newWorld(t *testing.T) (*world, error) {
	ctx := context.Background()
	cp := acctest.Cluster(t)
	admin := acctest.Clientset(t)
	dyn, err := dynamic.NewForConfig(cp.RESTConfig())
	if err != nil {
		return nil, err
	}
	w := &world{admin: admin, dyn: dyn, warn: &warningRecorder{}}
	cfg := cp.TokenRESTConfig(cp.UserToken(user))
	cfg.WarningHandler = w.warn
	if w.writer, err = dynamic.NewForConfig(cfg); err != nil {
		return nil, err
	}
	adminCfg := cp.TokenRESTConfig(cp.AdminToken)
	adminCfg.WarningHandler = w.warn
	if w.adminDyn, err = dynamic.NewForConfig(adminCfg); err != nil {
		return nil, err
	}
	v, err := admin.Discovery().ServerVersion()
	if err != nil {
		return nil, err
	}
	w.version = v.GitVersion
	for name, labels := range namespaces {
		_, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, Annotations: namespaceAnnotations[name]}}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, err
		}
	}
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "sim-writer"}}
	for _, g := range grants {
		role.Rules = append(role.Rules, rbacv1.PolicyRule{APIGroups: []string{g.group}, Resources: []string{g.resource}, Verbs: grantVerbs})
	}
	if _, err := admin.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, err
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "sim-writer"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "sim-writer"},
		Subjects:   []rbacv1.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: user}},
	}
	if _, err := admin.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, err
	}
	// Parameters: ConfigMaps, some labelled for selectors.
	for _, p := range []struct {
		ns, name, max string
		labels        map[string]string
	}{
		{"sim-prod", "limits", "3", map[string]string{"limits": "yes"}},
		{"sim-dev", "limits", "5", map[string]string{"limits": "yes"}},
		{"sim-prod", "strict", "1", map[string]string{"limits": "yes", "strict": "yes"}},
		{"default", "limits", "4", nil},
	} {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: p.name, Namespace: p.ns, Labels: p.labels}, Data: map[string]string{"max": p.max, "prefix": "app"}}
		got, err := admin.CoreV1().ConfigMaps(p.ns).Create(ctx, cm, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			got, err = admin.CoreV1().ConfigMaps(p.ns).Get(ctx, p.name, metav1.GetOptions{})
		}
		if err != nil {
			return nil, err
		}
		u, err := toUnstructured(got, "v1", "ConfigMap")
		if err != nil {
			return nil, err
		}
		w.params = append(w.params, u)
	}
	return w, nil
}

func toUnstructured(obj runtime.Object, apiVersion, kind string) (*unstructured.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetManagedFields(nil)
	return u, nil
}

// warningRecorder keeps the warnings of the last response.
type warningRecorder struct {
	mu   sync.Mutex
	list []string
}

func (w *warningRecorder) HandleWarningHeader(code int, _ string, text string) {
	if code != 299 || text == "" {
		return
	}
	w.mu.Lock()
	w.list = append(w.list, text)
	w.mu.Unlock()
}

func (w *warningRecorder) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.list
	w.list = nil
	sort.Strings(out)
	return out
}

var _ rest.WarningHandler = (*warningRecorder)(nil)

// serverAnswer is what the server did with one request.
type serverAnswer struct {
	allowed  bool
	message  string
	warnings []string
	object   *unstructured.Unstructured
}

// send sends a request as a dry run, as the writer (or the admin, in system:masters).
func (w *world) send(ctx context.Context, r *request) serverAnswer {
	res := resourceOf(r.object)
	if r.subresource != "" {
		res = r.resource
	}
	sender := w.writer
	if r.admin {
		sender = w.adminDyn
	}
	client := sender.Resource(res).Namespace(r.object.GetNamespace())
	w.warn.take()
	var got *unstructured.Unstructured
	var err error
	if r.subresource != "" {
		got, err = client.Update(ctx, r.object.DeepCopy(), metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}}, r.subresource)
	} else if r.old != nil {
		got, err = client.Update(ctx, r.object.DeepCopy(), metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
	} else {
		got, err = client.Create(ctx, r.object.DeepCopy(), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	}
	a := serverAnswer{allowed: err == nil, warnings: w.warn.take(), object: got}
	if err != nil {
		a.message = err.Error()
		if s, ok := err.(apierrors.APIStatus); ok {
			a.message = s.Status().Message
		}
	}
	return a
}

// request is one generated request: a dry-run create of object, or an
// update of old (stored) to object.
type request struct {
	object *unstructured.Unstructured
	old    *unstructured.Unstructured
	// subresource, with resource, is an update of that subresource (object and old are its
	// objects, such as a Scale).
	subresource string
	resource    schema.GroupVersionResource
	// admin: sent by the admin, in the group system:masters, rather than the writer.
	admin bool
}

// offline is the request as the functions take it.
func (r *request) offline(w *world) (*simulate.Request, error) {
	ns := r.object.GetNamespace()
	m := map[string]any{
		"object":     roundTrip(r.object.Object),
		"namespace":  map[string]any{"name": ns, "labels": toAny(namespaces[ns]), "annotations": toAny(namespaceAnnotations[ns])},
		"user_info":  map[string]any{"username": user, "groups": []any{"system:authenticated"}},
		"authorizer": authorizerRules(),
		"dry_run":    true,
	}
	if r.admin {
		m["user_info"] = map[string]any{"username": "admin", "groups": []any{"system:masters", "system:authenticated"}}
		delete(m, "authorizer")
	}
	if r.subresource != "" {
		m["sub_resource"] = r.subresource
		m["resource"] = map[string]any{"group": r.resource.Group, "version": r.resource.Version, "resource": r.resource.Resource}
	}
	if r.old != nil {
		m["old_object"] = roundTrip(r.old.Object)
	}
	var params []any
	for _, p := range w.params {
		params = append(params, roundTrip(p.Object))
	}
	m["params"] = params
	return simulate.ParseRequest(m)
}

func toAny(m map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// roundTrip is v through JSON, as Terraform would hand it over.
func roundTrip(v any) any {
	data, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(data, &out)
	return out
}

// stored creates obj for real (as admin), so that an update of it can be
// sent, and returns it as stored.
func (w *world) stored(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	client := w.dyn.Resource(resourceOf(obj)).Namespace(obj.GetNamespace())
	got, err := client.Create(ctx, obj, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		got, err = client.Get(ctx, obj.GetName(), metav1.GetOptions{})
	}
	if err != nil {
		return nil, err
	}
	got.SetManagedFields(nil)
	return got, nil
}

// generator makes random objects.
type generator struct{ r *rand.Rand }

func newGenerator(seed uint64) *generator { return &generator{r: rand.New(rand.NewPCG(seed, 0x5eed))} }

func (g *generator) pick(options ...string) string { return options[g.r.IntN(len(options))] }
func (g *generator) chance(p float64) bool         { return g.r.Float64() < p }

// object is a ConfigMap or a Deployment in one of the namespaces, labelled
// with the case it belongs to (so that only that case's policy or webhooks
// see it).
func (g *generator) object(caseLabel string, n int) *unstructured.Unstructured {
	ns := namespaceNames[g.r.IntN(len(namespaceNames))]
	name := fmt.Sprintf("%s-%s-%d", g.pick("app", "web", "db", "batch"), caseLabel, n)
	labels := map[string]any{"sim-case": caseLabel}
	for _, k := range []string{"team", "tier", "inject"} {
		if g.chance(0.4) {
			labels[k] = g.pick("a", "b", "true", "frontend")
		}
	}
	meta := map[string]any{"name": name, "namespace": ns, "labels": labels}
	if g.chance(0.3) {
		meta["annotations"] = map[string]any{"owner": g.pick("alice", "bob")}
	}
	if g.chance(0.5) {
		data := map[string]any{}
		for i := 0; i < g.r.IntN(4); i++ {
			data[g.pick("a", "b", "c", "max", "mode")] = g.pick("1", "7", "on", "off")
		}
		obj := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta}
		if len(data) > 0 || g.chance(0.5) {
			obj["data"] = data
		}
		return &unstructured.Unstructured{Object: obj}
	}
	podLabels := map[string]any{"app": name}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta,
		"spec": map[string]any{
			"replicas": int64(g.r.IntN(8)),
			"selector": map[string]any{"matchLabels": podLabels},
			"template": map[string]any{
				"metadata": map[string]any{"labels": podLabels},
				"spec":     map[string]any{"containers": []any{map[string]any{"name": "app", "image": g.pick("nginx:1.27", "nginx:latest", "busybox")}}},
			},
		},
	}}
}

// changed is obj changed for an update.
func (g *generator) changed(obj *unstructured.Unstructured) *unstructured.Unstructured {
	out := obj.DeepCopy()
	labels := out.GetLabels()
	if g.chance(0.5) {
		labels["tier"] = g.pick("frontend", "backend")
	} else {
		delete(labels, "team")
	}
	out.SetLabels(labels)
	switch out.GetKind() {
	case "Deployment":
		_ = unstructured.SetNestedField(out.Object, int64(g.r.IntN(8)), "spec", "replicas")
	case "ConfigMap":
		_ = unstructured.SetNestedField(out.Object, g.pick("1", "9"), "data", "max")
	}
	return out
}

func resourceOf(obj *unstructured.Unstructured) schema.GroupVersionResource {
	gv, _ := schema.ParseGroupVersion(obj.GetAPIVersion())
	switch obj.GetKind() {
	case "Deployment":
		return schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	case "HorizontalPodAutoscaler":
		return gv.WithResource("horizontalpodautoscalers")
	case "Event":
		return gv.WithResource("events")
	}
	return schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
}

func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func short(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// settle waits for the server's admission plugins to see new objects: the
// policy and webhook sources are informers, and the policy source
// recompiles at most once a second.
func settle() { time.Sleep(3 * time.Second) }

func jsonString(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}
