package differential

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	admissionclient "k8s.io/client-go/kubernetes/typed/admissionregistration/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/simulate"
)

// validations are the expressions a generated policy draws from: over the
// object, the old object, the request, params, the namespace, variables and
// the authorizer; some fail to evaluate on some objects (no spec on a
// ConfigMap, no params), so that the failure policy is exercised.
var validations = []string{
	"object.metadata.name.startsWith('app') || object.metadata.name.startsWith('web')",
	"!has(object.metadata.labels) || !('team' in object.metadata.labels) || object.metadata.labels['team'] != 'b'",
	"object.spec.replicas <= 4",
	"object.spec.replicas <= int(params.data.max)",
	"size(object.data) < 3",
	"request.operation == 'CREATE' || object.metadata.labels == oldObject.metadata.labels",
	"request.userInfo.username == 'writer'",
	"request.dryRun",
	"namespaceObject.metadata.labels['env'] == 'prod'",
	"has(namespaceObject.metadata.labels) && 'env' in namespaceObject.metadata.labels",
	"variables.tier != 'frontend'",
	"authorizer.group('').resource('secrets').namespace(object.metadata.namespace).check('get').allowed()",
	"authorizer.group('apps').resource('deployments').namespace(object.metadata.namespace).check('create').allowed()",
	"object.metadata.name.startsWith(params.data.prefix)",
	"!has(object.metadata.annotations) || object.metadata.annotations['owner'] == 'alice'",
	"oldObject == null || oldObject.metadata.name == object.metadata.name",
}

var messageExpressions = []string{
	"'name ' + object.metadata.name + ' is not allowed'",
	"'in namespace ' + namespaceObject.metadata.name",
	"''",
	"'max is ' + params.data.max",
	"string(object.spec.replicas) + ' replicas'", // fails on a ConfigMap: the message falls back
}

var matchConditions = []string{
	"has(object.metadata.labels) && 'tier' in object.metadata.labels",
	"request.namespace != 'sim-bare'",
	"object.kind == 'Deployment'",
	"params.data.max == '3'",
	"object.spec.replicas > 2",
}

func (g *generator) selector(keys ...string) *metav1.LabelSelector {
	s := &metav1.LabelSelector{}
	if g.chance(0.5) {
		return s
	}
	k := g.pick(keys...)
	switch g.r.IntN(4) {
	case 0:
		s.MatchLabels = map[string]string{k: g.pick("a", "b", "prod", "dev", "true")}
	case 1:
		s.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: k, Operator: metav1.LabelSelectorOpIn, Values: []string{g.pick("a", "prod", "true"), g.pick("b", "dev")}}}
	case 2:
		s.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: k, Operator: metav1.LabelSelectorOpNotIn, Values: []string{g.pick("a", "prod", "sim-dev")}}}
	default:
		s.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: k, Operator: metav1.LabelSelectorOperator(g.pick("Exists", "DoesNotExist"))}}
	}
	return s
}

func (g *generator) rules(operations ...string) []admissionregistrationv1.NamedRuleWithOperations {
	var out []admissionregistrationv1.NamedRuleWithOperations
	for i := 0; i < 1+g.r.IntN(2); i++ {
		var r admissionregistrationv1.NamedRuleWithOperations
		switch g.r.IntN(6) {
		case 0, 5:
			r.APIGroups, r.APIVersions, r.Resources = []string{"*"}, []string{"*"}, []string{"*"}
		case 1:
			r.APIGroups, r.APIVersions, r.Resources = []string{""}, []string{"v1"}, []string{"configmaps"}
		case 2:
			r.APIGroups, r.APIVersions, r.Resources = []string{"apps"}, []string{"v1"}, []string{"deployments"}
		case 3:
			r.APIGroups, r.APIVersions, r.Resources = []string{"apps", ""}, []string{"*"}, []string{"deployments", "configmaps"}
		default:
			r.APIGroups, r.APIVersions, r.Resources = []string{"*"}, []string{"v1"}, []string{g.pick("*/scale", "deployments/*", "pods")}
		}
		r.Operations = []admissionregistrationv1.OperationType{admissionregistrationv1.OperationType(g.pick(operations...))}
		if op := admissionregistrationv1.OperationType(g.pick(operations...)); g.chance(0.3) && op != "*" && r.Operations[0] != "*" && op != r.Operations[0] {
			r.Operations = append(r.Operations, op)
		}
		if g.chance(0.2) {
			scope := admissionregistrationv1.ScopeType(g.pick("Namespaced", "Cluster"))
			r.Scope = &scope
		}
		out = append(out, r)
	}
	return out
}

// validatingCase is one generated validating admission policy and binding,
// with its requests.
type validatingCase = policyCase[*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding]

// validatingClients are the clients of the validating cases' kinds.
func validatingClients(a admissionclient.AdmissionregistrationV1Interface) (objectClient[*admissionregistrationv1.ValidatingAdmissionPolicy], objectClient[*admissionregistrationv1.ValidatingAdmissionPolicyBinding]) {
	return a.ValidatingAdmissionPolicies(), a.ValidatingAdmissionPolicyBindings()
}

func (g *generator) validatingCase(i int) *validatingCase {
	label := fmt.Sprintf("v%d", i)
	name := fmt.Sprintf("sim-v%d", i)
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name}}
	fp := admissionregistrationv1.FailurePolicyType(g.pick("Fail", "Ignore"))
	p.Spec.FailurePolicy = &fp
	mp := admissionregistrationv1.MatchPolicyType(g.pick("Equivalent", "Exact"))
	p.Spec.MatchConstraints = &admissionregistrationv1.MatchResources{
		ResourceRules:     g.rules("CREATE", "UPDATE", "*"),
		MatchPolicy:       &mp,
		NamespaceSelector: g.selector("env", "team", "kubernetes.io/metadata.name"),
		// The case label keeps the other cases' requests away.
		ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"sim-case": label}},
	}
	if g.chance(0.2) {
		p.Spec.MatchConstraints.ExcludeResourceRules = []admissionregistrationv1.NamedRuleWithOperations{{
			RuleWithOperations: admissionregistrationv1.RuleWithOperations{
				Operations: []admissionregistrationv1.OperationType{"UPDATE"},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
			}}}
	}
	hasParams := g.chance(0.4)
	if hasParams {
		p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
	}
	p.Spec.Variables = []admissionregistrationv1.Variable{{Name: "tier", Expression: "has(object.metadata.labels) && 'tier' in object.metadata.labels ? object.metadata.labels['tier'] : ''"}}
	if g.chance(0.3) {
		p.Spec.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "only", Expression: g.pick(matchConditions...)}}
	}
	for j := 0; j < 1+g.r.IntN(3); j++ {
		v := admissionregistrationv1.Validation{Expression: g.pick(validations...)}
		switch g.r.IntN(4) {
		case 0:
			v.Message = "validation " + fmt.Sprint(j) + " failed"
		case 1:
			v.MessageExpression = g.pick(messageExpressions...)
		case 2:
			v.Message, v.MessageExpression = "fallback message", g.pick(messageExpressions...)
		}
		if g.chance(0.4) {
			reason := metav1.StatusReason(g.pick("Forbidden", "Invalid", "RequestEntityTooLarge"))
			v.Reason = &reason
		}
		p.Spec.Validations = append(p.Spec.Validations, v)
	}
	if !hasParams {
		// Expressions over params do not compile without a paramKind, and
		// the server rejects such a policy.
		for j := range p.Spec.Validations {
			v := &p.Spec.Validations[j]
			if strings.Contains(v.Expression, "params") {
				v.Expression = "object.metadata.name != 'forbidden'"
			}
			if strings.Contains(v.MessageExpression, "params") {
				v.MessageExpression = "'no params'"
			}
		}
		for j := range p.Spec.MatchConditions {
			if strings.Contains(p.Spec.MatchConditions[j].Expression, "params") {
				p.Spec.MatchConditions[j].Expression = "true"
			}
		}
	}
	b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: name}}
	b.Spec.PolicyName = name
	b.Spec.ValidationActions = map[int][]admissionregistrationv1.ValidationAction{
		0: {"Deny"}, 1: {"Warn"}, 2: {"Deny", "Audit"}, 3: {"Warn", "Audit"}, 4: {"Deny"},
	}[g.r.IntN(5)]
	if g.chance(0.4) {
		b.Spec.MatchResources = &admissionregistrationv1.MatchResources{
			NamespaceSelector: g.selector("env", "team"),
			ObjectSelector:    g.selector("team", "tier", "inject"),
		}
	}
	if hasParams {
		action := admissionregistrationv1.ParameterNotFoundActionType(g.pick("Allow", "Deny"))
		ref := &admissionregistrationv1.ParamRef{ParameterNotFoundAction: &action}
		switch g.r.IntN(4) {
		case 0:
			ref.Name = "limits"
		case 1:
			ref.Name, ref.Namespace = g.pick("limits", "strict", "missing"), g.pick("sim-prod", "default")
		case 2:
			ref.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"limits": "yes"}}
		default:
			ref.Selector, ref.Namespace = &metav1.LabelSelector{MatchLabels: map[string]string{"strict": "yes"}}, "sim-prod"
		}
		b.Spec.ParamRef = ref
	}
	c := &validatingCase{policy: p, binding: b, clients: validatingClients}
	for j := 0; j < 10; j++ {
		c.requests = append(c.requests, &request{object: g.object(label, j)})
	}
	return c
}

func TestValidatingAgainstAPIServer(t *testing.T) {
	w := setup(t)
	ctx := context.Background()
	start := time.Now()
	d := install(t, ctx, w, start, newGenerator(1), 70, (*generator).validatingCase)

	matched, denied, warned := 0, 0, 0
	d.compare(t, func(c *validatingCase, r *request, sr *simulate.Request) answers {
		off, err := simulate.Validate(ctx, c.policy, c.binding, sr)
		if err != nil {
			t.Fatal(err)
		}
		if off.Matched {
			matched++
		}
		if !off.Allowed {
			denied++
		}
		if len(off.Warnings) > 0 {
			warned++
		}
		var srv serverAnswer
		return answers{
			ask: func() { srv = w.send(ctx, r) },
			same: func() bool {
				return srv.allowed == off.Allowed && srv.message == off.Message && sameStrings(srv.warnings, off.Warnings)
			},
			disagreement: func() string {
				return fmt.Sprintf("%s, %s %s/%s (update %v):\n  offline: allowed %v message %q warnings %q\n  server:  allowed %v message %q warnings %q\n  policy: %s\n  binding: %s",
					c.policy.Name, r.object.GetKind(), r.object.GetNamespace(), r.object.GetName(), r.old != nil,
					off.Allowed, short(off.Message), off.Warnings, srv.allowed, short(srv.message), srv.warnings, jsonString(c.policy.Spec), jsonString(c.binding.Spec))
			},
		}
	})
	d.report(t, "validating policy requests agree on verdict, message and warnings", "policies",
		fmt.Sprintf("%d matched, %d denied, %d warned", matched, denied, warned))
}
