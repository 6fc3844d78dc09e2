package advice

import (
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

// fakeScopes knows the scope of the resources it lists.
type fakeScopes map[schema.GroupResource]bool

func (f fakeScopes) ResourceScope(gr schema.GroupResource) (bool, bool) {
	n, ok := f[gr]
	return n, ok
}

func lockoutHook(groups, resources []string, operations ...string) *mwc {
	o := valid()
	h := hook0(o)
	h.FailurePolicy = ptr(admissionregistrationv1.Fail)
	h.NamespaceSelector = &metav1.LabelSelector{}
	h.Rules = []admissionregistrationv1.RuleWithOperations{{Operations: ops(operations...),
		Rule: admissionregistrationv1.Rule{APIGroups: groups, APIVersions: []string{"*"}, Resources: resources}}}
	return o
}

// summaries of the lockout warnings of o, in order.
func lockoutSummaries(o *mwc, scopes ScopeResolver, serial bool) []string {
	var out []string
	for _, w := range Advice(o, scopes, serial) {
		out = append(out, w.Summary)
	}
	return out
}

func TestLockout(t *testing.T) {
	notIn := func(ns ...string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
			Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpNotIn, Values: ns}}}
	}
	cond := func(expr string) func(o *mwc) {
		return func(o *mwc) {
			hook0(o).MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "c", Expression: expr}}
		}
	}
	cases := []struct {
		name      string
		groups    []string
		resources []string
		ops       []string
		mutate    func(o *mwc)
		want      []string // summaries, in order
		contains  string   // in the first message
	}{
		{"pods everywhere", []string{""}, []string{"pods"}, []string{"CREATE"}, nil,
			[]string{SummaryFailClosedSystem, SummaryFailClosedOwn}, "CREATE pods in kube-system"},
		{"pods, kube-system and own namespace excluded", []string{""}, []string{"pods"}, []string{"CREATE"},
			func(o *mwc) { hook0(o).NamespaceSelector = notIn("kube-system", "webhooks") }, nil, ""},
		{"failurePolicy Ignore", []string{""}, []string{"pods"}, []string{"CREATE"},
			func(o *mwc) { hook0(o).FailurePolicy = ptr(admissionregistrationv1.Ignore) }, nil, ""},
		{"opt-in object selector", []string{""}, []string{"pods"}, []string{"CREATE"},
			func(o *mwc) {
				hook0(o).ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"sidecar-injection": "enabled"}}
			}, nil, ""},
		{"opt-in object selector by Exists", []string{""}, []string{"pods"}, []string{"CREATE"},
			func(o *mwc) {
				hook0(o).ObjectSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
					Key: "inject", Operator: metav1.LabelSelectorOpExists}}}
			}, nil, ""},
		{"opt-out object selector still catches system pods, no claim about its own", []string{""}, []string{"pods"}, []string{"CREATE"},
			func(o *mwc) {
				hook0(o).ObjectSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
					Key: "app", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"webhook"}}}}
			}, []string{SummaryFailClosedSystem}, "kube-system"},
		{"match condition excludes kube-system", []string{""}, []string{"pods"}, []string{"CREATE"},
			func(o *mwc) {
				cond("request.namespace != 'kube-system'")(o)
				hook0(o).NamespaceSelector = notIn("webhooks")
			}, nil, ""},
		{"match condition excludes service accounts", []string{""}, []string{"pods"}, []string{"CREATE"},
			func(o *mwc) {
				cond("!request.userInfo.username.startsWith('system:')")(o)
			}, nil, ""},
		{"match condition that keeps system requests", []string{""}, []string{"pods"}, []string{"CREATE"},
			cond("request.operation == 'CREATE'"), []string{SummaryFailClosedSystem, SummaryFailClosedOwn}, ""},
		{"match condition that errors on the synthetic request: no claim", []string{""}, []string{"pods"}, []string{"CREATE"},
			cond("object.spec.containers.size() > 0"), nil, ""},
		{"match condition that needs the authorizer: no claim", []string{""}, []string{"pods"}, []string{"CREATE"},
			cond("authorizer.group('').resource('pods').check('create').allowed()"), nil, ""},
		{"node leases", []string{"coordination.k8s.io"}, []string{"leases"}, []string{"UPDATE"},
			func(o *mwc) { hook0(o).NamespaceSelector = notIn("kube-system") },
			[]string{SummaryFailClosedNodes}, "kube-node-lease"},
		{"node leases excluded by a match condition on the nodes group", []string{"coordination.k8s.io"}, []string{"leases"}, []string{"UPDATE"},
			func(o *mwc) {
				hook0(o).NamespaceSelector = notIn("kube-system")
				cond("!('system:nodes' in request.userInfo.groups)")(o)
			}, nil, ""},
		{"leases, CREATE only", []string{"coordination.k8s.io"}, []string{"leases"}, []string{"CREATE"}, nil, nil, ""},
		{"nodes/status", []string{""}, []string{"nodes/status"}, []string{"*"}, nil, []string{SummaryFailClosedNodes}, "nodes/status"},
		{"nodes, not the status", []string{""}, []string{"nodes"}, []string{"UPDATE"}, nil, []string{SummaryFailClosedNodes}, ""},
		{"certificate signing requests", []string{"certificates.k8s.io"}, []string{"certificatesigningrequests"}, []string{"CREATE"}, nil,
			[]string{SummaryFailClosedNodes}, "certificatesigningrequests"},
		{"cluster roles", []string{"rbac.authorization.k8s.io"}, []string{"clusterroles"}, []string{"CREATE", "UPDATE"}, nil,
			[]string{SummaryFailClosedRBAC}, "system:apiserver"},
		{"cluster roles, system user excluded", []string{"rbac.authorization.k8s.io"}, []string{"clusterroles"}, []string{"CREATE", "UPDATE"},
			cond("request.userInfo.username != 'system:apiserver'"), nil, ""},
		{"roles (namespaced) in other namespaces", []string{"rbac.authorization.k8s.io"}, []string{"roles"}, []string{"*"}, nil, nil, ""},
		{"cluster-scoped custom resources", []string{"cert-manager.io"}, []string{"clusterissuers"}, []string{"*"}, nil, nil, ""},
		{"every custom resource of a group", []string{"kyverno.io"}, []string{"*"}, []string{"*"}, nil, nil, ""},
		{"excluded resources", []string{"authentication.k8s.io", "authorization.k8s.io"}, []string{"*"}, []string{"*"}, nil, nil, ""},
		{"everything", []string{"*"}, []string{"*/*"}, []string{"*"}, nil,
			[]string{SummaryFailClosedSystem, SummaryFailClosedNodes, SummaryFailClosedRBAC, SummaryFailClosedOwn}, ""},
		{"everything, rule scope Namespaced", []string{"*"}, []string{"*"}, []string{"*"},
			func(o *mwc) { rule0(o).Scope = ptr(admissionregistrationv1.NamespacedScope) },
			[]string{SummaryFailClosedSystem, SummaryFailClosedNodes, SummaryFailClosedRBAC, SummaryFailClosedOwn}, ""},
		{"endpoints of default/kubernetes", []string{"", "discovery.k8s.io"}, []string{"endpoints", "endpointslices"}, []string{"UPDATE"},
			func(o *mwc) { hook0(o).NamespaceSelector = notIn("kube-system", "webhooks") }, []string{SummaryFailClosedRBAC}, "default/kubernetes"},
		{"services, CREATE, everywhere", []string{""}, []string{"services"}, []string{"CREATE"}, nil,
			[]string{SummaryFailClosedSystem}, "CREATE services in kube-system"},
		{"workloads in its own namespace only", []string{"apps"}, []string{"replicasets"}, []string{"CREATE"},
			func(o *mwc) { hook0(o).NamespaceSelector = notIn("kube-system") }, []string{SummaryFailClosedOwn}, "CREATE replicasets"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := lockoutHook(tc.groups, tc.resources, tc.ops...)
			if tc.mutate != nil {
				tc.mutate(o)
			}
			got := lockoutSummaries(o, nil, true)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Fatalf("got %q, want %q\n%v", got, tc.want, Advice(o, nil, true))
			}
			if tc.contains != "" {
				ws := Advice(o, nil, true)
				if ws[0].Path.String() != "webhooks[0].failurePolicy" || !strings.Contains(ws[0].Message, tc.contains) {
					t.Errorf("got %s, want at webhooks[0].failurePolicy containing %q", ws[0], tc.contains)
				}
			}
		})
	}
}

// The timeouts of the fail-closed webhooks one request calls in turn.
func TestLockoutTimeouts(t *testing.T) {
	// Three mutating webhooks on widgets, each 12 s, with namespace selectors that each let
	// one namespace through; none intercepts kube-system's critical requests.
	three := func() *mwc {
		o := valid()
		o.Webhooks = nil
		for i, ns := range []string{"team-a", "team-b", "team-c"} {
			h := *hook0(valid()).DeepCopy()
			h.Name = string(rune('a'+i)) + ".example.com"
			h.FailurePolicy = ptr(admissionregistrationv1.Fail)
			h.TimeoutSeconds = ptr(int32(12))
			h.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: ns}}
			h.Rules = []admissionregistrationv1.RuleWithOperations{{Operations: ops("CREATE"),
				Rule: admissionregistrationv1.Rule{APIGroups: []string{"example.com"}, APIVersions: []string{"v1"}, Resources: []string{"widgets"}}}}
			o.Webhooks = append(o.Webhooks, h)
		}
		return validation.Default(o)
	}
	widgets := schema.GroupResource{Group: "example.com", Resource: "widgets"}
	cases := []struct {
		name   string
		scopes ScopeResolver
		serial bool
		mutate func(o *mwc)
		warn   bool
	}{
		{"cluster-scoped: the selectors do not apply, all three on each request", fakeScopes{widgets: false}, true, nil, true},
		{"namespaced: one webhook per namespace", fakeScopes{widgets: true}, true, nil, false},
		{"scope unknown: no claim", fakeScopes{}, true, nil, false},
		{"no resolver: no claim", nil, true, nil, false},
		{"validating webhooks are called in parallel", fakeScopes{widgets: false}, false, nil, false},
		{"short timeouts", fakeScopes{widgets: false}, true, func(o *mwc) {
			for i := range o.Webhooks {
				o.Webhooks[i].TimeoutSeconds = ptr(int32(5))
			}
		}, false},
		{"one fails open", fakeScopes{widgets: false}, true, func(o *mwc) {
			o.Webhooks[1].FailurePolicy = ptr(admissionregistrationv1.Ignore)
		}, false},
		{"namespaced, one namespace for all", fakeScopes{widgets: true}, true, func(o *mwc) {
			for i := range o.Webhooks {
				o.Webhooks[i].NamespaceSelector = &metav1.LabelSelector{}
			}
		}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := three()
			if tc.mutate != nil {
				tc.mutate(o)
			}
			var got []warning.Warning
			for _, w := range Advice(o, tc.scopes, tc.serial) {
				if w.Summary == SummaryFailClosedTimeouts {
					got = append(got, w)
				} else {
					t.Errorf("unexpected warning %s", w)
				}
			}
			if tc.warn != (len(got) == 1) {
				t.Fatalf("warn = %v, got %v", tc.warn, got)
			}
			if tc.warn && (got[0].Path.String() != "webhooks[0].timeoutSeconds" || !strings.Contains(got[0].Message, "add up to 36 s")) {
				t.Errorf("got %s", got[0])
			}
		})
	}
}

// What the lockout check costs a plan: one webhook on pods with a match condition, which is
// compiled on each call (about 0.7 ms).
func BenchmarkLockoutAdvice(b *testing.B) {
	one := lockoutHook([]string{""}, []string{"pods"}, "CREATE")
	hook0(one).MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "c", Expression: "!request.userInfo.username.startsWith('system:')"}}
	b.Run("one webhook", func(b *testing.B) {
		for b.Loop() {
			Advice(one, nil, true)
		}
	})
}
