package typecheck_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/yaml"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/live"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/typecheck"
)

const gadgetCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.typecheck.example.com
spec:
  group: typecheck.example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
              color: {type: string, enum: [red, blue]}
              port: {x-kubernetes-int-or-string: true}
              template: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}
`

// TestAccCustomResourceOnLiveCluster type-checks policies on a custom resource of the local
// control plane, through the provider's own client, and counts what the Checker asks.
func TestAccCustomResourceOnLiveCluster(t *testing.T) {
	cp := liveCluster(t)
	createCRD(t, cp.RESTConfig(), gadgetCRD, "typecheck.example.com/v1", "gadgets")

	requests := &requestLog{}
	cfg := cp.RESTConfig()
	cfg.WrapTransport = requests.wrap
	client, err := kube.NewClient(cfg, kube.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cluster, calls := countedLive(func() (*live.Reader, error) { return live.For(client, live.Limits{}) })
	c := typecheck.New(cluster)

	// Policies on built-in kinds only ask nothing.
	for range 5 {
		if got := c.ValidatingPolicy(policy(deployments(), "object.spec.replicass > 3")); len(got) != 1 {
			t.Fatalf("deployments: want one warning, got %q", got)
		}
	}
	if n := calls(); n != 0 || requests.total() != 0 {
		t.Fatalf("built-in kinds: live called %d times, %d requests %v; want none", n, requests.total(), requests.paths())
	}

	gadgets := []admissionregistrationv1.NamedRuleWithOperations{rule("typecheck.example.com", "v1", "gadgets")}
	exprs := []string{
		"object.spec.size > 3",
		"object.spec.sizee > 3",
		"object.spec.color == 1",
		"type(object.spec.port) == int",
		"object.spec.template.metadata.name != ''",
	}
	want := []string{"spec.validations[1].expression", "spec.validations[2].expression"}
	for i := range 20 {
		// Different policies: new contexts, new expressions.
		p := policy(gadgets, append(exprs, "object.metadata.name != 'p"+string(rune('a'+i))+"'")...)
		var fields []string
		for _, w := range c.ValidatingPolicy(p) {
			fields = append(fields, w.Field)
			if !strings.HasPrefix(w.Message, "typecheck.example.com/v1, Kind=Gadget: ERROR: ") {
				t.Errorf("%s: message %q", w.Field, w.Message)
			}
		}
		if diff := cmp.Diff(want, fields); diff != "" {
			t.Fatalf("policy %d: warnings (-want +got):\n%s", i, diff)
		}
	}
	if n := calls(); n != 1 {
		t.Errorf("live called %d times, want 1", n)
	}
	t.Logf("requests of the Checker: %v", requests.paths())
	for path, n := range requests.counts() {
		if n != 1 {
			t.Errorf("%s requested %d times, want once", path, n)
		}
	}
	if !slices.Contains(requests.paths(), "/openapi/v3/apis/typecheck.example.com/v1") {
		t.Errorf("no request of the group version's OpenAPI document: %v", requests.paths())
	}

	// Mutations are typed after the custom resource too; an embedded resource that keeps
	// unknown fields takes any.
	mp := mutatingPolicy(gadgets,
		"Object{spec: Object.spec{size: 3, color: 'red', port: 'http'}}",
		"Object{spec: Object.spec{template: Object.spec.template{anything: 1}}}",
		"Object{spec: Object.spec{sizee: 3}}",
	)
	if got := c.MutatingPolicy(mp); len(got) != 1 || got[0].Field != "spec.mutations[2].applyConfiguration.expression" {
		t.Errorf("mutating policy: want one warning on mutations[2], got %q", got)
	}
	if n := calls(); n != 1 {
		t.Errorf("live called %d times, want 1", n)
	}
	for path, n := range requests.counts() {
		if n != 1 {
			t.Errorf("%s requested %d times, want once", path, n)
		}
	}

	// The server's TypeChecker over the live discovery says the same.
	dc, err := discovery.NewDiscoveryClientForConfig(cp.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	groups, err := restmapper.GetAPIGroupResources(dc)
	if err != nil {
		t.Fatal(err)
	}
	server := &validating.TypeChecker{
		SchemaResolver: &resolver.ClientDiscoveryResolver{Discovery: dc},
		RestMapper:     restmapper.NewDiscoveryRESTMapper(groups),
	}
	p := policy(gadgets, exprs...)
	var serverSays []typecheck.Warning
	for _, w := range server.Check(p) {
		serverSays = append(serverSays, typecheck.Warning{Field: w.FieldRef, Message: w.Warning})
	}
	if diff := cmp.Diff(normalizeTypeNames(serverSays), normalizeTypeNames(c.ValidatingPolicy(p))); diff != "" {
		t.Errorf("(-server +ours):\n%s", diff)
	}
}

// createCRD creates a CustomResourceDefinition and waits until its group version is in
// discovery and in the OpenAPI v3 paths; it deletes it when the test ends.
func createCRD(t *testing.T, cfg *rest.Config, manifest, groupVersion, resource string) {
	t.Helper()
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(manifest), &obj); err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	crd := &unstructured.Unstructured{Object: obj}
	if _, err := dyn.Resource(crdResource).Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dyn.Resource(crdResource).Delete(ctx, crd.GetName(), metav1.DeleteOptions{}) })
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		resources, rerr := dc.ServerResourcesForGroupVersion(groupVersion)
		paths, perr := dc.OpenAPIV3().Paths()
		if rerr == nil && perr == nil && resources != nil && slices.ContainsFunc(resources.APIResources, func(r metav1.APIResource) bool { return r.Name == resource }) {
			if _, ok := paths["apis/"+groupVersion]; ok {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s %s not served after 60s (discovery: %v, openapi: %v)", groupVersion, resource, rerr, perr)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// countedLive is a live function that counts its calls.
func countedLive(cluster func() (*live.Reader, error)) (func() (*live.Reader, error), func() int) {
	var mu sync.Mutex
	n := 0
	return func() (*live.Reader, error) {
			mu.Lock()
			n++
			mu.Unlock()
			return cluster()
		}, func() int {
			mu.Lock()
			defer mu.Unlock()
			return n
		}
}

// requestLog counts the requests of a client by path.
type requestLog struct {
	mu sync.Mutex
	n  map[string]int
}

func (l *requestLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		l.mu.Lock()
		if l.n == nil {
			l.n = map[string]int{}
		}
		l.n[req.URL.Path]++
		l.mu.Unlock()
		return rt.RoundTrip(req)
	})
}

func (l *requestLog) counts() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]int{}
	for k, v := range l.n {
		out[k] = v
	}
	return out
}

func (l *requestLog) total() int {
	n := 0
	for _, v := range l.counts() {
		n += v
	}
	return n
}

func (l *requestLog) paths() []string {
	var out []string
	for k := range l.counts() {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
