package kube

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/rest"
)

// The version is asked for once per client, whatever the number of callers, and a failure is
// kept as well: a plan of many objects against a cluster it cannot reach waits once.
func TestServerVersionAskedOnce(t *testing.T) {
	for _, status := range []int{http.StatusOK, http.StatusForbidden} {
		var requests atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			requests.Add(1)
			if r.URL.Path != "/version" {
				t.Errorf("request to %s", r.URL.Path)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			if status == http.StatusOK {
				_, _ = w.Write([]byte(`{"major":"1","minor":"33","gitVersion":"v1.33.2"}`))
			} else {
				_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403}`))
			}
		}))
		c, err := NewClient(&rest.Config{Host: srv.URL}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				info, err := c.ServerVersion(context.Background())
				if (err == nil) != (status == http.StatusOK) || err == nil && info.GitVersion != "v1.33.2" {
					t.Errorf("status %d: %v, %v", status, info, err)
				}
			})
		}
		wg.Wait()
		srv.Close()
		if n := requests.Load(); n != 1 {
			t.Errorf("status %d: %d requests, want 1", status, n)
		}
	}
	if _, err := NotReady(ErrNotReady).ServerVersion(context.Background()); err == nil {
		t.Error("a client that is not ready asked")
	}
}
