package advice

import (
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/admission"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/matching"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

// SummaryFailClosedReviews is the summary of the warning on webhooks that see the review
// resources.
const SummaryFailClosedReviews = "Fail-closed webhook intercepts the authentication and authorization reviews"

var (
	tokenReviewsGVR = schema.GroupVersionResource{Group: "authentication.k8s.io", Version: "v1", Resource: "tokenreviews"}
	accessReviewGVR = schema.GroupVersionResource{Group: "authorization.k8s.io", Version: "v1", Resource: "subjectaccessreviews"}
	metricsServer   = sa("kube-system", "metrics-server")
)

// reviewRequests are the review requests whose rejection takes the cluster's delegated
// authentication and authorization down. Sources: kubelets authenticate the requests to their
// API with TokenReviews and authorize them with SubjectAccessReviews (k8s.io/kubernetes
// pkg/kubelet/server/auth.go, the kubelet's --authentication-token-webhook and
// --authorization-mode=Webhook, which kubeadm sets); aggregated API servers such as
// metrics-server delegate both for every request they serve (k8s.io/apiserver
// pkg/authentication/authenticatorfactory DelegatingAuthenticatorConfig,
// pkg/authorization/authorizerfactory DelegatingAuthorizerConfig).
var reviewRequests = []criticalRequest{
	{harmSystem, "CREATE tokenreviews (by kubelets and aggregated API servers such as metrics-server, for every request they serve)",
		"kubelets cannot authenticate the requests to their API (kubectl logs, exec and port-forward, metrics scraping), and aggregated API servers reject every request, so kubectl top and the HorizontalPodAutoscalers stop",
		tokenReviewsGVR, "TokenReview", "", "", "", admission.Create, nodeUser},
	{harmSystem, "CREATE tokenreviews (by kubelets and aggregated API servers such as metrics-server, for every request they serve)",
		"kubelets cannot authenticate the requests to their API (kubectl logs, exec and port-forward, metrics scraping), and aggregated API servers reject every request, so kubectl top and the HorizontalPodAutoscalers stop",
		tokenReviewsGVR, "TokenReview", "", "", "", admission.Create, metricsServer},
	{harmSystem, "CREATE subjectaccessreviews (by kubelets and aggregated API servers, to authorize the requests they serve)",
		"kubelets and aggregated API servers cannot authorize the requests they serve, and reject them",
		accessReviewGVR, "SubjectAccessReview", "", "", "", admission.Create, nodeUser},
	{harmSystem, "CREATE subjectaccessreviews (by kubelets and aggregated API servers, to authorize the requests they serve)",
		"kubelets and aggregated API servers cannot authorize the requests they serve, and reject them",
		accessReviewGVR, "SubjectAccessReview", "", "", "", admission.Create, metricsServer},
}

// ReviewLockout is the advice on the fail-closed webhooks of obj (defaulted) that a
// kube-apiserver of version v calls for the review requests kubelets and aggregated API servers
// depend on (reviewRequests), at webhooks[i].failurePolicy: servers 1.31 to 1.36 send the
// review resources to webhooks, from 1.37 they do not (matching.WebhooksSeeReviews), and then
// the server's own warning says that such a rule has no effect (validation.ServerWarnings).
// version is asked only when a webhook would see them. A version that is not known is taken as
// the checks take a rule that only some supported servers enforce (validation.AtPlan): the
// warning says which versions it is about, and that the version was not known.
func ReviewLockout(obj *admissionregistrationv1.MutatingWebhookConfiguration, version func() validation.Version) []warning.Warning {
	if obj == nil {
		return nil
	}
	m, err := matching.New(matching.Config{Namespaces: matching.SyntheticNamespaces(), Version: validation.OldestSupported})
	if err != nil {
		return nil
	}
	hooks := matching.MutatingWebhooks(obj)
	hits := map[int][]criticalRequest{}
	for i := range obj.Webhooks {
		if !failsClosed(obj.Webhooks[i].FailurePolicy) {
			continue
		}
		for _, r := range reviewRequests {
			if hookCalled(m, hooks[i], r.attributes()) == called &&
				!slices.ContainsFunc(hits[i], func(o criticalRequest) bool { return o.what == r.what }) {
				hits[i] = append(hits[i], r)
			}
		}
	}
	if len(hits) == 0 {
		return nil
	}
	v := version()
	if v.Known() && !matching.WebhooksSeeReviews(v) {
		return nil
	}
	which := fmt.Sprintf("a Kubernetes %s API server sends to webhooks", v)
	note := ""
	if !v.Known() {
		which = fmt.Sprintf("API servers %s to 1.36 send to webhooks", validation.OldestSupported)
		note = " The provider does not know the version of the API server (set kubernetes_version in the provider configuration, " +
			"or let it reach the cluster): from 1.37 the server no longer sends these requests to webhooks, and this is no risk."
	}
	var warnings []warning.Warning
	for i := range obj.Webhooks {
		hit := hits[i]
		if len(hit) == 0 {
			continue
		}
		var whats, whys []string
		for _, r := range hit {
			whats = append(whats, r.what)
			if !slices.Contains(whys, r.why) {
				whys = append(whys, r.why)
			}
		}
		warnings = append(warnings, warning.Warning{Path: field.NewPath("webhooks").Index(i).Child("failurePolicy"), Kind: warning.Lockout,
			Summary: SummaryFailClosedReviews, Message: fmt.Sprintf(
				"failurePolicy Fail on a webhook that intercepts the authentication and authorization reviews, which %s "+
					"(from 1.37 it leaves them out, feature gate ExcludeAdmissionWebhookVirtualResources): %s. "+
					"While the webhook is unavailable, these are rejected: %s; "+
					"leave tokenreviews and subjectaccessreviews out of the rules, exclude them with a match condition, or use failurePolicy Ignore.%s",
				which, strings.Join(whats, "; "), strings.Join(whys, "; "), note)})
	}
	return warnings
}
