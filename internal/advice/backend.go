package advice

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/live"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/matching"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

// The summaries of the warnings on a webhook's backend.
const (
	SummaryNoService  = "Webhook's service does not exist"
	SummaryNoPort     = "Webhook's service has no such port"
	SummaryNoEndpoint = "Webhook's service has no ready endpoint"
	SummaryUnread     = "Could not read the cluster for a check"
)

// BackendWarnings is the advice on the fail-closed webhooks of obj (defaulted) with a service
// client config, read from the cluster with r: when the API server, calling the webhook, finds
// no Service of that name, no port of that number on it, or no ready endpoint behind that port
// (live.Reader.Backend), it cannot call the webhook, and every request the webhook matches is
// rejected. The warning is at webhooks[i].clientConfig.service; it names the requests the
// webhook matches and, among them, those that keep the cluster alive (lockout.go). Sources:
// GKE's K8S_ADMISSION_WEBHOOK_UNAVAILABLE insight (no endpoints available for service),
// clusterlint checks/basic/admission_controller_webhook.go (a webhook configured against a
// service that does not exist), and the server's own resolution of a webhook's service
// (live.Reader.Backend).
//
// skip tells the webhooks to leave out (nil: none): those whose service and requests the apply
// does not change, and those it waits for (wait_for_endpoints), whose service the apply waits
// for, failing with what it waited for. A read that failed says
// so once per run (live.Reader.Report, Kind Unread), and nothing else: a cluster that cannot be
// reached at all gives nothing.
func BackendWarnings(ctx context.Context, r *live.Reader, obj *admissionregistrationv1.MutatingWebhookConfiguration, skip func(i int) bool) []warning.Warning {
	if r == nil || obj == nil {
		return nil
	}
	var warnings []warning.Warning
	var m *matching.Matcher
	var hooks []matching.Webhook
	for i := range obj.Webhooks {
		h := &obj.Webhooks[i]
		svc := h.ClientConfig.Service
		if svc == nil || !failsClosed(h.FailurePolicy) || svc.Namespace == "" || svc.Name == "" || (skip != nil && skip(i)) {
			continue
		}
		port := int32(443)
		if svc.Port != nil {
			port = *svc.Port
		}
		p := field.NewPath("webhooks").Index(i).Child("clientConfig", "service")
		b := r.Backend(ctx, svc.Namespace, svc.Name, port)
		if b.Err != nil {
			if r.Report(b.Err) {
				warnings = append(warnings, warning.Warning{Path: p, Kind: warning.Unread, Summary: SummaryUnread, Message: fmt.Sprintf(
					"The plan could not check that the service of the fail-closed webhook %q can be called: %v. "+
						"It makes no claim about it (nor about the other webhooks' services that it cannot read either); "+
						"the check needs to get services and list endpointslices in the service's namespace.", h.Name, b.Err)})
			}
			continue
		}
		var summary, missing, fix string
		name := fmt.Sprintf("%q in namespace %q", svc.Name, svc.Namespace)
		switch b.State {
		case live.BackendNoService:
			summary, missing = SummaryNoService, "its service "+name+" does not exist in the cluster"
			fix = "Create the Service and the webhook's server behind it before the webhook"
		case live.BackendNoPort:
			summary, missing = SummaryNoPort, fmt.Sprintf("its service %s has no port %d (it has %s)", name, port, servicePorts(b))
			fix = "Set port to the number of the Service's port that the webhook's server listens behind (the Service's port, not its target port)"
		case live.BackendNoEndpoint:
			summary, missing = SummaryNoEndpoint, fmt.Sprintf("its service %s has no ready endpoint for port %d: the webhook's server is not running or not ready", name, port)
			fix = "Start the webhook's server (check its pods and their readiness) before the webhook intercepts"
		default:
			continue
		}
		if m == nil {
			m, hooks = newMatcher(), matching.MutatingWebhooks(obj)
		}
		warnings = append(warnings, warning.Warning{Path: p, Kind: warning.Outage, Summary: summary, Message: fmt.Sprintf(
			"The webhook %q fails closed (failurePolicy Fail), and %s. The API server cannot call it, so it rejects every request the webhook matches "+
				"(%s)%s, with the error: failed calling webhook %q: %v. %s; if they are created in the same apply, set wait_for_endpoints = true so that "+
				"the apply waits for the service to have a ready endpoint before it writes the webhook; or use failurePolicy Ignore until the webhook serves. "+
				"(This is the cluster as it is now, before the apply.)",
			h.Name, missing, matchedWords(h), criticalWords(m, hooks[i], h), h.Name, b.Problem, fix)})
	}
	return warnings
}

// servicePorts lists the ports of the backend's service.
func servicePorts(b live.Backend) string {
	var ports []string
	for _, p := range b.Service.Spec.Ports {
		s := strconv.Itoa(int(p.Port))
		if p.Name != "" {
			s += " (" + p.Name + ")"
		}
		ports = append(ports, s)
	}
	if len(ports) == 0 {
		return "none"
	}
	return strings.Join(ports, ", ")
}

// rulesWords names what each rule matches: "CREATE, UPDATE of pods, deployments.apps".
func rulesWords(rs []admissionregistrationv1.RuleWithOperations) []string {
	var rules []string
	for _, r := range rs {
		var ops []string
		for _, op := range r.Operations {
			if op == admissionregistrationv1.OperationAll {
				ops = []string{"every operation"}
				break
			}
			ops = append(ops, string(op))
		}
		var resources []string
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				switch {
				case res == "*" && g == "*":
					res = "every resource"
				case g == "*":
					res += " of every API group"
				case res == "*" && g == "":
					res = "every resource of the core API group"
				case res == "*":
					res = "every resource of " + g
				case g != "":
					base, sub, ok := strings.Cut(res, "/")
					res = base + "." + g
					if ok {
						res += "/" + sub
					}
				}
				if !slices.Contains(resources, res) {
					resources = append(resources, res)
				}
			}
		}
		rules = append(rules, strings.Join(ops, ", ")+" of "+strings.Join(resources, ", "))
	}
	return rules
}

// matchedWords names what a webhook matches, from its rules and selectors: "CREATE, UPDATE of
// pods, deployments.apps in the namespaces its namespace selector takes".
func matchedWords(h *admissionregistrationv1.MutatingWebhook) string {
	rules := rulesWords(h.Rules)
	if len(rules) == 0 {
		return "no request: it has no rule"
	}
	s := strings.Join(rules, "; ")
	if sel := h.NamespaceSelector; sel != nil && len(sel.MatchLabels)+len(sel.MatchExpressions) > 0 {
		s += ", in the namespaces its namespace selector takes"
	}
	if sel := h.ObjectSelector; sel != nil && len(sel.MatchLabels)+len(sel.MatchExpressions) > 0 {
		s += ", of the objects its object selector takes"
	}
	if len(h.MatchConditions) > 0 {
		s += ", where its match conditions hold"
	}
	return s
}

// criticalWords names the requests that keep the cluster alive among those the webhook
// matches (the lockout check's probes), "" when it matches none.
func criticalWords(m *matching.Matcher, hook matching.Webhook, h *admissionregistrationv1.MutatingWebhook) string {
	var whats []string
	for _, r := range probesOf(h) {
		if hookCalled(m, hook, r.attributes()) == called && !slices.Contains(whats, r.what) {
			whats = append(whats, r.what)
		}
	}
	if len(whats) == 0 {
		return ""
	}
	return ", among them what keeps the cluster alive: " + strings.Join(whats, "; ")
}
