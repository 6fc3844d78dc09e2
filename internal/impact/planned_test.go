package impact

import (
	"context"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// setLabel is a mutating policy (and its binding) that sets label key=value on deployments
// where key is absent.
func setLabel(name, key, value string) MutatingPair {
	return MutatingPair{
		Policy: &admissionregistrationv1.MutatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
				MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
						Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
					}}}},
				MatchConditions: []admissionregistrationv1.MatchCondition{{Name: "absent", Expression: "!has(object.metadata.labels) || !('" + key + "' in object.metadata.labels)"}},
				Mutations: []admissionregistrationv1.Mutation{{PatchType: admissionregistrationv1.PatchTypeApplyConfiguration,
					ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: `Object{metadata: Object.metadata{labels: {"` + key + `": "` + value + `"}}}`}}},
			}},
		Binding: &admissionregistrationv1.MutatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: name}},
	}
}

func requireLabel(key, value string) ValidatingPair {
	pair := maxReplicasPolicy(100, admissionregistrationv1.Deny)
	pair.Policy.Spec.Validations = []admissionregistrationv1.Validation{{
		Expression: "has(object.metadata.labels) && '" + key + "' in object.metadata.labels && object.metadata.labels['" + key + "'] == '" + value + "'"}}
	return pair
}

// A validating policy judges the writes as the mutating policies planned in the same run
// leave them; where their order decides, the object is apart with the orders named.
func TestValidatingAppliesThePlannedChain(t *testing.T) {
	c := fakeClusterWith(t, Bounds{MaxObjects: 10}, deployment("prod", "bare", 1, nil), deployment("prod", "tier-c", 1, map[string]any{"tier": "c"}))
	ctx := context.Background()
	if res := c.Validating(ctx, requireLabel("tier", "a"), nil, Options{}); res.Denied.Count != 2 {
		t.Fatalf("without the planned chain: %s", res)
	}
	a := setLabel("tier-a", "tier", "a")
	done := c.Plans().MutatingPolicy("tier-a", a.Policy)
	c.Plans().MutatingBinding("tier-a", a.Binding)
	done()
	if res := c.Validating(ctx, requireLabel("tier", "a"), nil, Options{}); refs(res.Denied) != "prod/tier-c" || res.CannotTell.Count != 0 {
		t.Fatalf("with tier-a planned: %s, denied %s", res, refs(res.Denied))
	}
	b := setLabel("tier-b", "tier", "b")
	done = c.Plans().MutatingPolicy("tier-b", b.Policy)
	c.Plans().MutatingBinding("tier-b", b.Binding)
	done()
	res := c.Validating(ctx, requireLabel("tier", "a"), nil, Options{})
	if refs(res.Denied) != "prod/tier-c" || refs(res.CannotTell) != "prod/bare" {
		t.Fatalf("with tier-a and tier-b planned: %s, denied %s, cannot tell %s", res, refs(res.Denied), refs(res.CannotTell))
	}
	why := res.CannotTell.First[0].CannotTell
	if !strings.Contains(why, "admitted after tier-a, tier-b") || !strings.Contains(why, "denied after tier-b, tier-a") {
		t.Errorf("the orders are not named: %s", why)
	}
	// The mutating impact of either warns of the order, naming the field.
	m := c.Mutating(ctx, a, Options{})
	if refs(m.OrderDependent) != "prod/bare" || !strings.Contains(m.OrderDependent.First[0].Message, "metadata.labels.tier") {
		t.Fatalf("order: %s %v", refs(m.OrderDependent), m.OrderDependent.First)
	}
	ws := m.MutatingWarnings(Report{Subject: `Binding "tier-a"`})
	found := false
	for _, w := range ws {
		found = found || w.Summary == SummaryOrder && strings.Contains(w.Message, "tier-b") && strings.Contains(w.Message, "  prod/bare: ")
	}
	if !found {
		t.Errorf("no order warning: %v", ws)
	}
	// A planned spec not known yet leaves the objects it may change apart.
	c.Plans().MutatingBinding("later", nil)
	if res := c.Validating(ctx, requireLabel("tier", "a"), nil, Options{}); res.CannotTell.Count != 2 ||
		!strings.Contains(res.CannotTell.First[0].CannotTell, "known only after apply") {
		t.Fatalf("with a binding not known: %s %v", res, res.CannotTell.First)
	}
}

// Two subjects of one run report each object of a list once.
func TestSubjectsNameEachObjectOnce(t *testing.T) {
	c := fakeClusterWith(t, Bounds{MaxObjects: 10}, deployment("prod", "big", 5, nil), deployment("prod", "huge", 9, nil))
	ctx := context.Background()
	first := c.Validating(ctx, maxReplicasPolicy(3, admissionregistrationv1.Deny), nil, Options{Subject: "P"})
	second := c.Validating(ctx, maxReplicasPolicy(3, admissionregistrationv1.Deny), nil, Options{Subject: "B"})
	if first.Denied.Count != 2 || len(first.Denied.First) != 2 || second.Denied.Count != 2 || len(second.Denied.First) != 0 || second.Denied.Elsewhere["P"] != 2 {
		t.Fatalf("first %+v, second %+v", first.Denied, second.Denied)
	}
	msg := second.Warnings(Report{Subject: "B"})[0].Message
	if !strings.Contains(msg, "would deny 2 of") || !strings.Contains(msg, "All 2 are named in the same list of P.") || strings.Contains(msg, "prod/big") {
		t.Errorf("the second: %s", msg)
	}
	// The same subject again (a plan answered twice) names them again.
	if again := c.Validating(ctx, maxReplicasPolicy(3, admissionregistrationv1.Deny), nil, Options{Subject: "P"}); len(again.Denied.First) != 2 {
		t.Errorf("again: %+v", again.Denied)
	}
}

// The wait for the plans beside: the quiet, and a mutating policy still planned without a
// binding, bounded.
func TestSettleWaitsForThePlansBeside(t *testing.T) {
	var p Plans
	p.Begin()
	began := time.Now()
	if note := p.settle(context.Background(), map[string]bool{}); note != "" || time.Since(began) < planQuiet-10*time.Millisecond {
		t.Fatalf("the quiet: %q after %s", note, time.Since(began))
	}
	done := p.MutatingPolicy("m", setLabel("m", "k", "v").Policy)
	go func() {
		time.Sleep(100 * time.Millisecond)
		p.MutatingBinding("m", setLabel("m", "k", "v").Binding)
		done()
	}()
	began = time.Now()
	if note := p.settle(context.Background(), map[string]bool{}); note != "" || time.Since(began) < 100*time.Millisecond {
		t.Fatalf("the binding: %q after %s", note, time.Since(began))
	}
	p.MutatingPolicy("lonely", setLabel("lonely", "k", "v").Policy)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if note := p.settle(ctx, map[string]bool{}); !strings.Contains(note, `"lonely"`) || !strings.Contains(note, "depends_on") {
		t.Errorf("in vain: %q", note)
	}
	if note := p.settle(context.Background(), map[string]bool{"lonely": true}); note != "" {
		t.Errorf("a binding in the cluster: %q", note)
	}
}
