package protocol_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// standInAPIServer answers the requests of a plan and an apply the way an
// API server with no object of any name would, without keeping anything:
// a server-side apply (dry run or not) answers the applied object with the
// metadata the server adds (none of it stored: a dry run answers no
// resourceVersion, as for a new object), a GET of an object 404, a list an
// empty list, a DELETE success, /version v1.37.2. Both servers of a
// comparison make the same requests and get the same answers: it is a
// stand-in for the comparison of their answers, not for kube-apiserver,
// which the acceptance tests use.
func standInAPIServer(t testing.TB) (*httptest.Server, *atomic.Int64) {
	requests := &atomic.Int64{}
	notFound := []byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","reason":"NotFound","code":404}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
		switch {
		case r.URL.Path == "/version":
			_, _ = w.Write([]byte(`{"major":"1","minor":"37","gitVersion":"v1.37.2","platform":"linux/amd64"}`))
		case r.URL.Path == "/api":
			_, _ = w.Write([]byte(`{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[]}`))
		case r.URL.Path == "/apis":
			_, _ = w.Write([]byte(`{"kind":"APIGroupList","apiVersion":"v1","groups":[` +
				`{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}},` +
				`{"name":"admissionregistration.k8s.io","versions":[{"groupVersion":"admissionregistration.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"admissionregistration.k8s.io/v1","version":"v1"}}]}`))
		case r.URL.Path == "/api/v1":
			_, _ = w.Write([]byte(`{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"v1","resources":[` +
				`{"name":"pods","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["create","get","list"]},` +
				`{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["create","get","list"]},` +
				`{"name":"namespaces","singularName":"namespace","namespaced":false,"kind":"Namespace","verbs":["create","get","list"]}]}`))
		case r.URL.Path == "/apis/admissionregistration.k8s.io/v1":
			_, _ = w.Write([]byte(`{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"admissionregistration.k8s.io/v1","resources":[` +
				`{"name":"mutatingwebhookconfigurations","singularName":"mutatingwebhookconfiguration","namespaced":false,"kind":"MutatingWebhookConfiguration","verbs":["create","get","list","patch","delete"]},` +
				`{"name":"validatingwebhookconfigurations","singularName":"validatingwebhookconfiguration","namespaced":false,"kind":"ValidatingWebhookConfiguration","verbs":["create","get","list","patch","delete"]}]}`))
		case r.URL.Path == "/apis/apps/v1":
			_, _ = w.Write([]byte(`{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"apps/v1","resources":[` +
				`{"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment","verbs":["create","get","list"]}]}`))
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
			if r.URL.Query().Get("dryRun") == "" {
				meta["resourceVersion"] = "7"
			}
			out, _ := json.Marshal(obj)
			_, _ = w.Write(out)
		case r.Method == http.MethodDelete:
			_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success"}`))
		case r.Method == http.MethodGet && collection(parts):
			_, _ = w.Write([]byte(`{"metadata":{},"items":[]}`))
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
