package builtinapi

import (
	"bytes"
	"os"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/discovery"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest/controlplane"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/builtinapi/snapshot"
)

// cluster is the local control plane of the acceptance tests (TF_ACC set), started as the
// snapshot's generator starts it: with every built-in group version served, and no custom
// resource.
var cluster *controlplane.ControlPlane

func TestMain(m *testing.M) {
	os.Exit(controlplane.RunTests(m, "builtinapi", controlplane.Options{ExtraAPIServerFlags: snapshot.APIServerFlags}, &cluster))
}

// TestAccBuiltinIsFresh takes the snapshot again from the live kube-apiserver and fails when the
// embedded one differs, so that it cannot go stale when tools/kube-apiserver moves on.
func TestAccBuiltinIsFresh(t *testing.T) {
	if cluster == nil {
		t.Skip("acceptance test: set TF_ACC=1 (make test does) to run it against a local kube-apiserver")
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cluster.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	live, err := snapshot.Take(dc)
	if err != nil {
		t.Fatal(err)
	}
	embedded, err := snapshot.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	const regenerate = "the embedded snapshot is stale: run `go generate ./internal/builtinapi` and commit builtin.json.gz"
	if live.ServerVersion != embedded.ServerVersion {
		t.Errorf("server version %s, embedded %s: %s", live.ServerVersion, embedded.ServerVersion, regenerate)
	}
	if diff := cmp.Diff(embedded.Groups, live.Groups); diff != "" {
		t.Errorf("discovery (-embedded +live):\n%s\n%s", diff, regenerate)
	}
	if diff := schemaDiff(embedded.Schemas, live.Schemas); len(diff) > 0 {
		t.Errorf("%d schemas differ: %v\n%s", len(diff), diff[:min(len(diff), 20)], regenerate)
	}
}

// schemaDiff names the schemas added, removed or changed from a to b.
func schemaDiff[M ~map[string]V, V ~[]byte](a, b M) []string {
	var out []string
	for name, s := range a {
		if t, ok := b[name]; !ok {
			out = append(out, "-"+name)
		} else if !bytes.Equal(s, t) {
			out = append(out, "~"+name)
		}
	}
	for name := range b {
		if _, ok := a[name]; !ok {
			out = append(out, "+"+name)
		}
	}
	slices.Sort(out)
	return out
}
