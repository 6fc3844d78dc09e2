package typecheck

import (
	"os"
	"strconv"
	"sync"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/builtinapi"
)

// benchPolicy is a policy of three validations on the resources given; n makes its
// expressions differ from those of another n, so no result is cached.
func benchPolicy(n int, rules ...admissionregistrationv1.NamedRuleWithOperations) *admissionregistrationv1.ValidatingAdmissionPolicy {
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{}
	p.Spec.MatchConstraints = &admissionregistrationv1.MatchResources{ResourceRules: rules}
	for _, e := range []string{
		"object.spec.replicass > " + strconv.Itoa(n),
		"object.metadata.name.size() < " + strconv.Itoa(n+63),
		"has(object.metadata.labels) && object.metadata.labels.size() > " + strconv.Itoa(n),
	} {
		p.Spec.Validations = append(p.Spec.Validations, admissionregistrationv1.Validation{Expression: e})
	}
	return p
}

func benchRule(group string, resources ...string) admissionregistrationv1.NamedRuleWithOperations {
	return admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{"v1"}, Resources: resources},
	}}
}

var (
	benchDeployments = []admissionregistrationv1.NamedRuleWithOperations{benchRule("apps", "deployments")}
	benchFiveKinds   = []admissionregistrationv1.NamedRuleWithOperations{
		benchRule("", "pods"), benchRule("apps", "deployments", "statefulsets", "daemonsets"), benchRule("batch", "jobs"),
	}
)

// BenchmarkValidatingPolicy measures one ValidatingPolicy call of a policy of three validations:
//
//	first: in a new process: the embedded snapshot decoded, the kinds resolved and typed;
//	warm: a Checker that has checked policies on the same kinds before: their CEL types are
//	  kept, but every expression is new;
//	new-variables: as warm, but the policy's variables differ, so its kinds are typed again;
//	repeat: the same policy again (Terraform may check it more than once).
func BenchmarkValidatingPolicy(b *testing.B) {
	for _, kinds := range []struct {
		name  string
		rules []admissionregistrationv1.NamedRuleWithOperations
	}{{"deployments", benchDeployments}, {"five-kinds", benchFiveKinds}} {
		data := builtinSnapshot(b)
		b.Run("first/"+kinds.name, func(b *testing.B) {
			for b.Loop() {
				newProcessChecker(data).ValidatingPolicy(benchPolicy(0, kinds.rules...))
			}
		})
		b.Run("warm/"+kinds.name, func(b *testing.B) {
			c := New(nil)
			c.ValidatingPolicy(benchPolicy(0, kinds.rules...))
			n := 0
			for b.Loop() {
				n++
				c.ValidatingPolicy(benchPolicy(n, kinds.rules...))
			}
		})
		b.Run("new-variables/"+kinds.name, func(b *testing.B) {
			c := New(nil)
			c.ValidatingPolicy(benchPolicy(0, kinds.rules...))
			n := 0
			for b.Loop() {
				n++
				p := benchPolicy(n, kinds.rules...)
				p.Spec.Variables = []admissionregistrationv1.Variable{{Name: "n", Expression: strconv.Itoa(n)}}
				c.ValidatingPolicy(p)
			}
		})
		b.Run("repeat/"+kinds.name, func(b *testing.B) {
			c := New(nil)
			p := benchPolicy(0, kinds.rules...)
			c.ValidatingPolicy(p)
			for b.Loop() {
				c.ValidatingPolicy(p)
			}
		})
	}
}

// builtinSnapshot is the snapshot that package builtinapi embeds, read from its file.
func builtinSnapshot(b *testing.B) []byte {
	b.Helper()
	data, err := os.ReadFile("../builtinapi/builtin.json.gz")
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// newProcessChecker is New(nil) as in a new process: its built-in API is decoded from data
// when first needed rather than shared with the Checkers before it (builtinapi.Default).
func newProcessChecker(data []byte) *Checker {
	c := New(nil)
	c.builtin = sync.OnceValues(func() (*builtinapi.API, error) { return builtinapi.Decode(data) })
	return c
}

// benchMutatingPolicy is a mutating policy of three apply configurations; n makes them differ.
func benchMutatingPolicy(n int, rules ...admissionregistrationv1.NamedRuleWithOperations) *admissionregistrationv1.MutatingAdmissionPolicy {
	p := &admissionregistrationv1.MutatingAdmissionPolicy{}
	p.Spec.MatchConstraints = &admissionregistrationv1.MatchResources{ResourceRules: rules}
	for _, e := range []string{
		"Object{spec: Object.spec{replicass: " + strconv.Itoa(n) + "}}",
		"Object{metadata: Object.metadata{labels: {'n': '" + strconv.Itoa(n) + "'}}}",
		"Object{metadata: Object.metadata{annotations: {'name': object.metadata.name + '" + strconv.Itoa(n) + "'}}}",
	} {
		p.Spec.Mutations = append(p.Spec.Mutations, admissionregistrationv1.Mutation{
			PatchType:          admissionregistrationv1.PatchTypeApplyConfiguration,
			ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: e},
		})
	}
	return p
}

// BenchmarkMutatingPolicy measures one MutatingPolicy call of a policy of three apply
// configurations, as BenchmarkValidatingPolicy.
func BenchmarkMutatingPolicy(b *testing.B) {
	for _, kinds := range []struct {
		name  string
		rules []admissionregistrationv1.NamedRuleWithOperations
	}{{"deployments", benchDeployments}, {"five-kinds", benchFiveKinds}} {
		data := builtinSnapshot(b)
		b.Run("first/"+kinds.name, func(b *testing.B) {
			for b.Loop() {
				newProcessChecker(data).MutatingPolicy(benchMutatingPolicy(0, kinds.rules...))
			}
		})
		b.Run("warm/"+kinds.name, func(b *testing.B) {
			c := New(nil)
			c.MutatingPolicy(benchMutatingPolicy(0, kinds.rules...))
			n := 0
			for b.Loop() {
				n++
				c.MutatingPolicy(benchMutatingPolicy(n, kinds.rules...))
			}
		})
	}
}
