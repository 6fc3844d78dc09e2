package advice

import (
	"context"
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/builtinapi"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/live"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

// SummaryExactBypass is the summary of the warning on matchPolicy Exact with other served
// versions.
const SummaryExactBypass = "Requests through other versions bypass match_policy Exact"

// Served tells the versions at which the cluster serves a resource, the preferred first;
// known is false when it cannot tell.
type Served func(gr schema.GroupResource) (versions []string, known bool)

// ServedVersions is Served from the cluster's discovery through r, and, when there is no
// cluster or its discovery cannot be read, from the embedded discovery of kube-apiserver's
// built-in resources (internal/builtinapi), which knows no custom resource. A
// discovery that could not be read is logged by the reader's callers elsewhere: a resource
// neither knows gives no claim.
func ServedVersions(ctx context.Context, r *live.Reader) Served {
	return func(gr schema.GroupResource) ([]string, bool) {
		if r != nil {
			if vs, err := r.ServedVersions(ctx, gr); err == nil {
				return vs, len(vs) > 0
			}
		}
		m, err := builtinapi.RESTMapper()
		if err != nil {
			return nil, false
		}
		vs := live.ServedVersionsIn(m, gr)
		return vs, len(vs) > 0
	}
}

// exactBypass lists the served versions that rules leave out, for matchPolicy Exact: a rule
// on a group and resource it names (no wildcard) at versions it names matches only requests at
// those versions (k8s.io/apiserver pkg/admission/plugin/webhook/generic Webhook.ShouldCallHook
// asks rules.Matcher on the request's own resource, and the EquivalentResourceMapper's other
// versions only with matchPolicy Equivalent; the policy matcher, pkg/admission/plugin/policy/
// matching, does the same), while the server serves the same objects
// at the other versions: a request through one of them is not sent to the webhook or policy.
// Source: the Kubernetes docs, "Admission Webhook Good Practices" and "Dynamic Admission
// Control", matchPolicy ("Exact ... a request to apps/v1beta1 or extensions/v1beta1 would not
// be sent to the webhook"). Words: "horizontalpodautoscalers.autoscaling at v1 (the rule names
// v2)".
func exactBypass(rules []admissionregistrationv1.RuleWithOperations, served Served) []string {
	var out []string
	for _, r := range rules {
		if slices.Contains(r.APIVersions, "*") {
			continue
		}
		for _, g := range r.APIGroups {
			if g == "*" {
				continue
			}
			for _, res := range r.Resources {
				base, _, _ := strings.Cut(res, "/")
				if strings.Contains(base, "*") {
					continue
				}
				gr := schema.GroupResource{Group: g, Resource: base}
				vs, known := served(gr)
				if !known {
					continue
				}
				var missed []string
				matchedAny := false
				for _, v := range vs {
					if slices.Contains(r.APIVersions, v) {
						matchedAny = true
					} else {
						missed = append(missed, v)
					}
				}
				// A rule that names no served version matches nothing there, which the
				// server's own warning on unknown versions is about, not this one.
				if !matchedAny || len(missed) == 0 {
					continue
				}
				name := gr.String()
				if res != base {
					name = res + " of " + name
				}
				s := fmt.Sprintf("%s at %s (the rule names %s)", name, strings.Join(missed, ", "), strings.Join(r.APIVersions, ", "))
				if !slices.Contains(out, s) {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// exactWarning words the bypassed versions of one webhook or policy.
func exactWarning(p *field.Path, subject string, bypass []string) warning.Warning {
	return warning.Warning{Path: p, Kind: warning.Bypass, Summary: SummaryExactBypass, Message: fmt.Sprintf(
		"%s has match_policy = \"Exact\", and the cluster serves what its rules match at other versions too: %s. "+
			"A request through one of those versions (a client or controller that uses it) "+
			"is not sent to it, and goes through unchecked. Use match_policy = \"Equivalent\" (the default: the server converts such requests "+
			"to the version the rule names), or add those versions to api_versions.", subject, strings.Join(bypass, "; "))}
}

// ExactBypass is the advice on the webhooks of obj (defaulted) with matchPolicy Exact whose
// rules leave out versions the cluster serves the matched resources at (exactBypass), at
// webhooks[i].matchPolicy.
func ExactBypass(obj *admissionregistrationv1.MutatingWebhookConfiguration, served Served) []warning.Warning {
	if obj == nil {
		return nil
	}
	var warnings []warning.Warning
	for i := range obj.Webhooks {
		h := &obj.Webhooks[i]
		if h.MatchPolicy == nil || *h.MatchPolicy != admissionregistrationv1.Exact {
			continue
		}
		if bypass := exactBypass(h.Rules, served); len(bypass) > 0 {
			warnings = append(warnings, exactWarning(field.NewPath("webhooks").Index(i).Child("matchPolicy"), fmt.Sprintf("The webhook %q", h.Name), bypass))
		}
	}
	return warnings
}

// PolicyExactBypass is the same advice on a policy's matchConstraints (defaulted), at
// spec.matchConstraints.matchPolicy; kind is "validating admission policy" or "mutating
// admission policy".
func PolicyExactBypass(kind string, constraints *admissionregistrationv1.MatchResources, served Served) []warning.Warning {
	if constraints == nil || constraints.MatchPolicy == nil || *constraints.MatchPolicy != admissionregistrationv1.Exact {
		return nil
	}
	var rules []admissionregistrationv1.RuleWithOperations
	for _, r := range constraints.ResourceRules {
		rules = append(rules, r.RuleWithOperations)
	}
	if bypass := exactBypass(rules, served); len(bypass) > 0 {
		return []warning.Warning{exactWarning(field.NewPath("spec", "matchConstraints", "matchPolicy"), "The "+kind, bypass)}
	}
	return nil
}
