package advice

import (
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// A fail-closed webhook on the review resources locks the cluster's delegated authentication
// out on 1.31 to 1.36, and is no risk from 1.37; with the version unknown the warning says so.
func TestReviewLockout(t *testing.T) {
	reviews := func(groups, resources []string) *mwc {
		o := lockoutHook(groups, resources, "CREATE")
		return o
	}
	auth := reviews([]string{"authentication.k8s.io", "authorization.k8s.io"}, []string{"tokenreviews", "subjectaccessreviews"})
	for _, c := range []struct {
		name     string
		obj      *mwc
		v        validation.Version
		want     int
		contains []string
	}{
		{"1.35", auth, validation.Minor(35), 1, []string{"a Kubernetes 1.35 API server sends to webhooks", "CREATE tokenreviews (by kubelets",
			"CREATE subjectaccessreviews", "kubelets cannot authenticate the requests to their API"}},
		{"1.31", auth, validation.Minor(31), 1, nil},
		{"older than supported", auth, validation.Minor(29), 1, []string{"a Kubernetes 1.29 API server"}},
		{"newer than supported", auth, validation.Minor(40), 0, nil},
		{"1.36", auth, validation.Minor(36), 1, nil},
		{"1.37", auth, validation.Minor(37), 0, nil},
		{"1.38", auth, validation.Minor(38), 0, nil},
		{"unknown", auth, validation.Version{}, 1, []string{"API servers 1.31 to 1.36 send to webhooks", "does not know the version"}},
		{"every resource", reviews([]string{"*"}, []string{"*"}), validation.Minor(34), 1, []string{"tokenreviews", "subjectaccessreviews"}},
		{"token reviews only", reviews([]string{"authentication.k8s.io"}, []string{"tokenreviews"}), validation.Minor(34), 1, nil},
		{"self reviews only", reviews([]string{"authorization.k8s.io"}, []string{"selfsubjectaccessreviews"}), validation.Minor(34), 0, nil},
		{"pods", reviews([]string{""}, []string{"pods"}), validation.Minor(34), 0, nil},
		{"ignore", func() *mwc {
			o := auth.DeepCopy()
			hook0(o).FailurePolicy = ptr(admissionregistrationv1.Ignore)
			return o
		}(), validation.Minor(34), 0, nil},
		{"an object selector", func() *mwc {
			o := auth.DeepCopy()
			hook0(o).ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"inject": "true"}}
			return o
		}(), validation.Minor(34), 0, nil},
		{"kubelets left out", func() *mwc {
			o := auth.DeepCopy()
			hook0(o).MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "people",
				Expression: "!('system:nodes' in request.userInfo.groups) && !request.userInfo.username.startsWith('system:serviceaccount:kube-system:')"}}
			return o
		}(), validation.Minor(34), 0, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws := ReviewLockout(c.obj, func() validation.Version { return c.v })
			if len(ws) != c.want {
				t.Fatalf("got %d warnings, want %d: %v", len(ws), c.want, ws)
			}
			for _, w := range ws {
				if w.Path.String() != "webhooks[0].failurePolicy" || w.Summary != SummaryFailClosedReviews || w.Kind.String() != "lockout" {
					t.Errorf("warning %v at %s", w.Summary, w.Path)
				}
				for _, s := range c.contains {
					if !strings.Contains(w.Message, s) {
						t.Errorf("no %q in %s", s, w.Message)
					}
				}
			}
		})
	}
}

// No webhook of the public projects' configurations (testdata/real) sees the review resources.
func TestReviewLockoutRealConfigurations(t *testing.T) {
	asked := false
	for name, obj := range realConfigurations(t) {
		for _, v := range []validation.Version{validation.Minor(31), validation.Minor(36), {}} {
			if ws := ReviewLockout(obj, func() validation.Version { asked = true; return v }); len(ws) != 0 {
				t.Errorf("%s at %s: %v", name, v, ws)
			}
		}
	}
	if asked {
		t.Error("the version is asked only when a webhook sees the reviews")
	}
	// Gatekeeper's webhook on every resource, made fail-closed, would see them before 1.37.
	gk := realConfigurations(t)["gatekeeper-validating.yaml"]
	gk.Webhooks[0].FailurePolicy = ptr(admissionregistrationv1.Fail)
	if ws := ReviewLockout(gk, func() validation.Version { return validation.Minor(36) }); len(ws) != 1 || ws[0].Path.String() != "webhooks[0].failurePolicy" {
		t.Errorf("gatekeeper fail-closed at 1.36: %v", ws)
	}
	if ws := ReviewLockout(gk, func() validation.Version { return validation.Minor(37) }); len(ws) != 0 {
		t.Errorf("gatekeeper fail-closed at 1.37: %v", ws)
	}
}
