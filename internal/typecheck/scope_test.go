package typecheck

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The built-in resources' scope comes from the embedded discovery snapshot; a resource it does
// not hold is unknown, and LiveScopes without a cluster knows no more.
func TestBuiltinScopes(t *testing.T) {
	cases := []struct {
		gr                schema.GroupResource
		namespaced, known bool
	}{
		{schema.GroupResource{Resource: "pods"}, true, true},
		{schema.GroupResource{Resource: "nodes"}, false, true},
		{schema.GroupResource{Resource: "namespaces"}, false, true},
		{schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}, true, true},
		{schema.GroupResource{Group: "certificates.k8s.io", Resource: "certificatesigningrequests"}, false, true},
		{schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}, false, true},
		{schema.GroupResource{Group: "cert-manager.io", Resource: "certificates"}, false, false},
		{schema.GroupResource{Group: "cert-manager.io", Resource: "clusterissuers"}, false, false},
	}
	for _, s := range []*Scopes{BuiltinScopes(), LiveScopes(nil)} {
		for _, tc := range cases {
			namespaced, known := s.ResourceScope(tc.gr)
			if namespaced != tc.namespaced || known != tc.known {
				t.Errorf("%s: namespaced %v, known %v; want %v, %v", tc.gr, namespaced, known, tc.namespaced, tc.known)
			}
		}
	}
}
