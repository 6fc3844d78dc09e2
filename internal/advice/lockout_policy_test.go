package advice

import (
	"strings"
	"testing"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/typecheck"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func lockoutVAP(groups, resources []string, operations ...string) *admissionregistrationv1.ValidatingAdmissionPolicy {
	return &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{Operations: ops(operations...),
					Rule: admissionregistrationv1.Rule{APIGroups: groups, APIVersions: []string{"*"}, Resources: resources}}}}},
			Validations: []admissionregistrationv1.Validation{{Expression: "true"}},
		},
	}
}

func TestPolicyLockout(t *testing.T) {
	deny := func(actions ...admissionregistrationv1.ValidationAction) *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
		return &admissionregistrationv1.ValidatingAdmissionPolicyBinding{Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName: "p", ValidationActions: actions}}
	}
	notInSystem := &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
		Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpNotIn, Values: []string{"kube-system"}}}}}
	cases := []struct {
		name    string
		policy  *admissionregistrationv1.ValidatingAdmissionPolicy
		binding *admissionregistrationv1.ValidatingAdmissionPolicyBinding
		want    []string
	}{
		// Nothing shows that the expression can fail in kube-system: no claim.
		{"deny on pods everywhere", lockoutVAP([]string{""}, []string{"pods"}, "CREATE"), deny(admissionregistrationv1.Deny), nil},
		{"deny on pods everywhere, a param missing there denies", withParams(lockoutVAP([]string{""}, []string{"pods"}, "CREATE")),
			func() *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
				b := deny(admissionregistrationv1.Deny)
				b.Spec.ParamRef = &admissionregistrationv1.ParamRef{Name: "limits", ParameterNotFoundAction: ptr(admissionregistrationv1.DenyAction)}
				return b
			}(), []string{SummaryPolicyFailClosedSystem}},
		{"deny on pods everywhere, a param missing there is allowed", withParams(lockoutVAP([]string{""}, []string{"pods"}, "CREATE")),
			func() *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
				b := deny(admissionregistrationv1.Deny)
				b.Spec.ParamRef = &admissionregistrationv1.ParamRef{Name: "limits", ParameterNotFoundAction: ptr(admissionregistrationv1.AllowAction)}
				return b
			}(), nil},
		{"deny on pods everywhere, a field pods lack", func() *admissionregistrationv1.ValidatingAdmissionPolicy {
			p := lockoutVAP([]string{""}, []string{"pods"}, "CREATE")
			p.Spec.Validations[0].Expression = "object.spec.replicas <= 3"
			typed(p)
			return p
		}(), deny(admissionregistrationv1.Deny), []string{SummaryPolicyFailClosedSystem}},
		{"warn only", lockoutVAP([]string{""}, []string{"pods"}, "CREATE"), deny(admissionregistrationv1.Warn, admissionregistrationv1.Audit), nil},
		{"policy fails open", func() *admissionregistrationv1.ValidatingAdmissionPolicy {
			p := lockoutVAP([]string{""}, []string{"pods"}, "CREATE")
			p.Spec.FailurePolicy = ptr(admissionregistrationv1.Ignore)
			return p
		}(), deny(admissionregistrationv1.Deny), nil},
		{"binding leaves out kube-system", lockoutVAP([]string{""}, []string{"pods"}, "CREATE"), func() *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
			b := deny(admissionregistrationv1.Deny)
			b.Spec.MatchResources = notInSystem
			return b
		}(), nil},
		{"policy's match condition leaves out kube-system", func() *admissionregistrationv1.ValidatingAdmissionPolicy {
			p := lockoutVAP([]string{""}, []string{"pods"}, "CREATE")
			p.Spec.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "c", Expression: "request.namespace != 'kube-system'"}}
			return p
		}(), deny(admissionregistrationv1.Deny), nil},
		{"policy unknown", nil, deny(admissionregistrationv1.Deny), nil},
		{"deployments, CREATE", func() *admissionregistrationv1.ValidatingAdmissionPolicy {
			p := lockoutVAP([]string{"apps"}, []string{"deployments"}, "CREATE", "UPDATE")
			p.Spec.Validations[0].Expression = "object.spec.replicass <= 3"
			typed(p)
			return p
		}(), deny(admissionregistrationv1.Deny), []string{SummaryPolicyFailClosedSystem}},
		{"cluster-scoped custom resources", lockoutVAP([]string{"example.com"}, []string{"widgets"}, "*"), deny(admissionregistrationv1.Deny), nil},
		{"node leases", lockoutVAP([]string{"coordination.k8s.io"}, []string{"leases"}, "UPDATE"), func() *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
			b := deny(admissionregistrationv1.Deny)
			b.Spec.MatchResources = notInSystem
			return b
		}(), []string{SummaryPolicyFailClosedNodes}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			var found []typecheck.Warning
			if tc.policy != nil {
				found = typecheck.New(nil).ValidatingPolicy(tc.policy)
			}
			ws := PolicyLockout(tc.policy, tc.binding, found)
			for _, w := range ws {
				got = append(got, w.Summary)
				if w.Path.String() != "spec.validationActions" || !strings.Contains(w.Message, `policy "p"`) {
					t.Errorf("got %s", w)
				}
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Fatalf("got %q, want %q: %v", got, tc.want, ws)
			}
		})
	}
}

func TestMutatingPolicyLockout(t *testing.T) {
	v := lockoutVAP([]string{""}, []string{"pods"}, "CREATE")
	p := &admissionregistrationv1.MutatingAdmissionPolicy{ObjectMeta: v.ObjectMeta,
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{MatchConstraints: v.Spec.MatchConstraints}}
	b := &admissionregistrationv1.MutatingAdmissionPolicyBinding{Spec: admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: "p"}}
	if ws := MutatingPolicyLockout(p, b); len(ws) != 1 || ws[0].Summary != SummaryPolicyFailClosedSystem || ws[0].Path.String() != "spec.matchResources" {
		t.Errorf("fail-closed: got %v", ws)
	}
	p.Spec.FailurePolicy = ptr(admissionregistrationv1.Ignore)
	if ws := MutatingPolicyLockout(p, b); len(ws) != 0 {
		t.Errorf("fail-open: got %v", ws)
	}
	p.Spec.FailurePolicy = nil
	b.Spec.MatchResources = &admissionregistrationv1.MatchResources{ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"opt-in": "yes"}}}
	if ws := MutatingPolicyLockout(p, b); len(ws) != 0 {
		t.Errorf("opt-in object selector: got %v", ws)
	}
}

// withParams gives p a param kind.
func withParams(p *admissionregistrationv1.ValidatingAdmissionPolicy) *admissionregistrationv1.ValidatingAdmissionPolicy {
	p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
	return p
}

// The warning names exactly the requests the rules reach, and what shows the policy can fail
// there: a Deny policy on deployments alone names deployments, not daemonsets.
func TestPolicyLockoutNamesOnlyWhatItIntercepts(t *testing.T) {
	p := lockoutVAP([]string{"apps"}, []string{"deployments"}, "CREATE")
	p.Spec.Validations[0].Expression = "object.spec.replicass <= 3"
	typed(p)
	b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
		PolicyName: "p", ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}}}
	ws := PolicyLockout(p, b, typecheck.New(nil).ValidatingPolicy(p))
	if len(ws) != 1 {
		t.Fatalf("got %v", ws)
	}
	m := ws[0].Message
	if !strings.Contains(m, "CREATE deployments in kube-system") || strings.Contains(m, "daemonsets") || strings.Contains(m, "pods") {
		t.Errorf("names other requests than the rules reach: %s", m)
	}
	if !strings.Contains(m, "spec.validations[0].expression does not type-check on Deployment") {
		t.Errorf("does not say why the policy can fail there: %s", m)
	}
}

// typed names version v1 in p's rules, which the type checker needs (as the server's, it
// checks no kind of a rule on every version).
func typed(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
	for i := range p.Spec.MatchConstraints.ResourceRules {
		p.Spec.MatchConstraints.ResourceRules[i].APIVersions = []string{"v1"}
	}
}
