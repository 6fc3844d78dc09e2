package simulate

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	"k8s.io/apiserver/pkg/authorization/union"
)

// AuthorizerRule is one thing the authorizer of a request allows. An empty
// field, or "*", matches anything. The authorizer denies every check that no
// rule allows, as RBAC does with no binding.
type AuthorizerRule struct {
	User        string
	Groups      []string
	Verb        string
	APIGroup    string
	Resource    string
	Subresource string
	Namespace   string
	Name        string
	Path        string
}

func parseAuthorizer(v any) ([]AuthorizerRule, error) {
	if v == nil {
		return nil, nil
	}
	l, ok := v.([]any)
	if !ok {
		return nil, inputErr("authorizer", "want a list of rules (verb, api_group, resource, subresource, namespace, name, path, user)")
	}
	var out []AuthorizerRule
	for i, e := range l {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, inputErr(fmt.Sprintf("authorizer[%d]", i), "want an object")
		}
		for k := range m {
			switch k {
			case "user", "groups", "verb", "api_group", "resource", "subresource", "namespace", "name", "path":
			default:
				return nil, inputErr(fmt.Sprintf("authorizer[%d].%s", i, k), "unknown field; the fields are user, groups, verb, api_group, resource, subresource, namespace, name, path")
			}
		}
		r := AuthorizerRule{User: str(m["user"]), Verb: str(m["verb"]), APIGroup: str(m["api_group"]), Resource: str(m["resource"]),
			Subresource: str(m["subresource"]), Namespace: str(m["namespace"]), Name: str(m["name"]), Path: str(m["path"])}
		if g, ok := m["groups"].([]any); ok {
			for _, x := range g {
				r.Groups = append(r.Groups, str(x))
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// ruleAuthorizer answers the checks of CEL's authorizer from the rules.
type ruleAuthorizer []AuthorizerRule

var _ authorizer.Authorizer = ruleAuthorizer(nil)

func (rules ruleAuthorizer) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	for _, r := range rules {
		if r.allows(a) {
			return authorizer.DecisionAllow, "allowed by a rule of the request's authorizer", nil
		}
	}
	return authorizer.DecisionDeny, "no rule of the request's authorizer allows it", nil
}

// ConditionsAwareAuthorize is Authorize: the rules have no conditions.
func (rules ruleAuthorizer) ConditionsAwareAuthorize(ctx context.Context, a authorizer.Attributes) authorizer.ConditionsAwareDecision {
	return authorizer.ConditionsAwareDecisionFromParts(rules.Authorize(ctx, a))
}

// EvaluateConditions is never asked: the rules make no conditional decision.
func (ruleAuthorizer) EvaluateConditions(context.Context, authorizer.ConditionsAwareDecision, authorizer.ConditionsData) (authorizer.Decision, string, error) {
	return authorizer.DecisionDeny, "", authorizer.ErrorConditionEvaluationNotSupported
}

// requestAuthorizer is the authorizer of a request's checks, as kube-apiserver chains its own
// (k8s.io/kubernetes pkg/kubeapiserver/authorizer Config.New): the privileged group
// system:masters is allowed everything first (k8s.io/apiserver pkg/authorization/authorizerfactory
// NewPrivilegedGroups), then the request's rules decide, in place of the cluster's RBAC.
func requestAuthorizer(rules []AuthorizerRule) (authorizer.Authorizer, error) {
	return union.New(
		union.NamedAuthorizer{AuthorizerName: "privileged-groups", Authorizer: authorizerfactory.NewPrivilegedGroups(user.SystemPrivilegedGroup)},
		union.NamedAuthorizer{AuthorizerName: "rules", Authorizer: ruleAuthorizer(rules)},
	)
}

func (r AuthorizerRule) allows(a authorizer.Attributes) bool {
	any := func(want, got string) bool { return want == "" || want == "*" || want == got }
	if u := a.GetUser(); u != nil {
		if !any(r.User, u.GetName()) {
			return false
		}
		for _, g := range r.Groups {
			if !slices.Contains(u.GetGroups(), g) {
				return false
			}
		}
	}
	if !any(r.Verb, a.GetVerb()) {
		return false
	}
	if !a.IsResourceRequest() {
		return r.Resource == "" && r.APIGroup == "" && any(r.Path, a.GetPath())
	}
	return r.Path == "" && any(r.APIGroup, a.GetAPIGroup()) && any(r.Resource, a.GetResource()) &&
		any(r.Subresource, a.GetSubresource()) && any(r.Namespace, a.GetNamespace()) && any(r.Name, a.GetName())
}
