package webhook_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/advice"
)

// reviewsConfig is a fail-closed webhook on token and subject access reviews.
func reviewsConfig(provider string) string {
	return provider + fmt.Sprintf(`
resource "admission_validating_webhook_configuration" "test" {
  metadata {
    name = %q
  }
  webhook {
    name                      = "reviews.example.com"
    admission_review_versions = ["v1"]
    side_effects              = "None"
    failure_policy            = "Fail"
    client_config {
      url = "https://webhook.example.com/reviews"
    }
    rule {
      operations   = ["CREATE"]
      api_groups   = ["authentication.k8s.io", "authorization.k8s.io"]
      api_versions = ["v1"]
      resources    = ["tokenreviews", "subjectaccessreviews"]
    }
  }
}
`, randomName())
}

// A fail-closed webhook on the review resources is a lockout for a 1.35 or 1.36 server
// (kubernetes_version), on failure_policy, and nothing for the local 1.37 server, whose
// version the provider asks, nor for kubernetes_version = "1.37".
func TestAccReviewResourcesByVersion(t *testing.T) {
	t.Parallel() // plans only
	for _, c := range []struct {
		version string
		want    int
	}{{"1.35", 1}, {"1.36", 1}, {"1.37", 0}, {"", 0}} {
		t.Run("version "+c.version, func(t *testing.T) {
			out := planFor(t, reviewsConfig(providerFor(t, c.version, false)))
			if !out.ok {
				t.Fatalf("the plan failed:\n%s", out.everything)
			}
			var got []string
			for _, d := range out.warnings {
				if d.Summary != advice.SummaryFailClosedReviews {
					continue
				}
				got = append(got, oneWord(d.Detail))
				if d.Snippet == nil || !strings.Contains(d.Snippet.Code, "failure_policy") {
					t.Errorf("not on failure_policy: %+v", d.Snippet)
				}
				if !strings.Contains(oneWord(d.Detail), "a Kubernetes "+c.version+" API server sends to webhooks") {
					t.Errorf("does not name the version: %s", oneWord(d.Detail))
				}
			}
			if len(got) != c.want {
				t.Errorf("want %d warnings on the reviews, got %d:\n%s", c.want, len(got), out.everything)
			}
			for _, g := range got {
				t.Log(g)
			}
		})
	}
}
