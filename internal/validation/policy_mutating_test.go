package validation

import (
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type (
	mpol  = admissionregistrationv1.MutatingAdmissionPolicy
	mpolb = admissionregistrationv1.MutatingAdmissionPolicyBinding
)

// validMutatingPolicy returns a defaulted MutatingAdmissionPolicy the server accepts.
func validMutatingPolicy() *mpol {
	return DefaultMutatingPolicy(&mpol{
		ObjectMeta: metav1.ObjectMeta{Name: "mutating.example.com"},
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: ops("CREATE"),
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
				},
			}}},
			Mutations: []admissionregistrationv1.Mutation{{
				PatchType:          admissionregistrationv1.PatchTypeApplyConfiguration,
				ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: "Object{metadata: Object.metadata{labels: {'mutated': 'true'}}}"},
			}},
			ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
		},
	})
}

func validMutatingBinding() *mpolb {
	return DefaultMutatingPolicyBinding(&mpolb{
		ObjectMeta: metav1.ObjectMeta{Name: "mutating-binding.example.com"},
		Spec:       admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: "mutating.example.com"},
	})
}

func jsonPatch(expr string) admissionregistrationv1.Mutation {
	return admissionregistrationv1.Mutation{PatchType: admissionregistrationv1.PatchTypeJSONPatch, JSONPatch: &admissionregistrationv1.JSONPatch{Expression: expr}}
}

func applyConfiguration(expr string) admissionregistrationv1.Mutation {
	return admissionregistrationv1.Mutation{PatchType: admissionregistrationv1.PatchTypeApplyConfiguration, ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: expr}}
}

func runMutatingCases(t *testing.T, cases []struct {
	name   string
	mutate func(p *mpol)
	want   []cause
}) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := validMutatingPolicy()
			tc.mutate(p)
			checkCauses(t, ValidateMutatingPolicy(p), tc.want)
		})
	}
}

func TestValidMutatingPolicyAndBinding(t *testing.T) {
	checkCauses(t, ValidateMutatingPolicy(validMutatingPolicy()), nil)
	checkCauses(t, ValidateMutatingPolicyBinding(validMutatingBinding()), nil)
	if ValidateMutatingPolicy(nil) != nil || ValidateMutatingPolicyBinding(nil) != nil {
		t.Error("nil object")
	}
}

// validateMutatingAdmissionPolicySpec, validateMutation, validateApplyConfiguration, validateJSONPatch
func TestMutatingPolicy(t *testing.T) {
	const opsNS = `supported values: "*", "CONNECT", "CREATE", "UPDATE"`
	setMutations := func(ms ...admissionregistrationv1.Mutation) func(p *mpol) {
		return func(p *mpol) { p.Spec.Mutations = ms }
	}
	runMutatingCases(t, []struct {
		name   string
		mutate func(p *mpol)
		want   []cause
	}{
		{"reserved suffix", func(p *mpol) { p.Name = "m.static.k8s.io" }, []cause{inv("metadata.name")}},
		{"failurePolicy null (not defaulted)", func(p *mpol) { p.Spec.FailurePolicy = nil }, []cause{req("spec.failurePolicy")}},
		{"paramKind", func(p *mpol) { p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "v1"} }, []cause{req("spec.paramKind.kind")}},
		{"matchConstraints null", func(p *mpol) { p.Spec.MatchConstraints = nil }, []cause{req("spec.matchConstraints")}},
		{"no resource rules", func(p *mpol) { p.Spec.MatchConstraints.ResourceRules = nil }, []cause{req("spec.matchConstraints.resourceRules")}},
		{"DELETE, at a path without index", func(p *mpol) { namedRule0(p.Spec.MatchConstraints).Operations = ops("CREATE", "DELETE") },
			[]cause{unsup("spec.matchConstraints.resourceRules.operations", opsNS)}},
		{"an unsupported operation twice", func(p *mpol) { namedRule0(p.Spec.MatchConstraints).Operations = ops("PATCH") },
			[]cause{unsup("spec.matchConstraints.resourceRules[0].operations[0]"), unsup("spec.matchConstraints.resourceRules.operations", opsNS)}},
		{"DELETE in excludeResourceRules", func(p *mpol) {
			r := p.Spec.MatchConstraints.ResourceRules[0]
			r.Operations = ops("DELETE")
			p.Spec.MatchConstraints.ExcludeResourceRules = append(p.Spec.MatchConstraints.ExcludeResourceRules, r)
		}, nil},
		{"CONNECT and *", func(p *mpol) {
			r := p.Spec.MatchConstraints.ResourceRules[0]
			r.Operations = ops("*")
			namedRule0(p.Spec.MatchConstraints).Operations = ops("CONNECT")
			p.Spec.MatchConstraints.ResourceRules = append(p.Spec.MatchConstraints.ResourceRules, r)
		}, nil},
		{"match condition with params", func(p *mpol) {
			p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
			p.Spec.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "p", Expression: "params != null"}}
		}, nil},
		{"match condition without patch types", func(p *mpol) {
			p.Spec.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "p", Expression: "Object{} != null"}}
		}, []cause{inv("spec.matchConditions[0].expression")}},
		{"variables", func(p *mpol) {
			p.Spec.Variables = []admissionregistrationv1.Variable{{Name: "who", Expression: "request.userInfo.username"}}
			p.Spec.Mutations = append(p.Spec.Mutations, jsonPatch("[JSONPatch{op: 'add', path: '/metadata/annotations/by', value: variables.who}]"))
		}, nil},
		{"variables without patch types", func(p *mpol) {
			p.Spec.Variables = []admissionregistrationv1.Variable{{Name: "o", Expression: "Object{}"}}
		}, []cause{inv("spec.variables[0].expression")}},
		{"no variables: variables undefined, not undeclared", setMutations(jsonPatch("[JSONPatch{op: 'add', path: '/a', value: variables.x}]")),
			[]cause{inv("spec.mutations[0].jsonPatch.expression")}},
		{"no mutations", setMutations(), []cause{req("spec.mutations", "mutations must contain at least one item")}},
		{"patchType missing", setMutations(admissionregistrationv1.Mutation{}), []cause{req("spec.mutations[0].patchType", "")}},
		{"patchType unsupported", setMutations(admissionregistrationv1.Mutation{PatchType: "Merge"}),
			[]cause{unsup("spec.mutations[0].patchType", `supported values: "ApplyConfiguration", "JSONPatch"`)}},
		{"JSONPatch without a jsonPatch", setMutations(admissionregistrationv1.Mutation{PatchType: admissionregistrationv1.PatchTypeJSONPatch}),
			[]cause{req("spec.mutations[0].jsonPatch", "must be specified when patchType is JSONPatch")}},
		{"JSONPatch with an applyConfiguration", func(p *mpol) {
			m := jsonPatch("[JSONPatch{op: 'add', path: '/a', value: 1}]")
			m.ApplyConfiguration = &admissionregistrationv1.ApplyConfiguration{}
			p.Spec.Mutations = []admissionregistrationv1.Mutation{m}
		}, []cause{inv("spec.mutations[0].applyConfiguration", "must not be specified when patchType is JSONPatch")}},
		{"ApplyConfiguration without an applyConfiguration", setMutations(admissionregistrationv1.Mutation{PatchType: admissionregistrationv1.PatchTypeApplyConfiguration}),
			[]cause{req("spec.mutations[0].applyConfiguration", "must be specified when patchType is ApplyConfiguration")}},
		{"ApplyConfiguration with a jsonPatch", func(p *mpol) {
			p.Spec.Mutations[0].JSONPatch = &admissionregistrationv1.JSONPatch{Expression: "1"}
		}, []cause{inv("spec.mutations[0].jsonPatch", "must not be specified when patchType is ApplyConfiguration")}},
		{"applyConfiguration blank", setMutations(applyConfiguration(" ")), []cause{req("spec.mutations[0].applyConfiguration.expression", "")}},
		{"applyConfiguration not an Object", setMutations(applyConfiguration("Object.metadata{}")),
			[]cause{inv("spec.mutations[0].applyConfiguration.expression", "must evaluate to Object but got Object.metadata")}},
		{"applyConfiguration any field", setMutations(applyConfiguration("Object{anything: [1]}")), nil},
		{"jsonPatch blank", setMutations(jsonPatch("")), []cause{req("spec.mutations[0].jsonPatch.expression", "")}},
		{"jsonPatch not a list of JSONPatch", setMutations(jsonPatch("[]")),
			[]cause{inv("spec.mutations[0].jsonPatch.expression", "must evaluate to list(JSONPatch) but got list(dyn)")}},
		{"jsonPatch unknown field", setMutations(jsonPatch("[JSONPatch{op: 'add', pth: '/a'}]")), []cause{inv("spec.mutations[0].jsonPatch.expression")}},
		{"jsonPatch escapeKey", setMutations(jsonPatch("[JSONPatch{op: 'add', path: '/a/' + jsonpatch.escapeKey('b/c'), value: 1}]")), nil},
		{"jsonPatch with the authorizer", setMutations(jsonPatch("authorizer.requestResource.check('patch').allowed() ? [] : [JSONPatch{op: 'remove', path: '/a'}]")), nil},
		{"reinvocationPolicy missing (no default)", func(p *mpol) { p.Spec.ReinvocationPolicy = "" }, []cause{req("spec.reinvocationPolicy", "")}},
		{"reinvocationPolicy unsupported", func(p *mpol) { p.Spec.ReinvocationPolicy = "Always" },
			[]cause{unsup("spec.reinvocationPolicy", `supported values: "IfNeeded", "Never"`)}},
		{"order", func(p *mpol) {
			p.Spec.ReinvocationPolicy = ""
			p.Spec.Mutations = nil
			p.Spec.Variables = []admissionregistrationv1.Variable{{Name: "", Expression: "1"}}
			p.Spec.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "", Expression: "true"}}
			p.Spec.FailurePolicy = ptr(admissionregistrationv1.FailurePolicyType("x"))
		}, []cause{
			unsup("spec.failurePolicy"), req("spec.matchConditions[0].name"), req("spec.variables[0].name"),
			req("spec.mutations"), req("spec.reinvocationPolicy"),
		}},
	})

	p := validMutatingPolicy()
	p.Spec.Mutations = []admissionregistrationv1.Mutation{jsonPatch("\n  1  \n")}
	if errs := ValidateMutatingPolicy(p); len(errs) != 1 || errs[0].BadValue != "1" {
		t.Errorf("a patch expression is compiled and quoted trimmed: %v", errs)
	}
}

// validateMutatingAdmissionPolicyBindingSpec
func TestMutatingBinding(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(b *mpolb)
		want   []cause
	}{
		{"policyName empty: in place, before paramRef", func(b *mpolb) {
			b.Spec.PolicyName = ""
			b.Spec.ParamRef = &admissionregistrationv1.ParamRef{Name: "p"}
		}, []cause{req("spec.policyName", ""), req("spec.paramRef.parameterNotFoundAction")}},
		{"policyName bad", func(b *mpolb) { b.Spec.PolicyName = "P" }, []cause{inv("spec.policyName", subdomainMsg)}},
		{"matchResources DELETE", func(b *mpolb) {
			b.Spec.MatchResources = &admissionregistrationv1.MatchResources{ResourceRules: validMutatingPolicy().Spec.MatchConstraints.ResourceRules}
			namedRule0(b.Spec.MatchResources).Operations = ops("DELETE")
		}, []cause{unsup("spec.matchResources.resourceRules.operations")}},
		{"matchResources without rules", func(b *mpolb) { b.Spec.MatchResources = &admissionregistrationv1.MatchResources{} }, nil},
		{"validation actions do not exist here", func(b *mpolb) {}, nil},
		{"reserved suffix", func(b *mpolb) { b.Name = "b.static.k8s.io" }, []cause{inv("metadata.name")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := validMutatingBinding()
			tc.mutate(b)
			checkCauses(t, ValidateMutatingPolicyBinding(DefaultMutatingPolicyBinding(b)), tc.want)
		})
	}
}

func TestMutatingDefaults(t *testing.T) {
	p := DefaultMutatingPolicy(&mpol{Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
		MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{}}},
	}})
	if *p.Spec.FailurePolicy != admissionregistrationv1.Fail || *p.Spec.MatchConstraints.MatchPolicy != admissionregistrationv1.Equivalent ||
		*p.Spec.MatchConstraints.ResourceRules[0].Scope != admissionregistrationv1.AllScopes || p.Spec.ReinvocationPolicy != "" {
		t.Errorf("defaults: %+v", p.Spec)
	}
	b := DefaultMutatingPolicyBinding(&mpolb{Spec: admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{MatchResources: &admissionregistrationv1.MatchResources{}}})
	if b.Spec.MatchResources.NamespaceSelector == nil || b.Spec.MatchResources.ObjectSelector == nil {
		t.Errorf("binding defaults: %+v", b.Spec)
	}
	if DefaultMutatingPolicy(nil) != nil || DefaultMutatingPolicyBinding(nil) != nil {
		t.Error("nil object")
	}
}

func TestMutatingCreateOnly(t *testing.T) {
	cases := []struct {
		name string
		m    admissionregistrationv1.Mutation
		want bool
	}{
		{"applyConfiguration includes", applyConfiguration("[1].includes(1) ? Object{} : Object{}"), false},
		{"jsonPatch includes", jsonPatch("[1].includes(1) ? [] : [JSONPatch{op: 'remove', path: '/a'}]"), false},
		{"applyConfiguration wrong type", applyConfiguration("1"), false},
		{"jsonPatch syntax", jsonPatch("[JSONPatch{]"), false},
		{"patchType", admissionregistrationv1.Mutation{PatchType: "x"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := validMutatingPolicy()
			p.Spec.Mutations = []admissionregistrationv1.Mutation{c.m}
			errs := ValidateMutatingPolicy(p)
			if len(errs) != 1 {
				t.Fatalf("want one error, got %s", dump(errs))
			}
			if got := CreateOnly(errs[0]); got != c.want {
				t.Errorf("CreateOnly(%v) = %v, want %v", errs[0], got, c.want)
			}
		})
	}
}

// A policy's variables are declared for that policy only: the compositions reused for the next
// policy start empty.
func TestCompositionsAreReset(t *testing.T) {
	p := validMutatingPolicy()
	p.Spec.Variables = []admissionregistrationv1.Variable{{Name: "x", Expression: "1"}}
	p.Spec.Mutations = append(p.Spec.Mutations, jsonPatch("[JSONPatch{op: 'add', path: '/a', value: variables.x}]"))
	for range 3 {
		checkCauses(t, ValidateMutatingPolicy(p), nil)
		q := validMutatingPolicy()
		q.Spec.Mutations = append(q.Spec.Mutations, jsonPatch("[JSONPatch{op: 'add', path: '/a', value: variables.x}]"))
		errs := ValidateMutatingPolicy(q)
		if len(errs) != 1 || !strings.Contains(errs[0].Detail, "undefined field 'x'") {
			t.Fatalf("a later policy sees an earlier one's variable: %s", dump(errs))
		}
	}
}
