package differential

import (
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MutatingAdmissionPolicy and MutatingAdmissionPolicyBinding cases.

type (
	map_ = v1.MutatingAdmissionPolicy
	mapb = v1.MutatingAdmissionPolicyBinding
)

var (
	// validApplyConfigurations evaluate to an Object{...} (the patch types are declared).
	validApplyConfigurations = []string{
		"Object{metadata: Object.metadata{labels: {'mutated': 'true'}}}",
		"Object{spec: Object.spec{replicas: 3}}",
		"Object{metadata: Object.metadata{annotations: {'by': request.userInfo.username}}}",
		"  Object{}  ",
		"Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: 'c', image: 'i'}]}}}}",
		"request.dryRun ? Object{} : Object{metadata: Object.metadata{labels: {'a': 'b'}}}",
	}
	// validJSONPatches evaluate to a list(JSONPatch).
	validJSONPatches = []string{
		"[JSONPatch{op: 'add', path: '/metadata/labels/x', value: 'y'}]",
		"[JSONPatch{op: 'test', path: '/spec/replicas', value: 1}, JSONPatch{op: 'replace', path: '/spec/replicas', value: 2}]",
		"[JSONPatch{op: 'add', path: '/metadata/annotations/' + jsonpatch.escapeKey('example.com/by'), value: request.userInfo.username}]",
		"[JSONPatch{op: 'remove', path: '/metadata/labels/x'}, JSONPatch{op: 'move', from: '/a', path: '/b'}, JSONPatch{op: 'copy', from: '/a', path: '/c'}]",
		"object.spec.containers.map(c, JSONPatch{op: 'add', path: '/x', value: c.name})",
		"\n  [JSONPatch{op: 'add', path: '/a', value: {'any': ['value', 'x'], 'more': []}}]\n",
	}
)

// validMutatingPolicy returns a random MutatingAdmissionPolicy the server accepts.
func (g *gen) validMutatingPolicy() *map_ {
	p := &map_{ObjectMeta: g.validMeta("map")}
	s := &p.Spec
	if g.chance(0.5) {
		s.FailurePolicy = ptr(pick(g, v1.Fail, v1.Ignore))
	}
	params := g.chance(0.3)
	if params {
		pk := pick(g, validParamKinds...)
		s.ParamKind = &pk
	}
	s.MatchConstraints = g.validMatchResources(true)
	s.MatchConditions = g.validPolicyConditions(params)
	vars, uses, quotes := g.validVariables(params)
	s.Variables = vars
	for range 1 + g.r.IntN(3) {
		s.Mutations = append(s.Mutations, g.validMutation(uses, quotes, params))
	}
	s.ReinvocationPolicy = pick(g, v1.NeverReinvocationPolicy, v1.IfNeededReinvocationPolicy)
	return p
}

// validMutation is a random mutation, which may use the variables (through uses and quotes,
// their bool and string expressions) and params.
func (g *gen) validMutation(uses, quotes []string, params bool) v1.Mutation {
	if g.chance(0.5) {
		e := pick(g, validApplyConfigurations...)
		switch {
		case len(quotes) > 0 && g.chance(0.3):
			e = fmt.Sprintf("Object{metadata: Object.metadata{annotations: {'note': %s}}}", pick(g, quotes...))
		case params && g.chance(0.3):
			e = "Object{spec: Object.spec{replicas: int(params.?data.?replicas.orValue('1'))}}"
		}
		return v1.Mutation{PatchType: v1.PatchTypeApplyConfiguration, ApplyConfiguration: &v1.ApplyConfiguration{Expression: e}}
	}
	e := pick(g, validJSONPatches...)
	if len(uses) > 0 && g.chance(0.3) {
		e = conditionalPatch(pick(g, uses...))
	}
	return v1.Mutation{PatchType: v1.PatchTypeJSONPatch, JSONPatch: &v1.JSONPatch{Expression: e}}
}

// conditionalPatch is a JSON patch whose tests depend on the bool expression cond.
func conditionalPatch(cond string) string {
	return fmt.Sprintf("(%s) ? [JSONPatch{op: 'test', path: '/metadata/name', value: 'x'}] : [JSONPatch{op: 'test', path: '/metadata/name', value: 'y'}]", cond)
}

// validMutatingBinding returns a random MutatingAdmissionPolicyBinding the server accepts.
func (g *gen) validMutatingBinding() *mapb {
	b := &mapb{ObjectMeta: g.validMeta("mapb")}
	b.Spec.PolicyName = pick(g, "policy.example.com", "p", fmt.Sprintf("map%04d.differential.example.com", g.id))
	if g.chance(0.4) {
		b.Spec.ParamRef = g.validParamRef()
	}
	if g.chance(0.6) {
		b.Spec.MatchResources = g.validMatchResources(true)
		if g.chance(0.3) {
			b.Spec.MatchResources.ResourceRules = nil
		}
	}
	return b
}

// mutation returns a random mutation of p, adding one if there is none.
func (g *gen) mutation(p *map_) (*v1.Mutation, string) {
	if len(p.Spec.Mutations) == 0 {
		p.Spec.Mutations = append(p.Spec.Mutations, g.validMutation(nil, nil, false))
	}
	k := g.r.IntN(len(p.Spec.Mutations))
	return &p.Spec.Mutations[k], fmt.Sprintf("spec.mutations[%d]", k)
}

// mutatingOperationMutators: the operations a mutating kind cannot match.
func mutatingOperationMutators[T any](m *mutatorList[T], mr func(g *gen, o *T) (*v1.MatchResources, string)) {
	ops := func(rule string, want verdict, exclude bool, sets ...[]v1.OperationType) {
		m.add(rule, want, func(g *gen, o *T) string {
			r, where := mr(g, o)
			list, name := &r.ResourceRules, "resourceRules"
			if exclude {
				list, name = &r.ExcludeResourceRules, "excludeResourceRules"
			}
			if len(*list) == 0 {
				*list = append(*list, g.validNamedRule(true))
			}
			k := g.r.IntN(len(*list))
			(*list)[k].Operations = slices.Clone(pick(g, sets...))
			return fmt.Sprintf("%s.%s[%d].operations %q", where, name, k, (*list)[k].Operations)
		})
	}
	ops("resourceRules.operations: DELETE, which a mutating kind cannot match", reject, false,
		[]v1.OperationType{v1.Delete}, []v1.OperationType{v1.Create, v1.Delete}, []v1.OperationType{v1.Delete, v1.Update, v1.Delete})
	ops("resourceRules.operations: CONNECT, * or CREATE and UPDATE", accept, false,
		[]v1.OperationType{v1.Connect}, []v1.OperationType{v1.OperationAll}, []v1.OperationType{v1.Create, v1.Update})
	ops("excludeResourceRules.operations: DELETE is fine there", accept, true,
		[]v1.OperationType{v1.Delete}, []v1.OperationType{v1.Create, v1.Delete})
	ops("resourceRules.operations: DELETE and * (two rules broken)", reject, false, []v1.OperationType{v1.OperationAll, v1.Delete})
}

// mutatingPolicyGenerator generates the MutatingAdmissionPolicy cases.
func mutatingPolicyGenerator() policyGenerator[map_] {
	m := &mutatorList[map_]{}
	metadataMutators(m, "map", func(p *map_) *metav1.ObjectMeta { return &p.ObjectMeta })
	policyMutators(m, policyParts[map_]{
		prefix:           "map",
		failurePolicy:    func(p *map_) **v1.FailurePolicyType { return &p.Spec.FailurePolicy },
		paramKind:        func(p *map_) **v1.ParamKind { return &p.Spec.ParamKind },
		matchConstraints: func(p *map_) **v1.MatchResources { return &p.Spec.MatchConstraints },
		matchConditions:  func(p *map_) *[]v1.MatchCondition { return &p.Spec.MatchConditions },
		variables:        func(p *map_) *[]v1.Variable { return &p.Spec.Variables },
		useExpression: func(g *gen, p *map_, expr string) string {
			k := g.r.IntN(len(p.Spec.Mutations) + 1)
			p.Spec.Mutations = slices.Insert(p.Spec.Mutations, k, v1.Mutation{PatchType: v1.PatchTypeJSONPatch, JSONPatch: &v1.JSONPatch{Expression: conditionalPatch(expr)}})
			return fmt.Sprintf("spec.mutations[%d].jsonPatch.expression tests %q", k, shorten(expr))
		},
		mutating: true,
	})
	mutatingOperationMutators(m, func(g *gen, p *map_) (*v1.MatchResources, string) {
		if p.Spec.MatchConstraints == nil {
			p.Spec.MatchConstraints = g.validMatchResources(true)
		}
		return p.Spec.MatchConstraints, "spec.matchConstraints"
	})
	mutationMutators(m)
	return policyGenerator[map_]{seed: seed + 3, valid: (*gen).validMutatingPolicy, mutators: m.ms, valids: 400, combined: 150}
}

// mutationMutators: mutations and reinvocationPolicy (validateMutation, validateApplyConfiguration,
// validateJSONPatch, validateMutatingAdmissionPolicySpec).
func mutationMutators(m *mutatorList[map_]) {
	m.alone(4, "mutations: none", reject, func(g *gen, p *map_) string {
		p.Spec.Mutations = pick(g, nil, []v1.Mutation{})
		return "no mutations"
	})
	reinvocation := func(rule string, want verdict, values ...string) {
		m.add(rule, want, func(g *gen, p *map_) string {
			p.Spec.ReinvocationPolicy = v1.ReinvocationPolicyType(pick(g, values...))
			return fmt.Sprintf("spec.reinvocationPolicy %q", p.Spec.ReinvocationPolicy)
		})
	}
	reinvocation("reinvocationPolicy: missing (no default)", reject, "")
	reinvocation("reinvocationPolicy: unsupported", reject, "never", "Always", "ifNeeded")
	reinvocation("reinvocationPolicy: Never or IfNeeded", accept, "Never", "IfNeeded")

	set := func(rule string, want verdict, f func(g *gen, mu *v1.Mutation) string) {
		m.add(rule, want, func(g *gen, p *map_) string {
			mu, where := g.mutation(p)
			return where + " " + f(g, mu)
		})
	}
	set("mutation patchType: missing", reject, func(g *gen, mu *v1.Mutation) string { mu.PatchType = ""; return `patchType ""` })
	set("mutation patchType: unsupported", reject, func(g *gen, mu *v1.Mutation) string {
		mu.PatchType = v1.PatchType(pick(g, "jsonpatch", "Merge", "StrategicMergePatch", "applyConfiguration"))
		return fmt.Sprintf("patchType %q", mu.PatchType)
	})
	set("mutation: JSONPatch without jsonPatch", reject, func(g *gen, mu *v1.Mutation) string {
		mu.PatchType, mu.JSONPatch, mu.ApplyConfiguration = v1.PatchTypeJSONPatch, nil, pick(g, nil, &v1.ApplyConfiguration{Expression: "Object{}"})
		return "JSONPatch, no jsonPatch"
	})
	set("mutation: JSONPatch with an applyConfiguration too", reject, func(g *gen, mu *v1.Mutation) string {
		mu.PatchType = v1.PatchTypeJSONPatch
		mu.JSONPatch = &v1.JSONPatch{Expression: pick(g, validJSONPatches...)}
		mu.ApplyConfiguration = &v1.ApplyConfiguration{Expression: pick(g, "Object{}", "", "not compiled")}
		return "JSONPatch with both"
	})
	set("mutation: ApplyConfiguration without applyConfiguration", reject, func(g *gen, mu *v1.Mutation) string {
		mu.PatchType, mu.ApplyConfiguration, mu.JSONPatch = v1.PatchTypeApplyConfiguration, nil, pick(g, nil, &v1.JSONPatch{Expression: "[]"})
		return "ApplyConfiguration, no applyConfiguration"
	})
	set("mutation: ApplyConfiguration with a jsonPatch too", reject, func(g *gen, mu *v1.Mutation) string {
		mu.PatchType = v1.PatchTypeApplyConfiguration
		mu.ApplyConfiguration = &v1.ApplyConfiguration{Expression: pick(g, validApplyConfigurations...)}
		mu.JSONPatch = &v1.JSONPatch{Expression: pick(g, "[]", "")}
		return "ApplyConfiguration with both"
	})
	set("mutation: unsupported patchType with both patches (neither checked)", reject, func(g *gen, mu *v1.Mutation) string {
		mu.PatchType = "Merge"
		mu.ApplyConfiguration, mu.JSONPatch = &v1.ApplyConfiguration{Expression: "1"}, &v1.JSONPatch{Expression: "1"}
		return "patchType Merge, both patches broken"
	})

	apply := func(rule string, want verdict, exprs ...string) {
		set(rule, want, func(g *gen, mu *v1.Mutation) string {
			mu.PatchType, mu.JSONPatch = v1.PatchTypeApplyConfiguration, nil
			mu.ApplyConfiguration = &v1.ApplyConfiguration{Expression: pick(g, exprs...)}
			return fmt.Sprintf("applyConfiguration %q", shorten(mu.ApplyConfiguration.Expression))
		})
	}
	apply("applyConfiguration: valid", accept, validApplyConfigurations...)
	apply("applyConfiguration: any field of Object", accept, "Object{anything: 1, spec: Object.spec{x: [1, 2]}}", "Object{metadata: Object.metadata{ownerReferences: []}}")
	apply("applyConfiguration: blank", reject, "", "  ", "\n")
	apply("applyConfiguration: not an Object", reject, "1", "{'metadata': {}}", "object", "Object.metadata{}", "[Object{}]", "null", "JSONPatch{op: 'add'}")
	apply("applyConfiguration: syntax error or undeclared", reject, "Object{", "Object{a: }", "foo", "params.x", "variables.x")
	apply("applyConfiguration: includes (not in the 1.36 environment)", reject, "[1].includes(1) ? Object{} : Object{}")
	apply("applyConfiguration: the authorizer", accept, "authorizer.requestResource.check('patch').allowed() ? Object{} : Object{spec: Object.spec{x: 1}}")
	jsonPatch := func(rule string, want verdict, exprs ...string) {
		set(rule, want, func(g *gen, mu *v1.Mutation) string {
			mu.PatchType, mu.ApplyConfiguration = v1.PatchTypeJSONPatch, nil
			mu.JSONPatch = &v1.JSONPatch{Expression: pick(g, exprs...)}
			return fmt.Sprintf("jsonPatch %q", shorten(mu.JSONPatch.Expression))
		})
	}
	jsonPatch("jsonPatch: valid", accept, validJSONPatches...)
	jsonPatch("jsonPatch: blank", reject, "", " ", "\t\n")
	jsonPatch("jsonPatch: not a list of JSONPatch", reject, "[]", "JSONPatch{op: 'add', path: '/a', value: 1}", "[{'op': 'add'}]", "Object{}", "1", "null", "[[JSONPatch{}]]")
	jsonPatch("jsonPatch: not a JSONPatch field", reject, "[JSONPatch{op: 'add', pth: '/x'}]", "[JSONPatch{operation: 'add'}]")
	jsonPatch("jsonPatch: field of the wrong type", reject, "[JSONPatch{op: 1, path: '/x'}]", "[JSONPatch{op: 'add', path: ['/x']}]")
	jsonPatch("jsonPatch: syntax error or undeclared", reject, "[JSONPatch{]", "foo", "[JSONPatch{op: 'add', path: variables.p}]", "params.x")
	jsonPatch("jsonPatch: escapeKey misused", reject, "[JSONPatch{op: 'add', path: jsonpatch.escapeKey(1), value: 1}]", "[JSONPatch{op: 'add', path: escapeKey('a'), value: 1}]")
	jsonPatch("jsonPatch: a conditional of two lists of JSONPatch", accept, conditionalPatch("request.dryRun"), conditionalPatch("object.metadata.name == 'x'"))
	jsonPatch("jsonPatch: a conditional with an empty list", accept, "request.dryRun ? [] : [JSONPatch{op: 'add', path: '/a', value: 1}]")
	jsonPatch("jsonPatch: cost far beyond the runtime limit (not checked on create)", accept,
		"lists.range(1000000).map(i, JSONPatch{op: 'add', path: '/a/' + string(i), value: lists.range(1000000).size()})")
	m.add("mutations: params with paramKind", accept, func(g *gen, p *map_) string {
		if p.Spec.ParamKind == nil {
			p.Spec.ParamKind = &v1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
		}
		p.Spec.Mutations = append(p.Spec.Mutations, v1.Mutation{PatchType: v1.PatchTypeApplyConfiguration,
			ApplyConfiguration: &v1.ApplyConfiguration{Expression: "Object{metadata: Object.metadata{labels: {'p': string(params.metadata.name)}}}"}})
		return "an applyConfiguration with params"
	})
	m.add("mutations: params without paramKind", reject, func(g *gen, p *map_) string {
		p.Spec.ParamKind = nil
		p.Spec.Mutations = append(p.Spec.Mutations, v1.Mutation{PatchType: v1.PatchTypeApplyConfiguration,
			ApplyConfiguration: &v1.ApplyConfiguration{Expression: "Object{metadata: Object.metadata{labels: {'p': string(params.metadata.name)}}}"}})
		return "an applyConfiguration with params, no paramKind"
	})
	m.add("mutations: variables in both patch types", accept, func(g *gen, p *map_) string {
		p.Spec.Variables = append(p.Spec.Variables, v1.Variable{Name: "who", Expression: "request.userInfo.username"})
		p.Spec.Mutations = append(p.Spec.Mutations,
			v1.Mutation{PatchType: v1.PatchTypeApplyConfiguration, ApplyConfiguration: &v1.ApplyConfiguration{Expression: "Object{metadata: Object.metadata{annotations: {'by': variables.who}}}"}},
			v1.Mutation{PatchType: v1.PatchTypeJSONPatch, JSONPatch: &v1.JSONPatch{Expression: "[JSONPatch{op: 'add', path: '/metadata/annotations/by', value: variables.who}]"}})
		return "variables.who in an applyConfiguration and a jsonPatch"
	})
	m.add("mutations: no variables, variables undefined (composited compiler)", reject, func(g *gen, p *map_) string {
		p.Spec.Variables = nil
		mu, where := g.mutation(p)
		mu.PatchType, mu.ApplyConfiguration = v1.PatchTypeJSONPatch, nil
		mu.JSONPatch = &v1.JSONPatch{Expression: "[JSONPatch{op: 'add', path: '/a', value: variables.none}]"}
		return where + " uses variables.none, no variables"
	})
	m.add("variables: the patch types are not declared there", reject, func(g *gen, p *map_) string {
		p.Spec.Variables = append(p.Spec.Variables, v1.Variable{Name: "patch", Expression: pick(g, "Object{}", "[JSONPatch{op: 'add', path: '/a'}]", "jsonpatch.escapeKey('a/b')")})
		return "a variable builds a patch"
	})
	m.add("matchCondition: the patch types are not declared there", reject, func(g *gen, p *map_) string {
		p.Spec.MatchConditions = append(p.Spec.MatchConditions, v1.MatchCondition{Name: "patch", Expression: "Object{} != null"})
		return "a match condition builds an Object"
	})
	m.some(2, "mutations: many", accept, func(g *gen, p *map_) string {
		for range 30 {
			p.Spec.Mutations = append(p.Spec.Mutations, g.validMutation(nil, nil, false))
		}
		return fmt.Sprintf("%d mutations", len(p.Spec.Mutations))
	})
	m.some(2, "applyConfiguration: 100,000 characters", accept, func(g *gen, p *map_) string {
		mu, where := g.mutation(p)
		mu.PatchType, mu.JSONPatch = v1.PatchTypeApplyConfiguration, nil
		e := "Object{metadata: Object.metadata{labels: {'a': ''}}}"
		mu.ApplyConfiguration = &v1.ApplyConfiguration{Expression: strings.Replace(e, "''", "'"+strings.Repeat("a", 100000-len(e))+"'", 1)}
		return where + ".applyConfiguration of 100,000 characters"
	})
}

// mutatingBindingGenerator generates the MutatingAdmissionPolicyBinding cases.
func mutatingBindingGenerator() policyGenerator[mapb] {
	m := &mutatorList[mapb]{}
	metadataMutators(m, "mapb", func(b *mapb) *metav1.ObjectMeta { return &b.ObjectMeta })
	bindingMutators(m, bindingParts[mapb]{
		policyName:     func(b *mapb) *string { return &b.Spec.PolicyName },
		paramRef:       func(b *mapb) **v1.ParamRef { return &b.Spec.ParamRef },
		matchResources: func(b *mapb) **v1.MatchResources { return &b.Spec.MatchResources },
		mutating:       true,
	})
	mutatingOperationMutators(m, func(g *gen, b *mapb) (*v1.MatchResources, string) {
		if b.Spec.MatchResources == nil {
			b.Spec.MatchResources = g.validMatchResources(true)
		}
		return b.Spec.MatchResources, "spec.matchResources"
	})
	m.add("policyName: empty, with other errors (reported in place)", reject, func(g *gen, b *mapb) string {
		b.Spec.PolicyName = ""
		b.Spec.ParamRef = &v1.ParamRef{}
		return "no policyName, an empty paramRef"
	})
	return policyGenerator[mapb]{seed: seed + 4, valid: (*gen).validMutatingBinding, mutators: m.ms, valids: 250, combined: 100}
}
