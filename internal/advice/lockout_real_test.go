package advice

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/typecheck"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// The lockout check on the webhook configurations of public projects (testdata/real, README
// there): the one that really can take a cluster down warns, the rest stay silent.
func TestLockoutRealConfigurations(t *testing.T) {
	// want is, per file, the lockout warnings expected: "<webhooks[i] name>: <summary>".
	want := map[string][]string{
		"cert-manager-validating.yaml":                 nil, // cert-manager's custom resources only
		"cert-manager-mutating.yaml":                   nil,
		"ingress-nginx-validating.yaml":                nil, // ingresses: nothing the cluster needs to stay up
		"istio-sidecar-injector.yaml":                  nil, // opt-in namespace label istio-injection=enabled
		"istio-validator.yaml":                         nil, // istio's custom resources, opt-in object label
		"vault-agent-injector.yaml":                    nil, // failurePolicy Ignore
		"linkerd-proxy-injector.yaml":                  nil, // kube-system excluded; its own pods left out by label
		"gatekeeper-validating.yaml":                   nil, // everything, but Ignore; the Fail one sees namespaces only
		"gatekeeper-mutating.yaml":                     nil, // Ignore
		"kubewarden-mutating.yaml":                     nil, // kubewarden's custom resources
		"kubewarden-validating.yaml":                   nil,
		"knative-defaulting.yaml":                      nil, // knative's custom resources
		"knative-validation.yaml":                      nil,
		"knative-config-validation.yaml":               nil, // configmaps in opted-in namespaces only
		"opentelemetry-operator-mutating.yaml":         nil, // custom resources; pods with Ignore
		"opentelemetry-operator-validating.yaml":       nil,
		"kube-prometheus-stack-mutating.yaml":          nil, // prometheusrules only
		"kube-prometheus-stack-validating.yaml":        nil,
		"aws-load-balancer-controller-validating.yaml": nil, // custom resources and ingresses
		// Fail-closed on every Service in every namespace (the object selector only leaves
		// out the controller's own): kube-dns's in kube-system.
		"aws-load-balancer-controller-mutating.yaml": {"mservice.elbv2.k8s.aws: " + SummaryFailClosedSystem},
	}
	files, err := filepath.Glob("testdata/real/*.yaml")
	if err != nil || len(files) != len(want) {
		t.Fatalf("testdata/real holds %d files (%v), want %d", len(files), err, len(want))
	}
	perRule := map[string]int{}
	hooks := 0
	for _, f := range files {
		name := filepath.Base(f)
		expected, ok := want[name]
		if !ok {
			t.Errorf("%s: no expectation", name)
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var head struct{ Kind string }
		if err := yaml.Unmarshal(data, &head); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// Both kinds as the provider checks them: a validating configuration in the mutating
		// type (its fields are a subset), called in parallel.
		js, err := yaml.YAMLToJSON(data)
		if err != nil {
			t.Fatal(err)
		}
		obj := &admissionregistrationv1.MutatingWebhookConfiguration{}
		if err := json.Unmarshal(js, obj); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		hooks += len(obj.Webhooks)
		if errs := validation.Offline(validation.WebhookCheck(validation.Default(obj.DeepCopy()), nil)); len(errs) != 0 {
			t.Errorf("%s: not a valid configuration: %v", name, errs)
		}
		serial := head.Kind == "MutatingWebhookConfiguration"
		var got []string
		for _, w := range Advice(validation.Default(obj), typecheck.BuiltinScopes(), serial) {
			if !strings.HasPrefix(w.Summary, "Fail-closed") {
				continue
			}
			perRule[w.Summary]++
			i := 0
			if w.Path.String() != "" {
				// webhooks[i].failurePolicy
				s := strings.TrimPrefix(w.Path.String(), "webhooks[")
				for _, c := range s {
					if c < '0' || c > '9' {
						break
					}
					i = i*10 + int(c-'0')
				}
			}
			got = append(got, obj.Webhooks[i].Name+": "+w.Summary)
			t.Logf("%s: %s", name, w)
		}
		sort.Strings(got)
		sort.Strings(expected)
		if strings.Join(got, "\n") != strings.Join(expected, "\n") {
			t.Errorf("%s: got\n  %s\nwant\n  %s", name, strings.Join(got, "\n  "), strings.Join(expected, "\n  "))
		}
	}
	t.Logf("%d configurations, %d webhooks; warnings per rule: %v", len(files), hooks, perRule)
}

// The lockout check on the validating admission policies of public projects, with their
// bindings (testdata/real/policies): all Deny and fail closed, none reaches what keeps the
// cluster alive.
func TestLockoutRealPolicies(t *testing.T) {
	files, err := filepath.Glob("testdata/real/policies/*.yaml")
	if err != nil || len(files) != 5 {
		t.Fatalf("testdata/real/policies holds %d files (%v), want 5", len(files), err)
	}
	for _, f := range files {
		policy, binding := readPolicy(t, f)
		if ws := PolicyLockout(policy, binding, typecheck.New(nil).ValidatingPolicy(policy)); len(ws) != 0 {
			t.Errorf("%s: %v", filepath.Base(f), ws)
		}
	}
	// KubeVirt's policy is silent because of its match condition (virt-handler's updates of
	// nodes only): without it, it would catch the kubelets' own.
	policy, binding := readPolicy(t, "testdata/real/policies/kubevirt-node-restriction.yaml")
	policy.Spec.MatchConditions = nil
	ws := PolicyLockout(policy, binding, nil)
	if len(ws) != 1 || ws[0].Summary != SummaryPolicyFailClosedNodes || !strings.Contains(ws[0].Message, "UPDATE nodes (by kubelets)") || strings.Contains(ws[0].Message, "nodes/status") {
		t.Errorf("without its match condition: %v", ws)
	}
}

func readPolicy(t *testing.T, file string) (*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(string(data), "\n---\n")
	if len(docs) != 2 {
		t.Fatalf("%s: %d documents, want a policy and its binding", file, len(docs))
	}
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
	if err := yaml.UnmarshalStrict([]byte(docs[0]), policy); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if err := yaml.UnmarshalStrict([]byte(docs[1]), binding); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if policy.Kind != "ValidatingAdmissionPolicy" || binding.Spec.PolicyName != policy.Name {
		t.Fatalf("%s: not a policy and its binding", file)
	}
	if errs := validation.Offline(validation.ValidatingPolicyCheck(validation.DefaultValidatingPolicy(policy), nil)); len(errs) != 0 {
		t.Errorf("%s: the policy is not valid: %v", file, errs)
	}
	return policy, binding
}

// The silence above comes from the settings each project chose: changed, the same
// configurations warn.
func TestLockoutRealVariants(t *testing.T) {
	cases := []struct {
		file   string
		change func(o *admissionregistrationv1.MutatingWebhookConfiguration)
		want   []string
	}{
		{"vault-agent-injector.yaml", func(o *admissionregistrationv1.MutatingWebhookConfiguration) {
			o.Webhooks[0].FailurePolicy = ptr(admissionregistrationv1.Fail)
		}, []string{SummaryFailClosedSystem, SummaryFailClosedOwn}},
		{"linkerd-proxy-injector.yaml", func(o *admissionregistrationv1.MutatingWebhookConfiguration) {
			o.Webhooks[0].NamespaceSelector.MatchExpressions = o.Webhooks[0].NamespaceSelector.MatchExpressions[:1]
		}, []string{SummaryFailClosedSystem}},
		{"gatekeeper-validating.yaml", func(o *admissionregistrationv1.MutatingWebhookConfiguration) {
			o.Webhooks[0].FailurePolicy = ptr(admissionregistrationv1.Fail)
		}, []string{SummaryFailClosedSystem, SummaryFailClosedNodes, SummaryFailClosedRBAC}},
		{"istio-sidecar-injector.yaml", func(o *admissionregistrationv1.MutatingWebhookConfiguration) {
			o.Webhooks[0].NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
				Key: "istio-injection", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"disabled"}}}}
		}, []string{SummaryFailClosedSystem, SummaryFailClosedOwn}},
		{"aws-load-balancer-controller-mutating.yaml", func(o *admissionregistrationv1.MutatingWebhookConfiguration) {
			o.Webhooks[2].NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
				Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpNotIn, Values: []string{"kube-system"}}}}
		}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			js, err := yaml.YAMLToJSON(mustRead(t, "testdata/real/"+tc.file))
			if err != nil {
				t.Fatal(err)
			}
			o := &admissionregistrationv1.MutatingWebhookConfiguration{}
			if err := json.Unmarshal(js, o); err != nil {
				t.Fatal(err)
			}
			o = validation.Default(o)
			tc.change(o)
			var got []string
			for _, w := range Advice(o, typecheck.BuiltinScopes(), false) {
				if strings.HasPrefix(w.Summary, "Fail-closed") {
					got = append(got, w.Summary)
				}
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func mustRead(t *testing.T, file string) []byte {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
