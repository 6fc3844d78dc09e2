package differential

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/advice"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// The mistakes the plan now reports that it let through before, and those it hints at, as
// the server judges them: a dry-run create of each.

func deploymentsRule() []v1.NamedRuleWithOperations {
	return []v1.NamedRuleWithOperations{{RuleWithOperations: v1.RuleWithOperations{
		Operations: []v1.OperationType{v1.Create},
		Rule:       v1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
	}}}
}

// serverCauses is the fields of the causes of the server's rejection of a dry-run create, nil
// when it accepts.
func serverCauses(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var status apierrors.APIStatus
	if !apierrors.IsInvalid(err) || !errors.As(err, &status) || status.Status().Details == nil {
		t.Fatalf("not a rejection with causes: %v", err)
	}
	var fields []string
	for _, c := range status.Status().Details.Causes {
		fields = append(fields, c.Field+": "+c.Message)
	}
	return fields
}

func ourFields(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Field+": "+e.ErrorBody())
	}
	return out
}

func TestHintCasesAgainstAPIServer(t *testing.T) {
	cs, _ := policyClient(t)
	ctx := context.Background()
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	vapOf := func(name string, edit func(*vap)) *vap {
		p := &vap{ObjectMeta: metav1.ObjectMeta{Name: name}}
		p.Spec.MatchConstraints = &v1.MatchResources{ResourceRules: deploymentsRule()}
		p.Spec.Validations = []v1.Validation{{Expression: "object.spec.replicas <= 5"}}
		edit(p)
		return validation.DefaultValidatingPolicy(p)
	}
	mapOf := func(name string, edit func(*map_)) *map_ {
		p := &map_{ObjectMeta: metav1.ObjectMeta{Name: name}}
		p.Spec.ReinvocationPolicy = v1.NeverReinvocationPolicy
		p.Spec.MatchConstraints = &v1.MatchResources{ResourceRules: deploymentsRule()}
		p.Spec.Mutations = []v1.Mutation{{PatchType: v1.PatchTypeJSONPatch, JSONPatch: &v1.JSONPatch{
			Expression: `[JSONPatch{op: "replace", path: "/spec/replicas", value: 3}]`}}}
		edit(p)
		return validation.DefaultMutatingPolicy(p)
	}
	vaps := []struct {
		name      string
		p         *vap
		wantField string
	}{
		{"neither validations nor audit annotations", vapOf("none.example.com", func(p *vap) { p.Spec.Validations = nil }), "spec.validations"},
		{"empty matchConstraints", vapOf("empty.example.com", func(p *vap) { p.Spec.MatchConstraints = &v1.MatchResources{} }), "spec.matchConstraints.resourceRules"},
		{"params without paramKind", vapOf("params.example.com", func(p *vap) {
			p.Spec.Validations[0].Expression = "object.spec.replicas <= int(params.data.max)"
		}), "spec.validations[0].expression"},
	}
	for _, c := range vaps {
		t.Run(c.name, func(t *testing.T) {
			_, err := cs.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, c.p, dryRun)
			server := serverCauses(t, err)
			ours := ourFields(validation.ValidateValidatingPolicy(c.p))
			if !slices.ContainsFunc(server, func(s string) bool { return strings.HasPrefix(s, c.wantField+": ") }) {
				t.Errorf("the server does not reject %s: %v", c.wantField, server)
			}
			if !slices.Equal(server, ours) {
				t.Errorf("server %q, ours %q", server, ours)
			}
		})
	}
	maps := []struct {
		name      string
		p         *map_
		wantField string // "" when the server accepts it
		warnings  int    // JSONPatchPathWarnings
	}{
		{"no mutations", mapOf("none.example.com", func(p *map_) { p.Spec.Mutations = nil }), "spec.mutations", 0},
		{"empty matchConstraints", mapOf("empty.example.com", func(p *map_) { p.Spec.MatchConstraints = &v1.MatchResources{} }), "spec.matchConstraints.resourceRules", 0},
		{"a JSON patch path that is not a JSON pointer", mapOf("path.example.com", func(p *map_) {
			p.Spec.Mutations[0].JSONPatch.Expression = `[JSONPatch{op: "replace", path: "spec/replicas", value: 3}]`
		}), "", 1},
		{"a JSON pointer", mapOf("pointer.example.com", func(*map_) {}), "", 0},
	}
	for _, c := range maps {
		t.Run(c.name, func(t *testing.T) {
			_, err := cs.AdmissionregistrationV1().MutatingAdmissionPolicies().Create(ctx, c.p, dryRun)
			server := serverCauses(t, err)
			ours := ourFields(validation.ValidateMutatingPolicy(c.p))
			if c.wantField == "" && len(server) != 0 {
				t.Errorf("the server rejects it: %v", server)
			}
			if c.wantField != "" && !slices.ContainsFunc(server, func(s string) bool { return strings.HasPrefix(s, c.wantField+": ") }) {
				t.Errorf("the server does not reject %s: %v", c.wantField, server)
			}
			if !slices.Equal(server, ours) {
				t.Errorf("server %q, ours %q", server, ours)
			}
			if got := len(advice.JSONPatchPathWarnings(c.p)); got != c.warnings {
				t.Errorf("%d JSON patch path warnings, want %d", got, c.warnings)
			}
		})
	}
}
