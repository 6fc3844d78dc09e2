package validation

import (
	"fmt"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
)

// realisticConditions returns n match conditions of the kind people write: namespace and user
// exclusions, label checks. With distinct set, every expression differs (by a number).
func realisticConditions(n, salt int) []admissionregistrationv1.MatchCondition {
	forms := []string{
		`request.namespace != "ns-%d"`,
		`!(request.userInfo.username in ["system:serviceaccount:kube-system:sa-%d", "system:admin"])`,
		`!request.userInfo.groups.exists(g, g == "team-%d")`,
		`!has(object.metadata.labels) || !("skip-%d" in object.metadata.labels)`,
		`object.metadata.name.startsWith("app-%d") || request.operation == "DELETE"`,
		`request.resource.group != "example-%d.com" && request.dryRun != true`,
	}
	return fillConditions(forms, n, salt)
}

// unshapedConditions returns n match conditions like realisticConditions, but each with an
// integer constant of its own, so that no two share a shape (celshape.go) and every one is
// parsed and checked: the cost of a configuration whose conditions are all different.
func unshapedConditions(n, salt int) []admissionregistrationv1.MatchCondition {
	forms := []string{
		`request.namespace != "ns" || size(request.name) != %d`,
		`!(request.userInfo.username in ["system:admin"]) || request.userInfo.groups.size() > %d`,
		`!request.userInfo.groups.exists(g, g == "team" && size(g) == %d)`,
		`!has(object.metadata.labels) || size(object.metadata.labels) < %d`,
		`object.metadata.name.startsWith("app") || object.spec.replicas == %d`,
		`request.resource.group != "example.com" && object.metadata.generation != %d`,
	}
	return fillConditions(forms, n, salt)
}

// fillConditions returns n match conditions cycling through forms, each with the number
// salt*1000+i written into it.
func fillConditions(forms []string, n, salt int) []admissionregistrationv1.MatchCondition {
	out := make([]admissionregistrationv1.MatchCondition, n)
	for i := range out {
		out[i] = admissionregistrationv1.MatchCondition{
			Name:       fmt.Sprintf("condition-%d", i),
			Expression: fmt.Sprintf(forms[i%len(forms)], salt*1000+i),
		}
	}
	return out
}

func configWith(webhooks int, distinct bool) *mwc {
	o := valid()
	h := o.Webhooks[0]
	o.Webhooks = nil
	for i := range webhooks {
		h.Name = fmt.Sprintf("hook-%d.example.com", i)
		salt := 0
		if distinct {
			salt = i
		}
		h.MatchConditions = realisticConditions(maxMatchConditions, salt)
		o.Webhooks = append(o.Webhooks, *h.DeepCopy())
	}
	return o
}

func benchValidate(b *testing.B, o *mwc, cold bool) {
	celCompiler(newExpressionsEnv(Assumed)) // built once per process; not what is measured
	if errs := Validate(o); len(errs) != 0 {
		b.Fatalf("unexpected errors:\n%s", dump(errs))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if cold {
			b.StopTimer()
			resetCompileCache()
			b.StartTimer()
		}
		Validate(o)
	}
}

// BenchmarkCompile64MatchConditions validates one webhook with 64 distinct conditions. "cold"
// compiles all 64 every time (first plan of a new configuration); "cached" is a later call with
// the same expressions (validate, plan and apply of one run).
func BenchmarkCompile64MatchConditions(b *testing.B) {
	o := configWith(1, true)
	b.Run("cold", func(b *testing.B) { benchValidate(b, o, true) })
	b.Run("cached", func(b *testing.B) { benchValidate(b, o, false) })
}

// BenchmarkValidateLargest validates 20 webhooks × 64 conditions, the largest configuration a
// user is likely to write. "distinct" has 1280 different expressions, "shared" the same 64 in every
// webhook (the usual case: one set of exclusions repeated).
func BenchmarkValidateLargest(b *testing.B) {
	for _, distinct := range []bool{true, false} {
		o := configWith(20, distinct)
		name := map[bool]string{true: "distinct", false: "shared"}[distinct]
		b.Run(name+"/cold", func(b *testing.B) { benchValidate(b, o, true) })
		b.Run(name+"/cached", func(b *testing.B) { benchValidate(b, o, false) })
	}
}

// BenchmarkValidateUnshaped is BenchmarkValidateLargest/distinct with conditions that share no
// shape, so that each is parsed and checked once: the cost when every condition is different.
func BenchmarkValidateUnshaped(b *testing.B) {
	o := configWith(20, true)
	for i := range o.Webhooks {
		o.Webhooks[i].MatchConditions = unshapedConditions(maxMatchConditions, i)
	}
	b.Run("cold", func(b *testing.B) { benchValidate(b, o, true) })
}

// BenchmarkBuildCompiler measures what the first Validate of a process pays once (the base
// environment itself is cached inside k8s.io/apiserver after its first build).
func BenchmarkBuildCompiler(b *testing.B) {
	for b.Loop() {
		plugincel.NewCompiler(newExpressionsEnv(Assumed).baseSet())
	}
}
