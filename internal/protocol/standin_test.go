package protocol_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// standInAPIServer answers the requests of plans, applies and refreshes as
// an API server would, from the objects applied to it: a server-side apply
// stores the applied object with the metadata the server adds (a dry run
// stores nothing and answers a resourceVersion only for an object that
// exists), a GET answers the stored object or 404, a list the stored
// objects of the collection, a DELETE removes the object, /version is
// v1.37.2 and discovery knows the groups of the objects here. It starts with
// the policies that the generated bindings name (boundPolicies). Each server of
// a comparison has its own, makes the same requests and gets the same
// answers: it is a stand-in for the comparison of their answers, not for
// kube-apiserver, which the acceptance tests use.
func standInAPIServer(t testing.TB) (*httptest.Server, *atomic.Int64) {
	requests := &atomic.Int64{}
	var mu sync.Mutex
	stored := map[string][]byte{}
	for path, obj := range boundPolicies {
		stored[path] = []byte(obj)
	}
	notFound := []byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","reason":"NotFound","code":404}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		mu.Lock()
		defer mu.Unlock()
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
		if doc, ok := discovery[r.URL.Path]; ok {
			_, _ = w.Write([]byte(doc))
			return
		}
		switch {
		case r.Method == http.MethodPatch:
			var obj map[string]any
			if err := json.Unmarshal(body, &obj); err != nil {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			meta, _ := obj["metadata"].(map[string]any)
			if meta == nil {
				meta = map[string]any{}
				obj["metadata"] = meta
			}
			meta["uid"] = "00000000-0000-0000-0000-000000000001"
			meta["generation"] = 1
			meta["creationTimestamp"] = "2026-01-01T00:00:00Z"
			_, exists := stored[r.URL.Path]
			dryRun := r.URL.Query().Get("dryRun") != ""
			if exists || !dryRun {
				meta["resourceVersion"] = "7"
			}
			out, _ := json.Marshal(obj)
			if !dryRun {
				stored[r.URL.Path] = out
			}
			_, _ = w.Write(out)
		case r.Method == http.MethodDelete:
			delete(stored, r.URL.Path)
			_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success"}`))
		case r.Method == http.MethodGet && collection(parts):
			var keys []string
			for k := range stored {
				if strings.HasPrefix(k, r.URL.Path+"/") {
					keys = append(keys, k)
				}
			}
			sort.Strings(keys)
			items := make([]json.RawMessage, len(keys))
			for i, k := range keys {
				items[i] = stored[k]
			}
			out, _ := json.Marshal(map[string]any{"metadata": map[string]any{}, "items": items})
			_, _ = w.Write(out)
		case r.Method == http.MethodGet && stored[r.URL.Path] != nil:
			_, _ = w.Write(stored[r.URL.Path])
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write(notFound)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, requests
}

// collection reports whether the path parts name a collection
// (/api/v1/namespaces, /apis/g/v/things, .../namespaces/ns/things) rather
// than an object.
func collection(parts []string) bool {
	prefix := 2 // api, v1
	if len(parts) > 0 && parts[0] == "apis" {
		prefix = 3 // apis, group, version
	}
	return len(parts) > prefix && (len(parts)-prefix)%2 == 1
}

// discovery is what the stand-in answers at the paths of discovery.
var discovery = map[string]string{
	"/version": `{"major":"1","minor":"37","gitVersion":"v1.37.2","platform":"linux/amd64"}`,
	"/api":     `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[]}`,
	"/apis": `{"kind":"APIGroupList","apiVersion":"v1","groups":[` +
		`{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}},` +
		`{"name":"admissionregistration.k8s.io","versions":[{"groupVersion":"admissionregistration.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"admissionregistration.k8s.io/v1","version":"v1"}}]}`,
	"/api/v1": `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"v1","resources":[` +
		`{"name":"pods","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["create","get","list"]},` +
		`{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["create","get","list"]},` +
		`{"name":"namespaces","singularName":"namespace","namespaced":false,"kind":"Namespace","verbs":["create","get","list"]}]}`,
	"/apis/apps/v1": `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"apps/v1","resources":[` +
		`{"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment","verbs":["create","get","list"]}]}`,
	"/apis/admissionregistration.k8s.io/v1": `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"admissionregistration.k8s.io/v1","resources":[` +
		`{"name":"mutatingwebhookconfigurations","singularName":"mutatingwebhookconfiguration","namespaced":false,"kind":"MutatingWebhookConfiguration","verbs":["create","get","list","patch","delete"]},` +
		`{"name":"validatingwebhookconfigurations","singularName":"validatingwebhookconfiguration","namespaced":false,"kind":"ValidatingWebhookConfiguration","verbs":["create","get","list","patch","delete"]},` +
		`{"name":"validatingadmissionpolicies","singularName":"validatingadmissionpolicy","namespaced":false,"kind":"ValidatingAdmissionPolicy","verbs":["create","get","list","patch","delete"]},` +
		`{"name":"validatingadmissionpolicybindings","singularName":"validatingadmissionpolicybinding","namespaced":false,"kind":"ValidatingAdmissionPolicyBinding","verbs":["create","get","list","patch","delete"]},` +
		`{"name":"mutatingadmissionpolicies","singularName":"mutatingadmissionpolicy","namespaced":false,"kind":"MutatingAdmissionPolicy","verbs":["create","get","list","patch","delete"]},` +
		`{"name":"mutatingadmissionpolicybindings","singularName":"mutatingadmissionpolicybinding","namespaced":false,"kind":"MutatingAdmissionPolicyBinding","verbs":["create","get","list","patch","delete"]}]}`,
}

// boundPolicies are the policies named by the generated bindings' policy_name
// (generator.value), by path. A binding whose policy is in the cluster reads
// it and is judged against it; without it, each plan of a binding would wait
// for a plan of that policy in the same run, which never comes here
// (internal/policy awaitPlanned: about two seconds per plan, both servers
// alike, most of the comparison's time).
var boundPolicies = map[string]string{
	"/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/policy.example.com": `{"apiVersion":"admissionregistration.k8s.io/v1",` +
		`"kind":"ValidatingAdmissionPolicy","metadata":{"name":"policy.example.com","uid":"00000000-0000-0000-0000-000000000002","generation":1,` +
		`"resourceVersion":"3","creationTimestamp":"2026-01-01T00:00:00Z"},"spec":{"failurePolicy":"Fail","paramKind":{"apiVersion":"v1","kind":"ConfigMap"},` +
		`"matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"],"scope":"*"}],` +
		`"matchPolicy":"Equivalent","namespaceSelector":{},"objectSelector":{}},"validations":[{"expression":"object.metadata.name != ''"}]}}`,
	"/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies/policy.example.com": `{"apiVersion":"admissionregistration.k8s.io/v1",` +
		`"kind":"MutatingAdmissionPolicy","metadata":{"name":"policy.example.com","uid":"00000000-0000-0000-0000-000000000003","generation":1,` +
		`"resourceVersion":"3","creationTimestamp":"2026-01-01T00:00:00Z"},"spec":{"failurePolicy":"Fail","reinvocationPolicy":"Never",` +
		`"matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"],"scope":"*"}],` +
		`"matchPolicy":"Equivalent","namespaceSelector":{},"objectSelector":{}},` +
		`"mutations":[{"patchType":"ApplyConfiguration","applyConfiguration":{"expression":"Object{metadata: Object.metadata{labels: {'team': 'a'}}}"}}]}}`,
}
