package validation

import (
	"fmt"
	"sync"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/celcompile/celtest"
)

// Policies validated at the same time, with and without variables, give the results they give
// one at a time: compositions are not shared while in use, and the caches hold results that do
// not depend on another policy's variables.
func TestPoliciesConcurrently(t *testing.T) {
	var policies []*vap
	for i := range 24 {
		p := validPolicy()
		switch i % 4 {
		case 1:
			p.Spec.Variables = []admissionregistrationv1.Variable{{Name: "n", Expression: fmt.Sprint(i)}}
			validation0(p).Expression = "variables.n > 3"
		case 2:
			p.Spec.Variables = []admissionregistrationv1.Variable{{Name: "n", Expression: "'text'"}}
			validation0(p).Expression = "variables.n > 3"
		case 3:
			validation0(p).Expression = "variables.n > 3"
		}
		policies = append(policies, p)
	}
	sequential := make([]string, len(policies))
	for i, p := range policies {
		sequential[i] = fmt.Sprint(ValidateValidatingPolicy(p))
	}
	celtest.ResetCache()
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for round := range 5 {
				for k := range policies {
					i := (k + w*7 + round) % len(policies)
					if got := fmt.Sprint(ValidateValidatingPolicy(policies[i])); got != sequential[i] {
						t.Errorf("policy %d: got %s, want %s", i, got, sequential[i])
					}
				}
			}
		})
	}
	wg.Wait()
	if sequential[1] != "[]" || sequential[2] == "[]" || sequential[3] == "[]" {
		t.Errorf("unexpected results: %q", sequential)
	}
}

// realisticPolicy is a ValidatingAdmissionPolicy of the kind people write: params, two match
// conditions, three variables, four validations with messages, an audit annotation.
func realisticPolicy() *vap {
	p := validPolicy()
	withParams(p)
	s := &p.Spec
	s.MatchConditions = celtest.RealisticConditions(2, 0)
	s.Variables = []admissionregistrationv1.Variable{
		{Name: "containers", Expression: "object.spec.template.spec.containers"},
		{Name: "limit", Expression: "int(params.data.maxReplicas)"},
		{Name: "registry", Expression: "params.?data.?registry.orValue('registry.example.com/')"},
	}
	s.Validations = []admissionregistrationv1.Validation{
		{Expression: "object.spec.replicas <= variables.limit", MessageExpression: "'at most ' + string(variables.limit) + ' replicas'"},
		{Expression: "variables.containers.all(c, c.image.startsWith(variables.registry))", Message: "images come from the registry"},
		{Expression: "variables.containers.all(c, has(c.resources) && has(c.resources.limits))", Reason: ptr(metav1.StatusReasonInvalid)},
		{Expression: "!has(object.spec.template.spec.hostNetwork) || !object.spec.template.spec.hostNetwork"},
	}
	s.AuditAnnotations = []admissionregistrationv1.AuditAnnotation{{Key: "replicas", ValueExpression: "string(object.spec.replicas)"}}
	return p
}

// BenchmarkValidatePolicy measures ValidateValidatingPolicy on a realistic policy: cold (as in a
// new provider process, compositions already built) and again (cached, as on the later calls
// of one Terraform run).
func BenchmarkValidatePolicy(b *testing.B) {
	p := realisticPolicy()
	if errs := ValidateValidatingPolicy(p); len(errs) > 0 {
		b.Fatal(errs)
	}
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			celtest.ResetCache()
			ValidateValidatingPolicy(p)
		}
	})
	b.Run("cached", func(b *testing.B) {
		for b.Loop() {
			ValidateValidatingPolicy(p)
		}
	})
}
