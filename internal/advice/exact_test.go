package advice

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// matchPolicy Exact on a resource kube-apiserver serves at several versions, told by the
// embedded discovery of the built-in resources (no cluster): the other versions are named, on
// match_policy; Equivalent, every version, a version named in full, a wildcard and a custom
// resource the embedded discovery does not know say nothing.
func TestExactBypass(t *testing.T) {
	served := ServedVersions(context.Background(), nil)
	hook := func(policy admissionregistrationv1.MatchPolicyType, groups, versions, resources []string) *mwc {
		o := valid()
		h := hook0(o)
		h.MatchPolicy = &policy
		h.Rules = []admissionregistrationv1.RuleWithOperations{{Operations: ops("CREATE"),
			Rule: admissionregistrationv1.Rule{APIGroups: groups, APIVersions: versions, Resources: resources}}}
		return o
	}
	exact, equivalent := admissionregistrationv1.Exact, admissionregistrationv1.Equivalent
	for _, c := range []struct {
		name string
		obj  *mwc
		says string
	}{
		{"hpa at v2", hook(exact, []string{"autoscaling"}, []string{"v2"}, []string{"horizontalpodautoscalers"}),
			"horizontalpodautoscalers.autoscaling at v1 (the rule names v2)"},
		{"hpa status at v1", hook(exact, []string{"autoscaling"}, []string{"v1"}, []string{"horizontalpodautoscalers/status"}),
			"horizontalpodautoscalers/status of horizontalpodautoscalers.autoscaling at v2 (the rule names v1)"},
		{"equivalent", hook(equivalent, []string{"autoscaling"}, []string{"v2"}, []string{"horizontalpodautoscalers"}), ""},
		{"both versions", hook(exact, []string{"autoscaling"}, []string{"v1", "v2"}, []string{"horizontalpodautoscalers"}), ""},
		{"every version", hook(exact, []string{"autoscaling"}, []string{"*"}, []string{"horizontalpodautoscalers"}), ""},
		{"pods", hook(exact, []string{""}, []string{"v1"}, []string{"pods"}), ""},
		{"every resource", hook(exact, []string{"*"}, []string{"v1"}, []string{"*"}), ""},
		{"a custom resource", hook(exact, []string{"example.com"}, []string{"v1"}, []string{"widgets"}), ""},
		{"no served version", hook(exact, []string{"autoscaling"}, []string{"v9"}, []string{"horizontalpodautoscalers"}), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws := ExactBypass(c.obj, served)
			if c.says == "" {
				if len(ws) != 0 {
					t.Errorf("want none, got %v", ws)
				}
				return
			}
			if len(ws) != 1 || ws[0].Path.String() != "webhooks[0].matchPolicy" || ws[0].Summary != SummaryExactBypass || ws[0].Kind.String() != "bypass" ||
				!strings.Contains(ws[0].Message, c.says) {
				t.Errorf("want one warning on matchPolicy saying %q, got %v", c.says, ws)
			}
		})
	}
	// A policy's match constraints, the same.
	p := &admissionregistrationv1.MatchResources{MatchPolicy: &exact, ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
		RuleWithOperations: hook0(hook(exact, []string{"autoscaling"}, []string{"v2"}, []string{"horizontalpodautoscalers"})).Rules[0]}}}
	if ws := PolicyExactBypass("validating admission policy", p, served); len(ws) != 1 || ws[0].Path.String() != "spec.matchConstraints.matchPolicy" ||
		!strings.Contains(ws[0].Message, "The validating admission policy has match_policy = \"Exact\"") {
		t.Errorf("policy: %v", ws)
	}
}

// The public projects' configurations (testdata/real): what the match policy rule says on each,
// offline; none of them uses Exact on a resource served at several versions.
func TestExactBypassRealConfigurations(t *testing.T) {
	served := ServedVersions(context.Background(), nil)
	exact := 0
	for name, obj := range realConfigurations(t) {
		for _, h := range obj.Webhooks {
			if *h.MatchPolicy == admissionregistrationv1.Exact {
				exact++
			}
		}
		if ws := ExactBypass(obj, served); len(ws) != 0 {
			t.Errorf("%s: %v", name, ws)
		}
	}
	// Gatekeeper's two webhooks are Exact, on every version.
	if exact != 2 {
		t.Errorf("%d webhooks with matchPolicy Exact in testdata/real, want gatekeeper's 2", exact)
	}
}

// The validating admission policies of public projects (testdata/real/policies): none is warned
// about its match policy, offline.
func TestExactBypassRealPolicies(t *testing.T) {
	files, err := filepath.Glob("testdata/real/policies/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("testdata/real/policies: %v", err)
	}
	served := ServedVersions(context.Background(), nil)
	for _, f := range files {
		policy, _ := readPolicy(t, f)
		policy = validation.DefaultValidatingPolicy(policy)
		if ws := PolicyExactBypass("validating admission policy", policy.Spec.MatchConstraints, served); len(ws) != 0 {
			t.Errorf("%s: %v", filepath.Base(f), ws)
		}
	}
}
