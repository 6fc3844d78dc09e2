package webhook

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
)

// TestDeleteWaitsOnlyForWhatIsLeft checks what a delete asks the server
// after the DELETE: nothing when the answer says the object is gone (a
// Status "Success"), and GETs until it is gone when the answer is the object
// itself, marked for deletion (finalizers).
func TestDeleteWaitsOnlyForWhatIsLeft(t *testing.T) {
	for _, c := range []struct {
		name       string
		finalizers bool
		wantGets   int
	}{{"removed at once", false, 0}, {"kept by finalizers", true, 2}} {
		t.Run(c.name, func(t *testing.T) {
			var gets atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				switch r.Method {
				case http.MethodDelete:
					if c.finalizers {
						obj := &mwc{
							TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"},
							ObjectMeta: metav1.ObjectMeta{Name: "a", Finalizers: []string{"example.com/keep"}, DeletionTimestamp: &metav1.Time{Time: time.Now()}},
						}
						_ = json.NewEncoder(w).Encode(obj)
						return
					}
					_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"a"}}`))
				case http.MethodGet:
					if gets.Add(1) < 2 {
						_, _ = w.Write([]byte(`{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingWebhookConfiguration","metadata":{"name":"a","finalizers":["example.com/keep"],"deletionTimestamp":"2026-01-01T00:00:00Z"}}`))
						return
					}
					w.WriteHeader(http.StatusNotFound)
					_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","reason":"NotFound","code":404}`))
				default:
					w.WriteHeader(http.StatusMethodNotAllowed)
				}
			}))
			defer srv.Close()
			client, err := kube.NewClient(&rest.Config{Host: srv.URL}, kube.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := mutating.API.Objects(client).Delete(ctx, "a"); err != nil {
				t.Fatal(err)
			}
			if got := int(gets.Load()); got != c.wantGets {
				t.Fatalf("%d GETs after the DELETE, want %d", got, c.wantGets)
			}
		})
	}
}
