package matching_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/live"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/matching"
)

// The built-in resources and subresources the matcher knows are those the local kube-apiserver
// serves: every one it serves is known with the same kind, and every one known in a group
// version it serves is served (it serves no alpha or beta version here, which the table has
// too). The live discovery gives the same equivalences as the built-in ones for what it serves.
func TestAccBuiltinSubresources(t *testing.T) {
	if cluster == nil {
		t.Skip("acceptance test: set TF_ACC=1 (make test does) to run it against a local kube-apiserver")
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cluster.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	_, lists, err := live.New(live.Clients{Discovery: dc}, live.Limits{Time: time.Minute}).GroupsAndResources(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	served := matching.DiscoveryServed(lists)
	builtin, err := matching.BuiltinServed()
	if err != nil {
		t.Fatal(err)
	}
	servedGV := map[schema.GroupVersion]bool{}
	for _, s := range served {
		servedGV[s.Resource.GroupVersion()] = true
		if !slices.Contains(builtin, s) {
			t.Errorf("the server serves %s %q (kind %s), which the built-in table lacks", s.Resource, s.Subresource, s.Kind)
		}
	}
	for _, s := range builtin {
		if servedGV[s.Resource.GroupVersion()] && !slices.Contains(served, s) {
			t.Errorf("the built-in table has %s %q (kind %s), which the server does not serve", s.Resource, s.Subresource, s.Kind)
		}
	}
	liveEq := matching.NewEquivalents(served...)
	builtinEq, err := matching.BuiltinEquivalents()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range served {
		got := matching.ServedAs(liveEq, s.Resource.GroupResource(), s.Subresource)
		var want []schema.GroupVersionResource
		for _, r := range matching.ServedAs(builtinEq, s.Resource.GroupResource(), s.Subresource) {
			if servedGV[r.GroupVersion()] {
				want = append(want, r)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s %q: served %v, built-in %v", s.Resource, s.Subresource, got, want)
		}
	}
}
