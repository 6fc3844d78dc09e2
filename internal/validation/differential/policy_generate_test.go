package differential

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	v1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The generator of the admission policy kinds and their bindings: the same approach as for the
// webhook configurations (generate_test.go), over any of the four types. Valid objects are
// made as a user writes them, before the server's defaulting; each mutator breaks (or bends)
// a valid object by one rule of the server; a few hundred objects are broken by several rules
// at once. Everything is deterministic: one seed per kind.
//
// The parts the kinds share (metadata, matchConstraints / matchResources, paramKind, match
// conditions, variables, paramRef, policyName) have their mutators written once, over
// accessors into each kind's object.

// policyCase is one generated object of type T.
type policyCase[T any] struct {
	id   int
	rule string  // the server's rule it exercises (validRule for untouched random objects)
	want verdict // the rule's verdict
	note string  // the change made to a valid object, for reports
	obj  *T
}

func (c policyCase[T]) String() string {
	s := fmt.Sprintf("#%d %s [%s]", c.id, c.rule, c.want)
	if c.note != "" {
		s += ": " + c.note
	}
	return s
}

// policyMutator breaks (or bends) a valid object of type T in one way and says how.
type policyMutator[T any] struct {
	rule string
	want verdict
	reps int // how many objects get it; 0 means defaultReps
	// alone marks a mutator that is not combined with others (it empties the name, or makes
	// a huge object, or needs an object otherwise valid to mean anything).
	alone bool
	fn    func(g *gen, o *T) string
}

// policyGenerator describes how to generate the objects of one kind.
type policyGenerator[T any] struct {
	seed     uint64
	valid    func(g *gen) *T // a random valid object, named after g.id
	mutators []policyMutator[T]
	valids   int // untouched valid objects
	combined int // objects broken by 2-4 rejecting mutators at once
}

// generate returns the cases: valid objects first, then each mutator's, then the combined ones.
func (pg policyGenerator[T]) generate() []policyCase[T] {
	g := &gen{r: rand.New(rand.NewPCG(pg.seed, pg.seed>>7))}
	var cases []policyCase[T]
	add := func(want verdict, o *T, rule, note string) {
		cases = append(cases, policyCase[T]{id: g.id, rule: rule, want: want, note: note, obj: o})
		g.id++
	}
	for range pg.valids {
		add(accept, pg.valid(g), validRule, "")
	}
	var rejecting []policyMutator[T]
	for _, m := range pg.mutators {
		reps := m.reps
		if reps == 0 {
			reps = defaultReps
		}
		for range reps {
			o := pg.valid(g)
			add(m.want, o, m.rule, m.fn(g, o))
		}
		if m.want == reject && !m.alone && m.reps != 1 {
			rejecting = append(rejecting, m)
		}
	}
	for range pg.combined {
		o := pg.valid(g)
		n := 2 + g.r.IntN(3)
		var notes []string
		for _, k := range g.r.Perm(len(rejecting))[:n] {
			notes = append(notes, rejecting[k].rule+": "+rejecting[k].fn(g, o))
		}
		add(reject, o, fmt.Sprintf("several rules broken at once (%d)", n), strings.Join(notes, "; "))
	}
	return cases
}

// ---------------------------------------------------------------------------------------------
// Valid pieces

// policyName is the name of the object being made: prefix (the kind's initials), then the case
// number.
func (g *gen) policyName(prefix string) string {
	return fmt.Sprintf("%s%04d.differential.example.com", prefix, g.id)
}

func (g *gen) validMeta(prefix string) metav1.ObjectMeta {
	m := metav1.ObjectMeta{Name: g.policyName(prefix)}
	if g.chance(0.2) {
		m.Labels = map[string]string{pick(g, validLabelKeys...): pick(g, validLabelValues...)}
	}
	if g.chance(0.1) {
		m.Annotations = map[string]string{pick(g, "example.com/owner", "note"): pick(g, "team-a", "")}
	}
	return m
}

var (
	validParamKinds = []v1.ParamKind{
		{APIVersion: "v1", Kind: "ConfigMap"}, {APIVersion: "example.com/v1", Kind: "PolicyParams"},
		{APIVersion: "apps/v1beta1", Kind: "Foo-Bar"}, {APIVersion: "a.b.example.com/v1alpha1", Kind: "my-kind"},
		{APIVersion: "example.com/" + "v" + strings.Repeat("1", 62), Kind: "K" + strings.Repeat("k", 62)},
	}
	validResourceNames = [][]string{nil, {"a"}, {"kube-system", "default"}, {"Any Name at all", "UPPER_case"}, {"a.b", "..a", "a.."}}
)

// validNamedRule is a valid resource rule; mutating says the rule is for a mutating policy or
// binding, which cannot match DELETE.
func (g *gen) validNamedRule(mutating bool) v1.NamedRuleWithOperations {
	r := v1.NamedRuleWithOperations{RuleWithOperations: g.validRule()}
	if mutating {
		r.Operations = slices.DeleteFunc(r.Operations, func(op v1.OperationType) bool { return op == v1.Delete })
		if len(r.Operations) == 0 {
			r.Operations = []v1.OperationType{pick(g, v1.Create, v1.Update, v1.OperationAll)}
		}
	}
	r.ResourceNames = slices.Clone(pick(g, validResourceNames...))
	return r
}

// validMatchResources is a valid matchConstraints (with at least one resource rule) or
// matchResources.
func (g *gen) validMatchResources(mutating bool) *v1.MatchResources {
	mr := &v1.MatchResources{NamespaceSelector: g.validSelector(), ObjectSelector: g.validSelector()}
	for range 1 + g.r.IntN(3) {
		mr.ResourceRules = append(mr.ResourceRules, g.validNamedRule(mutating))
	}
	for range g.r.IntN(2) {
		mr.ExcludeResourceRules = append(mr.ExcludeResourceRules, g.validNamedRule(false))
	}
	if g.chance(0.4) {
		mr.MatchPolicy = ptr(pick(g, v1.Exact, v1.Equivalent))
	}
	return mr
}

// variableTemplate is a variable of the valid objects, with bool and string expressions that
// use it correctly for its type.
type variableTemplate struct {
	name, expr   string
	uses, quotes []string
	params       bool // needs params
}

var variableTemplates = []variableTemplate{
	{"username", "request.userInfo.username", []string{"variables.username != 'system:admin'", "!variables.username.startsWith('system:')"},
		[]string{"'user ' + variables.username"}, false},
	{"isAdmin", "'system:masters' in request.userInfo.groups", []string{"!variables.isAdmin", "variables.isAdmin || request.dryRun"}, nil, false},
	{"groupCount", "size(request.userInfo.groups)", []string{"variables.groupCount >= 0"}, []string{"string(variables.groupCount) + ' groups'"}, false},
	{"labels", "object.metadata.?labels.orValue({})", []string{"!('forbidden' in variables.labels)"}, nil, false},
	{"names", "[request.name, request.namespace]", []string{"variables.names.size() == 2", "variables.names.all(n, n != 'x')"}, []string{"variables.names.join(',')"}, false},
	{"ns", "namespaceObject.metadata.name", []string{"variables.ns != 'kube-system'"}, []string{"'in namespace ' + variables.ns"}, false},
	{"_limits", "{'cpu': 2, 'memory': 4}", []string{"variables._limits['cpu'] < 10"}, nil, false},
	{"limit", "params.?data.?limit.orValue('10')", []string{"variables.limit != ''"}, nil, true},
	{"paramName", "params.metadata.name", []string{"variables.paramName != null"}, nil, true},
}

// paramsExpressions are bool expressions that need params.
var paramsExpressions = []string{
	"params != null", "params.?data.?allowed.orValue('true') == 'true'", "object.metadata.name != params.metadata.name",
}

// validVariables returns up to three variables and the bool and string expressions that use
// them; params says whether the policy has a paramKind.
func (g *gen) validVariables(params bool) (vars []v1.Variable, uses, quotes []string) {
	for _, k := range g.r.Perm(len(variableTemplates))[:g.r.IntN(4)] {
		t := variableTemplates[k]
		if t.params && !params {
			continue
		}
		vars = append(vars, v1.Variable{Name: t.name, Expression: t.expr})
		uses = append(uses, t.uses...)
		quotes = append(quotes, t.quotes...)
	}
	return vars, uses, quotes
}

// validPolicyConditions returns up to three match conditions, some with params if params.
func (g *gen) validPolicyConditions(params bool) []v1.MatchCondition {
	var out []v1.MatchCondition
	for j := range g.r.IntN(4) {
		e := pick(g, validExpressions...)
		if params && g.chance(0.3) {
			e = pick(g, paramsExpressions...)
		}
		out = append(out, v1.MatchCondition{Name: fmt.Sprintf("%s%d", pick(g, "c", "example.com/cond-", "A_b."), j), Expression: e})
	}
	return out
}

var (
	validParamRefNames = []string{"params", "Any Name", "a.b", "UPPER_case", "...a"}
	validNamespaces2   = []string{"", "default", "Not A Namespace!", "ns.with.dots"}
)

func (g *gen) validParamRef() *v1.ParamRef {
	pr := &v1.ParamRef{Namespace: pick(g, validNamespaces2...), ParameterNotFoundAction: ptr(pick(g, v1.DenyAction, v1.AllowAction))}
	if g.chance(0.5) {
		pr.Name = pick(g, validParamRefNames...)
	} else {
		pr.Selector = g.validSelector()
		if pr.Selector == nil {
			pr.Selector = &metav1.LabelSelector{}
		}
	}
	return pr
}

// ---------------------------------------------------------------------------------------------
// Mutators of the shared parts, over accessors into an object of type T.

// mutatorList collects a kind's mutators.
type mutatorList[T any] struct{ ms []policyMutator[T] }

func (m *mutatorList[T]) add(rule string, want verdict, fn func(g *gen, o *T) string) {
	m.ms = append(m.ms, policyMutator[T]{rule: rule, want: want, fn: fn})
}

func (m *mutatorList[T]) some(reps int, rule string, want verdict, fn func(g *gen, o *T) string) {
	m.ms = append(m.ms, policyMutator[T]{rule: rule, want: want, reps: reps, fn: fn})
}

func (m *mutatorList[T]) alone(reps int, rule string, want verdict, fn func(g *gen, o *T) string) {
	m.ms = append(m.ms, policyMutator[T]{rule: rule, want: want, reps: reps, alone: true, fn: fn})
}

// metadataMutators: the shared metadata rules (already covered in depth by the webhook kinds)
// and the reserved suffix.
func metadataMutators[T any](m *mutatorList[T], prefix string, meta func(*T) *metav1.ObjectMeta) {
	m.alone(1, "metadata.name: empty, no generateName", reject, func(g *gen, o *T) string { meta(o).Name = ""; return `name ""` })
	setName := func(rule string, want verdict, f func(g *gen) string) {
		m.add(rule, want, func(g *gen, o *T) string { meta(o).Name = f(g); return "name " + meta(o).Name })
	}
	setName("metadata.name: upper case", reject, func(g *gen) string { return strings.ToUpper(g.policyName(prefix)) })
	setName("metadata.name: underscore", reject, func(g *gen) string { return strings.Replace(g.policyName(prefix), ".", "_", 1) })
	setName("metadata.name: 254 characters", reject, func(g *gen) string { return g.policyNameOfLength(prefix, 254) })
	setName("metadata.name: 253 characters", accept, func(g *gen) string { return g.policyNameOfLength(prefix, 253) })
	setName("metadata.name: one label", accept, func(g *gen) string { return fmt.Sprintf("%s%04d", prefix, g.id) })
	setName("metadata.name: reserved suffix .static.k8s.io", reject, func(g *gen) string { return fmt.Sprintf("%s%04d.static.k8s.io", prefix, g.id) })
	setName("metadata.name: .static.k8s.io not at the end", accept, func(g *gen) string { return fmt.Sprintf("%s%04d.static.k8s.io.example.com", prefix, g.id) })
	m.some(3, "metadata.generateName: valid, no name", accept, func(g *gen, o *T) string {
		meta(o).Name, meta(o).GenerateName = "", fmt.Sprintf("%s%04d-", prefix, g.id)
		return "generateName " + meta(o).GenerateName
	})
	m.some(3, "metadata.generateName: invalid, no name", reject, func(g *gen, o *T) string {
		meta(o).Name, meta(o).GenerateName = "", fmt.Sprintf("%s%04d_", strings.ToUpper(prefix), g.id)
		return "generateName " + meta(o).GenerateName
	})
	m.some(3, "metadata.generateName: reserved suffix, no name (the generated name does not end with it)", accept, func(g *gen, o *T) string {
		meta(o).Name, meta(o).GenerateName = "", fmt.Sprintf("%s%04d.static.k8s.io", prefix, g.id)
		return "generateName " + meta(o).GenerateName
	})
	m.add("metadata.labels: bad key or value", reject, func(g *gen, o *T) string {
		k, v := pick(g, "-bad", "a/b/c", "ok"), pick(g, "v", "-x", strings.Repeat("v", 64))
		if k == "ok" && v == "v" {
			v = "a b"
		}
		meta(o).Labels = map[string]string{k: v}
		return fmt.Sprintf("label %q=%q", k, shorten(v))
	})
	m.add("metadata.annotations: bad key", reject, func(g *gen, o *T) string {
		k := pick(g, "bad key", "a/b/c", "-x")
		meta(o).Annotations = map[string]string{k: "v"}
		return fmt.Sprintf("annotation key %q", k)
	})
	m.add("metadata.finalizers: not a qualified name", reject, func(g *gen, o *T) string {
		meta(o).Finalizers = []string{"example.com/keep", pick(g, "bad finalizer", "a/b/c")}
		return fmt.Sprintf("finalizers %q", meta(o).Finalizers)
	})
	m.some(3, "metadata.namespace: set (cleared for a cluster-scoped kind)", accept, func(g *gen, o *T) string {
		meta(o).Namespace = pick(g, "default", "Not A Namespace")
		return "namespace " + meta(o).Namespace
	})
}

func (g *gen) policyNameOfLength(prefix string, n int) string {
	head, tail := fmt.Sprintf("%s%04d.", prefix, g.id), ".example.com"
	return head + strings.Repeat("a", n-len(head)-len(tail)) + tail
}

// matchResourcesMutators: the rules of matchConstraints or matchResources (validateMatchResources,
// validateNamedRuleWithOperations, validateRuleWithOperations). mr returns the object's
// MatchResources, made if nil, and its path; mutating says the kind cannot match DELETE.
func matchResourcesMutators[T any](m *mutatorList[T], mr func(g *gen, o *T) (*v1.MatchResources, string), mutating bool) {
	// pickRule returns a random rule of resourceRules (or, sometimes, excludeResourceRules).
	pickRule := func(g *gen, o *T) (*v1.NamedRuleWithOperations, string) {
		r, where := mr(g, o)
		list, name := &r.ResourceRules, "resourceRules"
		if g.chance(0.3) {
			list, name = &r.ExcludeResourceRules, "excludeResourceRules"
		}
		if len(*list) == 0 {
			*list = append(*list, g.validNamedRule(mutating))
		}
		k := g.r.IntN(len(*list))
		return &(*list)[k], fmt.Sprintf("%s.%s[%d]", where, name, k)
	}
	m.add("matchResources.matchPolicy: unsupported", reject, func(g *gen, o *T) string {
		r, where := mr(g, o)
		r.MatchPolicy = ptr(v1.MatchPolicyType(pick(g, "", "exact", "Fuzzy")))
		return fmt.Sprintf("%s.matchPolicy %q", where, *r.MatchPolicy)
	})
	type lsr = metav1.LabelSelectorRequirement
	In, Exists := metav1.LabelSelectorOpIn, metav1.LabelSelectorOpExists
	m.add("matchResources selector: bad requirement", reject, func(g *gen, o *T) string {
		r, where := mr(g, o)
		sel, name := &r.NamespaceSelector, "namespaceSelector"
		if g.chance(0.5) {
			sel, name = &r.ObjectSelector, "objectSelector"
		}
		if *sel == nil {
			*sel = &metav1.LabelSelector{}
		}
		req := pick(g, lsr{Key: "a", Operator: In}, lsr{Key: "a", Operator: Exists, Values: []string{"x"}}, lsr{Key: "-a", Operator: Exists},
			lsr{Key: "a", Operator: "in", Values: []string{"x"}}, lsr{Key: "a", Operator: In, Values: []string{"-bad"}})
		req.Values = slices.Clone(req.Values)
		(*sel).MatchExpressions = append((*sel).MatchExpressions, req)
		return fmt.Sprintf("%s.%s += %s %s %q", where, name, req.Key, req.Operator, req.Values)
	})
	m.add("matchResources selector: bad matchLabels", reject, func(g *gen, o *T) string {
		r, where := mr(g, o)
		r.ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{pick(g, "a/b/c", "ok"): pick(g, "-x", strings.Repeat("v", 64))}}
		return where + ".objectSelector.matchLabels bad"
	})
	m.add("matchResources selector: empty selectors", accept, func(g *gen, o *T) string {
		r, where := mr(g, o)
		r.NamespaceSelector, r.ObjectSelector = &metav1.LabelSelector{}, &metav1.LabelSelector{}
		return where + " selectors {}"
	})
	ops := func(rule string, want verdict, sets ...[]v1.OperationType) {
		m.add(rule, want, func(g *gen, o *T) string {
			r, where := pickRule(g, o)
			r.Operations = slices.Clone(pick(g, sets...))
			return fmt.Sprintf("%s.operations %q", where, r.Operations)
		})
	}
	ops("resourceRules.operations: empty", reject, nil, []v1.OperationType{})
	ops("resourceRules.operations: * with others", reject, []v1.OperationType{"*", "CREATE"}, []v1.OperationType{"UPDATE", "*"})
	ops("resourceRules.operations: unsupported", reject, []v1.OperationType{"create"}, []v1.OperationType{"PATCH"}, []v1.OperationType{"CREATE", ""})
	strs := func(rule string, want verdict, field string, set func(r *v1.NamedRuleWithOperations, v []string), sets ...[]string) {
		m.add(rule, want, func(g *gen, o *T) string {
			r, where := pickRule(g, o)
			v := slices.Clone(pick(g, sets...))
			set(r, v)
			return fmt.Sprintf("%s.%s %q", where, field, v)
		})
	}
	setGroups := func(r *v1.NamedRuleWithOperations, v []string) { r.APIGroups = v }
	setVersions := func(r *v1.NamedRuleWithOperations, v []string) { r.APIVersions = v }
	setResources := func(r *v1.NamedRuleWithOperations, v []string) { r.Resources = v }
	setNames := func(r *v1.NamedRuleWithOperations, v []string) { r.ResourceNames = v }
	strs("resourceRules.apiGroups: empty", reject, "apiGroups", setGroups, nil, []string{})
	strs("resourceRules.apiGroups: * with others", reject, "apiGroups", setGroups, []string{"*", "apps"}, []string{"", "*"})
	strs("resourceRules.apiVersions: empty or empty element", reject, "apiVersions", setVersions, nil, []string{"v1", ""}, []string{"*", "v1"})
	strs("resourceRules.resources: empty or empty element", reject, "resources", setResources, nil, []string{""}, []string{"pods", ""})
	strs("resourceRules.resources: wildcard conflicts", reject, "resources", setResources,
		[]string{"pods/*", "pods/log"}, []string{"*/scale", "deployments/scale"}, []string{"*/*", "pods"}, []string{"*", "pods"})
	strs("resourceRules.resources: order-dependent, accepted", accept, "resources", setResources,
		[]string{"pods/log", "pods/*"}, []string{"pods", "*"}, []string{"*", "pods/status"})
	strs("resourceRules.resourceNames: not a path segment name", reject, "resourceNames", setNames,
		[]string{"a/b"}, []string{"ok", "."}, []string{".."}, []string{"a%b", "c/d"}, []string{"%"})
	strs("resourceRules.resourceNames: duplicate", reject, "resourceNames", setNames, []string{"a", "a"}, []string{"x", "y", "x", "x"})
	strs("resourceRules.resourceNames: anything else goes", accept, "resourceNames", setNames,
		[]string{""}, []string{"A B", "...", "a..b", strings.Repeat("n", 300)}, []string{}, []string{"ü", "-"})
	m.add("resourceRules.scope: unsupported", reject, func(g *gen, o *T) string {
		r, where := pickRule(g, o)
		r.Scope = ptr(v1.ScopeType(pick(g, "namespaced", "", "All")))
		return fmt.Sprintf("%s.scope %q", where, *r.Scope)
	})
	m.add("excludeResourceRules: several, valid", accept, func(g *gen, o *T) string {
		r, where := mr(g, o)
		for range 3 {
			r.ExcludeResourceRules = append(r.ExcludeResourceRules, g.validNamedRule(false))
		}
		return where + ".excludeResourceRules: three more"
	})
}

// policyParts are accessors into the spec fields that the two policy kinds share.
type policyParts[T any] struct {
	prefix           string
	failurePolicy    func(*T) **v1.FailurePolicyType
	paramKind        func(*T) **v1.ParamKind
	matchConstraints func(*T) **v1.MatchResources
	matchConditions  func(*T) *[]v1.MatchCondition
	variables        func(*T) *[]v1.Variable
	// useExpression puts a bool expression where the kind compiles one with the variables and
	// params declared (a validation; for a mutating policy, a match condition cannot see
	// variables, so it is a JSON patch test), and says where.
	useExpression func(g *gen, o *T, expr string) string
	mutating      bool
}

// policyMutators: failurePolicy, paramKind, matchConstraints, match conditions with params, and
// variables, shared by ValidatingAdmissionPolicy and MutatingAdmissionPolicy.
func policyMutators[T any](m *mutatorList[T], pp policyParts[T]) {
	mr := func(g *gen, o *T) (*v1.MatchResources, string) {
		p := pp.matchConstraints(o)
		if *p == nil {
			*p = g.validMatchResources(pp.mutating)
		}
		return *p, "spec.matchConstraints"
	}
	matchResourcesMutators(m, mr, pp.mutating)
	m.alone(4, "matchConstraints: null", reject, func(g *gen, o *T) string {
		*pp.matchConstraints(o) = nil
		return "spec.matchConstraints null"
	})
	m.add("matchConstraints.resourceRules: empty", reject, func(g *gen, o *T) string {
		r, _ := mr(g, o)
		r.ResourceRules = nil
		return "spec.matchConstraints.resourceRules []"
	})

	m.add("failurePolicy: unsupported", reject, func(g *gen, o *T) string {
		*pp.failurePolicy(o) = ptr(v1.FailurePolicyType(pick(g, "", "fail", "Retry")))
		return fmt.Sprintf("spec.failurePolicy %q", **pp.failurePolicy(o))
	})
	m.add("failurePolicy: Fail or Ignore", accept, func(g *gen, o *T) string {
		*pp.failurePolicy(o) = ptr(pick(g, v1.Fail, v1.Ignore))
		return fmt.Sprintf("spec.failurePolicy %q", **pp.failurePolicy(o))
	})

	paramKind := func(rule string, want verdict, kinds ...v1.ParamKind) {
		m.add(rule, want, func(g *gen, o *T) string {
			pk := pick(g, kinds...)
			*pp.paramKind(o) = &pk
			return fmt.Sprintf("spec.paramKind {%q, %q}", pk.APIVersion, pk.Kind)
		})
	}
	paramKind("paramKind: valid", accept, validParamKinds...)
	paramKind("paramKind.apiVersion: empty", reject, v1.ParamKind{Kind: "ConfigMap"})
	paramKind("paramKind.apiVersion: two slashes", reject, v1.ParamKind{APIVersion: "a/b/v1", Kind: "K"}, v1.ParamKind{APIVersion: "//", Kind: "K"})
	paramKind("paramKind.apiVersion: group not a DNS subdomain", reject,
		v1.ParamKind{APIVersion: "Example.com/v1", Kind: "K"}, v1.ParamKind{APIVersion: "a_b/v1", Kind: "K"},
		v1.ParamKind{APIVersion: strings.Repeat("g", 254) + "/v1", Kind: "K"})
	paramKind("paramKind.apiVersion: no version", reject, v1.ParamKind{APIVersion: "apps/", Kind: "K"}, v1.ParamKind{APIVersion: "/", Kind: "K"})
	paramKind("paramKind.apiVersion: version not a DNS-1035 label", reject,
		v1.ParamKind{APIVersion: "V1", Kind: "K"}, v1.ParamKind{APIVersion: "apps/1v", Kind: "K"}, v1.ParamKind{APIVersion: "v1.0", Kind: "K"},
		v1.ParamKind{APIVersion: "Bad_Group/V_1", Kind: "K"})
	paramKind("paramKind.apiVersion: an empty group before the slash", accept, v1.ParamKind{APIVersion: "/v1", Kind: "K"})
	paramKind("paramKind.kind: empty", reject, v1.ParamKind{APIVersion: "v1"}, v1.ParamKind{})
	paramKind("paramKind.kind: not a DNS-1035 label once lower-cased", reject,
		v1.ParamKind{APIVersion: "v1", Kind: "Config_Map"}, v1.ParamKind{APIVersion: "v1", Kind: "1Kind"},
		v1.ParamKind{APIVersion: "v1", Kind: "a.b"}, v1.ParamKind{APIVersion: "v1", Kind: strings.Repeat("K", 64)})

	condition := func(g *gen, o *T, mc v1.MatchCondition) string {
		list := pp.matchConditions(o)
		k := g.r.IntN(len(*list) + 1)
		*list = slices.Insert(*list, k, mc)
		return fmt.Sprintf("spec.matchConditions[%d] = {%q, %q}", k, mc.Name, shorten(mc.Expression))
	}
	expr := func(rule string, want verdict, exprs ...string) {
		m.add(rule, want, func(g *gen, o *T) string {
			return condition(g, o, v1.MatchCondition{Name: "under-test", Expression: pick(g, exprs...)})
		})
	}
	withParams := func(g *gen, o *T) {
		if *pp.paramKind(o) == nil {
			pk := pick(g, validParamKinds...)
			*pp.paramKind(o) = &pk
		}
	}
	expr("matchCondition: valid expressions", accept, validExpressions...)
	expr("matchCondition: not bool", reject, "object.spec.enabled", "1", "'s'", "null", "request", "[true]")
	expr("matchCondition: syntax error", reject, "object.metadata.name ==", "size(", "a b", "true)")
	expr("matchCondition: undeclared reference", reject, "foo", "request.foo == 'x'", "variables.x == 1", "variables == null")
	expr("matchCondition: blank", reject, "", "  ", "\n")
	expr("matchCondition: includes (not in the 1.36 environment)", reject, "[1, 2].includes(1)")
	m.add("matchCondition: params without paramKind", reject, func(g *gen, o *T) string {
		*pp.paramKind(o) = nil
		return condition(g, o, v1.MatchCondition{Name: "p", Expression: pick(g, paramsExpressions...)})
	})
	m.add("matchCondition: params with paramKind", accept, func(g *gen, o *T) string {
		withParams(g, o)
		return condition(g, o, v1.MatchCondition{Name: "p", Expression: pick(g, paramsExpressions...)})
	})
	m.add("matchCondition: variables are not declared there, even with variables", reject, func(g *gen, o *T) string {
		*pp.variables(o) = append(*pp.variables(o), v1.Variable{Name: "declared", Expression: "true"})
		return condition(g, o, v1.MatchCondition{Name: "v", Expression: "variables.declared"})
	})
	cond := func(rule string, want verdict, names ...string) {
		m.add(rule, want, func(g *gen, o *T) string {
			return condition(g, o, v1.MatchCondition{Name: pick(g, names...), Expression: "true"})
		})
	}
	cond("matchCondition name: empty", reject, "")
	cond("matchCondition name: not a qualified name", reject, "bad name", "a/b/c", "-x", strings.Repeat("n", 64))
	m.add("matchCondition name: duplicate", reject, func(g *gen, o *T) string {
		list := pp.matchConditions(o)
		*list = append(*list, v1.MatchCondition{Name: "same", Expression: "true"}, v1.MatchCondition{Name: "same", Expression: "false"})
		return "two conditions named same"
	})
	conditions := func(n int) func(g *gen, o *T) string {
		return func(g *gen, o *T) string {
			list := pp.matchConditions(o)
			*list = nil
			for k := range n {
				*list = append(*list, v1.MatchCondition{Name: fmt.Sprintf("c%d", k), Expression: pick(g, validExpressions...)})
			}
			return fmt.Sprintf("%d match conditions", n)
		}
	}
	m.some(3, "matchConditions: 64 (the maximum)", accept, conditions(64))
	m.some(3, "matchConditions: 65", reject, conditions(65))

	// Variables.
	variable := func(g *gen, o *T, v v1.Variable) string {
		list := pp.variables(o)
		k := g.r.IntN(len(*list) + 1)
		*list = slices.Insert(*list, k, v)
		return fmt.Sprintf("spec.variables[%d] = {%q, %q}", k, v.Name, shorten(v.Expression))
	}
	varName := func(rule string, want verdict, names ...string) {
		m.add(rule, want, func(g *gen, o *T) string {
			return variable(g, o, v1.Variable{Name: pick(g, names...), Expression: "1"})
		})
	}
	varName("variable name: empty or blank", reject, "", " ", "\t")
	varName("variable name: not a CEL identifier", reject, "a-b", "1a", "a.b", "ü", " a", "a b")
	varName("variable name: a reserved word", reject, "in", "true", "null", "namespace", "package", "while")
	varName("variable name: CEL identifiers", accept, "_", "A1", "object", "request", "params", "variables", "int", "has", strings.Repeat("v", 300))
	varExpr := func(rule string, want verdict, exprs ...string) {
		m.add(rule, want, func(g *gen, o *T) string {
			return variable(g, o, v1.Variable{Name: "underTest", Expression: pick(g, exprs...)})
		})
	}
	varExpr("variable expression: empty or blank", reject, "", "  ", "\n\t")
	varExpr("variable expression: any type", accept, "1", "'s'", "null", "object", "[1, 'a'.size()]", "request.userInfo", "authorizer", "optional.of(1)", "type(1)", "duration('1s')")
	varExpr("variable expression: compile error", reject, "1 +", "foo", "'a' + 1", "request.foo", "[1, 'a']", "params.x")
	varExpr("variable expression: includes (not in the 1.36 environment)", reject, "[1].includes(1)")
	m.add("variables: a later variable uses an earlier one", accept, func(g *gen, o *T) string {
		*pp.variables(o) = append(*pp.variables(o), v1.Variable{Name: "first", Expression: "request.userInfo.username"},
			v1.Variable{Name: "second", Expression: "variables.first.size() > 0"})
		return "first, then second = variables.first.size() > 0"
	})
	m.add("variables: a variable uses a later one", reject, func(g *gen, o *T) string {
		*pp.variables(o) = append(*pp.variables(o), v1.Variable{Name: "first", Expression: "variables.second"},
			v1.Variable{Name: "second", Expression: "1"})
		return "first = variables.second, then second"
	})
	m.add("variables: a variable uses itself", reject, func(g *gen, o *T) string {
		return variable(g, o, v1.Variable{Name: "self", Expression: "variables.self + 1"})
	})
	m.add("variables: typed by their expression", reject, func(g *gen, o *T) string {
		*pp.variables(o) = append(*pp.variables(o), v1.Variable{Name: "s", Expression: "'text'"},
			v1.Variable{Name: "t", Expression: pick(g, "variables.s + 1", "variables.s.size() == 'x'", "variables.s.all(x, true)")})
		return "s = 'text', then t misuses it as another type"
	})
	m.add("variables: a variable that does not compile is dyn to the others", reject, func(g *gen, o *T) string {
		*pp.variables(o) = append(*pp.variables(o), v1.Variable{Name: "broken", Expression: "1 +"},
			v1.Variable{Name: "user", Expression: "variables.broken.anything == variables.broken[0]"})
		return "broken = '1 +', then user uses it freely"
	})
	m.add("variables: duplicate names (the later one wins)", accept, func(g *gen, o *T) string {
		*pp.variables(o) = append(*pp.variables(o), v1.Variable{Name: "dup", Expression: "1"},
			v1.Variable{Name: "dup", Expression: "'text'"}, v1.Variable{Name: "after", Expression: "variables.dup.startsWith('t')"})
		return "dup = 1, dup = 'text', after = variables.dup.startsWith('t')"
	})
	m.add("variables: duplicate names, the earlier type is gone", reject, func(g *gen, o *T) string {
		*pp.variables(o) = append(*pp.variables(o), v1.Variable{Name: "dup", Expression: "1"},
			v1.Variable{Name: "dup", Expression: "'text'"}, v1.Variable{Name: "after", Expression: "variables.dup + 1 > 0"})
		return "dup = 1, dup = 'text', after = variables.dup + 1 > 0"
	})
	m.add("variables: params without paramKind", reject, func(g *gen, o *T) string {
		*pp.paramKind(o) = nil
		return variable(g, o, v1.Variable{Name: "p", Expression: "params"})
	})
	m.add("variables: params with paramKind", accept, func(g *gen, o *T) string {
		withParams(g, o)
		return variable(g, o, v1.Variable{Name: "p", Expression: "params.?data.orValue({})"})
	})
	m.add("variables: used where declared", accept, func(g *gen, o *T) string {
		*pp.variables(o) = append(*pp.variables(o), v1.Variable{Name: "declared", Expression: "request.dryRun"})
		return pp.useExpression(g, o, "variables.declared || !variables.declared")
	})
	m.add("variables: an undeclared variable used", reject, func(g *gen, o *T) string {
		return pp.useExpression(g, o, "variables.notDeclared == 1")
	})
	m.add("variables: params used without paramKind", reject, func(g *gen, o *T) string {
		*pp.paramKind(o) = nil
		return pp.useExpression(g, o, pick(g, paramsExpressions...))
	})
	m.add("variables: params used with paramKind", accept, func(g *gen, o *T) string {
		withParams(g, o)
		return pp.useExpression(g, o, pick(g, paramsExpressions...))
	})
	m.some(3, "variables: many", accept, func(g *gen, o *T) string {
		list := pp.variables(o)
		for k := range 40 {
			*list = append(*list, v1.Variable{Name: fmt.Sprintf("v%d", k), Expression: fmt.Sprintf("%d", k)})
		}
		return pp.useExpression(g, o, "variables.v0 + variables.v39 == 39")
	})
}

// bindingParts are accessors into the spec fields that the two binding kinds share.
type bindingParts[T any] struct {
	policyName     func(*T) *string
	paramRef       func(*T) **v1.ParamRef
	matchResources func(*T) **v1.MatchResources
	mutating       bool
}

// bindingMutators: policyName, paramRef and matchResources, shared by the two binding kinds.
func bindingMutators[T any](m *mutatorList[T], bp bindingParts[T]) {
	mr := func(g *gen, o *T) (*v1.MatchResources, string) {
		p := bp.matchResources(o)
		if *p == nil {
			*p = g.validMatchResources(bp.mutating)
		}
		return *p, "spec.matchResources"
	}
	matchResourcesMutators(m, mr, bp.mutating)
	m.add("matchResources: null or without resource rules", accept, func(g *gen, o *T) string {
		if g.chance(0.5) {
			*bp.matchResources(o) = nil
			return "spec.matchResources null"
		}
		r, _ := mr(g, o)
		r.ResourceRules = nil
		return "spec.matchResources.resourceRules []"
	})

	name := func(rule string, want verdict, names ...string) {
		m.add(rule, want, func(g *gen, o *T) string {
			*bp.policyName(o) = pick(g, names...)
			return fmt.Sprintf("spec.policyName %q", shorten(*bp.policyName(o)))
		})
	}
	name("policyName: empty", reject, "")
	name("policyName: not a DNS subdomain", reject, "Bad_Name", "UPPER", "a.", "-a", strings.Repeat("p", 254), "a b")
	name("policyName: DNS subdomains", accept, "p", "a.b.c", strings.Repeat("p", 253), "0-0")

	ref := func(rule string, want verdict, f func(g *gen, pr *v1.ParamRef) string) {
		m.add(rule, want, func(g *gen, o *T) string {
			pr := g.validParamRef()
			*bp.paramRef(o) = pr
			return "spec.paramRef " + f(g, pr)
		})
	}
	ref("paramRef: valid", accept, func(g *gen, pr *v1.ParamRef) string {
		return fmt.Sprintf("name %q selector %v", pr.Name, pr.Selector != nil)
	})
	ref("paramRef: name and selector", reject, func(g *gen, pr *v1.ParamRef) string {
		pr.Name, pr.Selector = "params", &metav1.LabelSelector{}
		return "name params and selector {}"
	})
	ref("paramRef: neither name nor selector", reject, func(g *gen, pr *v1.ParamRef) string {
		pr.Name, pr.Selector = "", nil
		return "no name, no selector"
	})
	ref("paramRef.name: not a path segment name", reject, func(g *gen, pr *v1.ParamRef) string {
		pr.Name, pr.Selector = pick(g, ".", "..", "a/b", "a%b", "%/"), nil
		return fmt.Sprintf("name %q", pr.Name)
	})
	ref("paramRef.name: bad name and a selector", reject, func(g *gen, pr *v1.ParamRef) string {
		pr.Name, pr.Selector = "a/b", &metav1.LabelSelector{MatchLabels: map[string]string{"a": "-bad"}}
		return "name a/b and a bad selector"
	})
	ref("paramRef.selector: bad", reject, func(g *gen, pr *v1.ParamRef) string {
		pr.Name = ""
		pr.Selector = pick(g, &metav1.LabelSelector{MatchLabels: map[string]string{"a/b/c": "v"}},
			&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: metav1.LabelSelectorOpIn}}},
			&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"-x"}}}})
		return "a bad selector"
	})
	ref("paramRef.namespace: not checked", accept, func(g *gen, pr *v1.ParamRef) string {
		pr.Namespace = pick(g, "Not A Namespace!", strings.Repeat("n", 300), "a/b")
		return fmt.Sprintf("namespace %q", shorten(pr.Namespace))
	})
	ref("paramRef.parameterNotFoundAction: missing", reject, func(g *gen, pr *v1.ParamRef) string {
		pr.ParameterNotFoundAction = pick(g, nil, ptr(v1.ParameterNotFoundActionType("")))
		return "no parameterNotFoundAction"
	})
	ref("paramRef.parameterNotFoundAction: unsupported", reject, func(g *gen, pr *v1.ParamRef) string {
		pr.ParameterNotFoundAction = ptr(v1.ParameterNotFoundActionType(pick(g, "deny", "Ignore", "Fail")))
		return fmt.Sprintf("parameterNotFoundAction %q", *pr.ParameterNotFoundAction)
	})
	ref("paramRef: everything wrong at once", reject, func(g *gen, pr *v1.ParamRef) string {
		pr.Name, pr.Selector, pr.ParameterNotFoundAction = "..", &metav1.LabelSelector{MatchLabels: map[string]string{"-": "-"}}, ptr(v1.ParameterNotFoundActionType("x"))
		return "bad name, bad selector, bad action"
	})
}
