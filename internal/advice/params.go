package advice

import (
	"context"
	"errors"
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/live"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

// SummaryNoParams is the summary of the warning on a binding whose params do not exist.
const SummaryNoParams = "Binding denies every request it matches: its params do not exist"

// BoundPolicy is what ParamsWarnings reads of the policy a binding binds.
type BoundPolicy struct {
	// Kind is "validating admission policy" or "mutating admission policy"; Name the policy's.
	Kind, Name    string
	ParamKind     *admissionregistrationv1.ParamKind
	FailurePolicy *admissionregistrationv1.FailurePolicyType
	// Constraints are the policy's matchConstraints.
	Constraints *admissionregistrationv1.MatchResources
}

// ParamsWarnings is the advice on a binding with paramRef ref and matchResources binding, of
// policy, read from the cluster with r: with parameterNotFoundAction Deny and a policy that
// fails closed, when no params object is found, the server rejects every request the binding
// matches until one is created, with "failed to configure binding: no params found for policy
// binding with `Deny` parameterNotFoundAction" (k8s.io/apiserver
// pkg/admission/plugin/policy/generic CollectParams, then policyDispatcher.Dispatch, which
// rejects a binding's configuration error under failurePolicy Fail whatever the binding's
// validationActions). Sources of the outage: kubernetes/kubernetes#130887 and #134184. The
// warning is at spec.paramRef. Params that cannot be looked up (a param kind the cluster does
// not serve yet, as a custom resource made in the same apply) give nothing; a lookup that was
// forbidden or slow says so once per run (Kind Unread), never that the params are there. With
// a namespaced param kind and no namespace in ref, the server takes the params from each
// request's namespace: the warning is only for none in any namespace.
func ParamsWarnings(ctx context.Context, r *live.Reader, policy BoundPolicy, ref *admissionregistrationv1.ParamRef, binding *admissionregistrationv1.MatchResources) []warning.Warning {
	if r == nil || ref == nil || policy.ParamKind == nil || !failsClosed(policy.FailurePolicy) ||
		ref.ParameterNotFoundAction == nil || *ref.ParameterNotFoundAction != admissionregistrationv1.DenyAction ||
		policy.ParamKind.APIVersion == "" || policy.ParamKind.Kind == "" {
		return nil
	}
	p := field.NewPath("spec", "paramRef")
	params := r.Params(ctx, policy.ParamKind, ref)
	none, known := params.None()
	if !known {
		err := params.Err
		if err == nil {
			err = params.Listing.Stopped
		}
		var re *live.ReadError
		if errors.As(err, &re) && re.Failure == live.Failed {
			// The kind is not served (yet), or the server failed: the policy's own
			// checks speak of the kind; this one makes no claim.
			return nil
		}
		if err != nil && r.Report(err) {
			return []warning.Warning{{Path: p, Kind: warning.Unread, Summary: SummaryUnread, Message: fmt.Sprintf(
				"The plan could not check that the params of this binding exist (%s): %v. It makes no claim about them; "+
					"with parameter_not_found_action = \"Deny\" every request the binding matches is rejected while there are none. "+
					"The check needs to list %s.", params.Where(ref), err, params.Resource.GroupResource())}}
		}
		return nil
	}
	if !none {
		return nil
	}
	return []warning.Warning{{Path: p, Kind: warning.Outage, Summary: SummaryNoParams, Message: fmt.Sprintf(
		"The cluster has no %s, the params of this binding of the fail-closed %s %q, and its param_ref has "+
			"parameter_not_found_action = \"Deny\": until one exists, the API server rejects every request the binding matches (%s), "+
			"with the error: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction. "+
			"Create the params before the binding (when they are created in the same apply, refer to them through their resource, "+
			"such as name = kubernetes_config_map_v1.params.metadata[0].name: Terraform then creates them first, and this check waits), "+
			"or set parameter_not_found_action = \"Allow\". (This is the cluster as it is now, before the apply.)",
		params.Where(ref), policy.Kind, policy.Name, policyMatchedWords(policy.Constraints, binding))}}
}

// policyMatchedWords names what a policy bound with binding's matchResources matches:
// "CREATE, UPDATE of deployments.apps, in the namespaces the binding's namespace selector takes".
func policyMatchedWords(constraints, binding *admissionregistrationv1.MatchResources) string {
	var rules []admissionregistrationv1.RuleWithOperations
	if constraints != nil {
		for _, r := range constraints.ResourceRules {
			rules = append(rules, r.RuleWithOperations)
		}
	}
	s := "no request: the policy has no resource rule"
	if len(rules) > 0 {
		s = strings.Join(rulesWords(rules), "; ")
	}
	for _, c := range []struct {
		m     *admissionregistrationv1.MatchResources
		whose string
	}{{constraints, "the policy's"}, {binding, "the binding's"}} {
		if c.m == nil {
			continue
		}
		if sel := c.m.NamespaceSelector; sel != nil && len(sel.MatchLabels)+len(sel.MatchExpressions) > 0 {
			s += ", in the namespaces " + c.whose + " namespace selector takes"
		}
		if sel := c.m.ObjectSelector; sel != nil && len(sel.MatchLabels)+len(sel.MatchExpressions) > 0 {
			s += ", of the objects " + c.whose + " object selector takes"
		}
		if len(c.m.ResourceRules) > 0 && c.whose == "the binding's" {
			s += ", within the binding's resource rules (" + strings.Join(namedRulesWords(c.m.ResourceRules), "; ") + ")"
		}
		if len(c.m.ExcludeResourceRules) > 0 {
			s += ", less " + c.whose + " exclude_resource_rules"
		}
	}
	return s
}

func namedRulesWords(named []admissionregistrationv1.NamedRuleWithOperations) []string {
	var rules []admissionregistrationv1.RuleWithOperations
	for _, r := range named {
		rules = append(rules, r.RuleWithOperations)
	}
	return rulesWords(rules)
}
