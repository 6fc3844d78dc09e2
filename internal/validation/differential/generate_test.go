package differential

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	v1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The generator makes MutatingWebhookConfiguration objects as a user writes them: before the
// server's defaulting, with optional fields often left out. Every object gets its own
// metadata.name ("c0042.differential.example.com"), except the few cases about names, whose
// names still carry the case number (and the single case with no name at all).
//
// It is deterministic: the same seed gives the same objects in the same order.

// seed is fixed so that every run sends the same objects; change it to explore.
const seed = 20260427

type mwc = v1.MutatingWebhookConfiguration

// verdict is what the server's rules say it does with an object.
type verdict int

const (
	unknown verdict = iota // the rules do not settle it; only the comparison with Validate counts
	accept
	reject
)

func (v verdict) String() string {
	return [...]string{"unknown", "accept", "reject"}[v]
}

// testCase is one generated object and what it is meant to exercise.
type testCase struct {
	id    int
	rule  string  // the server's rule it exercises (validRule for untouched random objects)
	want  verdict // the rule's verdict
	note  string  // the change made to a valid object, for reports
	steps []step  // the mutators that made it from a valid object, in order (none for those)
	obj   *mwc
}

// validRule is the rule of the untouched random objects.
const validRule = "valid: random configuration"

// step is one mutator's change to the valid object a case was made from.
type step struct {
	rule, note   string
	mutatingOnly bool // see mutator.mutatingOnly
}

// describe gives the rule and the note of a case made from a valid object by steps.
func describe(steps []step) (rule, note string) {
	switch len(steps) {
	case 0:
		return validRule, ""
	case 1:
		return steps[0].rule, steps[0].note
	}
	notes := make([]string, len(steps))
	for k, s := range steps {
		notes[k] = s.rule + ": " + s.note
	}
	return fmt.Sprintf("several rules broken at once (%d)", len(steps)), strings.Join(notes, "; ")
}

func (c testCase) String() string {
	s := fmt.Sprintf("#%d %s [%s]", c.id, c.rule, c.want)
	if c.note != "" {
		s += ": " + c.note
	}
	return s
}

// mutator breaks (or, for the accepted edge cases, bends) a valid object in one way.
type mutator struct {
	rule string
	want verdict
	reps int // how many objects get it; 0 means defaultReps
	// mutatingOnly marks a rule about a field that only a MutatingWebhook has
	// (reinvocationPolicy): a ValidatingWebhookConfiguration made from the object keeps no trace
	// of the change (see validatingCases).
	mutatingOnly bool
	fn           func(g *gen, o *mwc) string
}

// apply makes the mutator's change to o.
func (m mutator) apply(g *gen, o *mwc) step {
	return step{rule: m.rule, note: m.fn(g, o), mutatingOnly: m.mutatingOnly}
}

const (
	defaultReps   = 8   // objects per mutator
	validObjects  = 800 // untouched random valid objects
	combinedCases = 300 // objects broken by 2-4 rules at once
)

type gen struct {
	r  *rand.Rand
	id int // number of the object being made
}

func pick[T any](g *gen, xs ...T) T { return xs[g.r.IntN(len(xs))] }

func ptr[T any](v T) *T { return &v }

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

// generate returns every test case, valid objects first, then each mutator's cases, then the
// combined ones.
func generate() []testCase {
	g := &gen{r: rand.New(rand.NewPCG(seed, seed>>7))}
	var cases []testCase
	add := func(want verdict, o *mwc, steps ...step) {
		rule, note := describe(steps)
		cases = append(cases, testCase{id: g.id, rule: rule, want: want, note: note, steps: steps, obj: o})
		g.id++
	}
	for range validObjects {
		add(accept, g.validObject())
	}
	muts := mutators()
	for _, m := range muts {
		reps := m.reps
		if reps == 0 {
			reps = defaultReps
		}
		for range reps {
			o := g.validObject()
			add(m.want, o, m.apply(g, o))
		}
	}
	var rejecting []mutator
	for _, m := range muts {
		if m.want == reject && !m.single() {
			rejecting = append(rejecting, m)
		}
	}
	for range combinedCases {
		o := g.validObject()
		n := 2 + g.r.IntN(3)
		var steps []step
		for _, k := range g.r.Perm(len(rejecting))[:n] {
			steps = append(steps, rejecting[k].apply(g, o))
		}
		add(reject, o, steps...)
	}
	return cases
}

// single reports a mutator that is meant to run once: combining it would give a second object
// without a name, or a huge one.
func (m mutator) single() bool {
	return m.reps == 1 || strings.Contains(m.rule, "annotations: 26214") || strings.Contains(m.rule, "100,001")
}

// ---------------------------------------------------------------------------------------------
// Valid objects

func (g *gen) name() string { return fmt.Sprintf("c%04d.differential.example.com", g.id) }

func (g *gen) validObject() *mwc {
	o := &mwc{ObjectMeta: metav1.ObjectMeta{Name: g.name()}}
	if g.chance(0.3) {
		o.Labels = map[string]string{}
		for range 1 + g.r.IntN(3) {
			o.Labels[pick(g, validLabelKeys...)] = pick(g, validLabelValues...)
		}
	}
	if g.chance(0.2) {
		o.Annotations = map[string]string{pick(g, "example.com/owner", "Owner", "note"): pick(g, "team-a", "", "any text, even\nlines")}
	}
	n := 1 + g.r.IntN(3)
	if g.chance(0.03) {
		n = 0 // zero webhooks is valid
	}
	for k := range n {
		o.Webhooks = append(o.Webhooks, g.validWebhook(k))
	}
	return o
}

var (
	validLabelKeys   = []string{"app", "example.com/team", "Tier", "a.b-c_d", "x", "k8s.io/Name_1.x"}
	validLabelValues = []string{"", "web", "V1.2-3_x", strings.Repeat("v", 63), "0"}
	validNamespaces  = []string{"default", "webhooks", "kube-system", "Not_A_DNS_Label!", "ns.with.dots"}
	validServices    = []string{"injector", "svc", "Weird_Name", "a.b"}
	validPaths       = []*string{nil, ptr(""), ptr("/"), ptr("/mutate"), ptr("/a/"), ptr("/apis/foo.bar/v1"), ptr("/mutate-pods/v1"), ptr("/0")}
	validPorts       = []*int32{nil, ptr(int32(1)), ptr(int32(443)), ptr(int32(8443)), ptr(int32(65535))}
	validURLs        = []string{
		"https://webhook.example.com/mutate", "https://10.0.0.1:8443/x", "HTTPS://h.example.com",
		"https://h.example.com#", "https://h.example.com?", "https://:443", "https://h:99999", "https://h:0",
		"https://[::1]:8443/p", "https://Upper_Case.example.com/Any//Path/", "https://h", "hTTps://h/x",
	}
	validOperations = [][]v1.OperationType{
		{v1.OperationAll}, {v1.Create}, {v1.Create, v1.Update}, {v1.Delete, v1.Connect}, {v1.Create, v1.Create},
		{v1.Update, v1.Delete, v1.Connect, v1.Create},
	}
	validGroups    = [][]string{{""}, {"apps"}, {"*"}, {"", "apps", "batch"}, {"Any Thing!"}, {"apps", "apps"}}
	validVersions  = [][]string{{"v1"}, {"*"}, {"v1", "v1beta1"}, {"V1!"}, {"v1", "v1"}}
	validResources = [][]string{
		{"pods"}, {"pods", "pods/status"}, {"*"}, {"*/*"}, {"*/scale"}, {"deployments", "deployments/scale"},
		{"pods/log", "pods/*"}, {"pods", "*"}, {"*", "pods/status"}, {"*", "*"}, {"deployments/scale", "*/scale"},
		{"pods/a/b"}, {"Pods"}, {"pods", "pods"}, {"configmaps", "secrets", "*"},
	}
	validScopes = []*v1.ScopeType{nil, ptr(v1.AllScopes), ptr(v1.ClusterScope), ptr(v1.NamespacedScope)}
	validARVs   = [][]string{{"v1"}, {"v1", "v1beta1"}, {"v1beta1"}, {"v1beta1", "v1"}, {"v2", "v1"}, {"v1", "v1alpha9"}}
)

// validExpressions compile to bool in the NewExpressions environment of a 1.37 server (compat 1.36).
var validExpressions = []string{
	"true",
	"object.metadata.name == 'x'",
	"request.namespace == 'default'",
	"has(object.metadata.labels) && 'app' in object.metadata.labels",
	"request.userInfo.username != 'system:admin'",
	"request.userInfo.groups.exists(g, g == 'system:masters')",
	"request.dryRun",
	"request.options == null",
	"request.operation in ['CREATE', 'UPDATE']",
	"oldObject == null",
	"namespaceObject.metadata.name == 'x'",
	"authorizer.requestResource.check('get').allowed()",
	"authorizer.serviceAccount('ns', 'sa').group('').resource('pods').namespace('ns').check('create').allowed()",
	"authorizer.requestResource.labelSelector('a=b').check('list').allowed()",
	"[3, 1, 2].sort() == [1, 2, 3]",
	"[1, 2].slice(0, 1) == [1]",
	"lists.range(3).size() == 3",
	"[1, 2].isSorted()",
	"'abc'.charAt(0) == 'a'",
	"'a,b'.split(',').size() == 2",
	"semver('1.2.3').major() == 1",
	"quantity('1Gi').isInteger()",
	"ip('10.0.0.1').family() == 4",
	"cidr('10.0.0.0/8').containsIP('10.1.2.3')",
	"isURL('https://example.com') && url('https://example.com').getHost() == 'example.com'",
	"sets.contains([1, 2], [1])",
	"[1, 2].all(i, v, i >= 0 && v > 0)",
	"{'a': 1}.transformMap(k, v, v + 1) == {'a': 2}",
	"object.?metadata.?name.orValue('') == 'x'",
	"!format.dns1123Label().validate('x').hasValue()",
	"'abc'.matches('^a')",
	"duration('1s') < duration('2s')",
	"  true  ",
	"object.spec.enabled == true",
}

func (g *gen) validWebhook(k int) v1.MutatingWebhook {
	h := v1.MutatingWebhook{
		Name:                    fmt.Sprintf("w%d-%s.hooks.example.com", k, pick(g, "sidecar", "inject", "defaults", "labels")),
		AdmissionReviewVersions: slices.Clone(pick(g, validARVs...)),
		SideEffects:             ptr(pick(g, v1.SideEffectClassNone, v1.SideEffectClassNoneOnDryRun)),
	}
	if g.chance(0.5) {
		h.FailurePolicy = ptr(pick(g, v1.Fail, v1.Ignore))
	}
	if g.chance(0.3) {
		h.MatchPolicy = ptr(pick(g, v1.Equivalent, v1.Exact))
	}
	if g.chance(0.3) {
		h.ReinvocationPolicy = ptr(pick(g, v1.NeverReinvocationPolicy, v1.IfNeededReinvocationPolicy))
	}
	if g.chance(0.4) {
		h.TimeoutSeconds = ptr(int32(1 + g.r.IntN(30)))
	}
	if g.chance(0.5) {
		h.ClientConfig.URL = ptr(pick(g, validURLs...))
	} else {
		h.ClientConfig.Service = &v1.ServiceReference{
			Namespace: pick(g, validNamespaces...),
			Name:      pick(g, validServices...),
			Path:      pick(g, validPaths...),
			Port:      pick(g, validPorts...),
		}
	}
	switch g.r.IntN(4) {
	case 1:
		h.ClientConfig.CABundle = []byte("-----BEGIN CERTIFICATE-----\nnot really\n-----END CERTIFICATE-----\n")
	case 2:
		h.ClientConfig.CABundle = []byte{0, 1, 2, 0xff, 'x'} // not validated at all
	}
	for range g.r.IntN(4) {
		h.Rules = append(h.Rules, g.validRule())
	}
	h.NamespaceSelector = g.validSelector()
	h.ObjectSelector = g.validSelector()
	for j := range g.r.IntN(4) {
		h.MatchConditions = append(h.MatchConditions, v1.MatchCondition{
			Name:       fmt.Sprintf("%s%d", pick(g, "c", "example.com/cond-", "A_b."), j),
			Expression: pick(g, validExpressions...),
		})
	}
	return h
}

func (g *gen) validRule() v1.RuleWithOperations {
	return v1.RuleWithOperations{
		Operations: slices.Clone(pick(g, validOperations...)),
		Rule: v1.Rule{
			APIGroups:   slices.Clone(pick(g, validGroups...)),
			APIVersions: slices.Clone(pick(g, validVersions...)),
			Resources:   slices.Clone(pick(g, validResources...)),
			Scope:       pick(g, validScopes...),
		},
	}
}

func (g *gen) validSelector() *metav1.LabelSelector {
	switch g.r.IntN(4) {
	case 0:
		return nil
	case 1:
		return &metav1.LabelSelector{}
	}
	s := &metav1.LabelSelector{}
	if g.chance(0.5) {
		s.MatchLabels = map[string]string{pick(g, validLabelKeys...): pick(g, validLabelValues...)}
	}
	for range g.r.IntN(3) {
		s.MatchExpressions = append(s.MatchExpressions, g.validRequirement())
	}
	return s
}

func (g *gen) validRequirement() metav1.LabelSelectorRequirement {
	req := metav1.LabelSelectorRequirement{Key: pick(g, validLabelKeys...)}
	switch g.r.IntN(4) {
	case 0:
		req.Operator = metav1.LabelSelectorOpIn
	case 1:
		req.Operator = metav1.LabelSelectorOpNotIn
	case 2:
		req.Operator = metav1.LabelSelectorOpExists
		return req
	default:
		req.Operator = metav1.LabelSelectorOpDoesNotExist
		return req
	}
	for range 1 + g.r.IntN(3) {
		req.Values = append(req.Values, pick(g, validLabelValues...))
	}
	return req
}

// ---------------------------------------------------------------------------------------------
// Helpers for mutators: each picks a random place in the object, making one if needed.

// hook returns a random webhook, adding one if there is none.
func (g *gen) hook(o *mwc) (*v1.MutatingWebhook, int) {
	if len(o.Webhooks) == 0 {
		o.Webhooks = append(o.Webhooks, g.validWebhook(0))
	}
	i := g.r.IntN(len(o.Webhooks))
	return &o.Webhooks[i], i
}

// twoHooks returns two distinct webhooks i < j, adding webhooks as needed.
func (g *gen) twoHooks(o *mwc) (a, b *v1.MutatingWebhook, i, j int) {
	for len(o.Webhooks) < 2 {
		o.Webhooks = append(o.Webhooks, g.validWebhook(len(o.Webhooks)))
	}
	p := g.r.Perm(len(o.Webhooks))[:2]
	i, j = min(p[0], p[1]), max(p[0], p[1])
	return &o.Webhooks[i], &o.Webhooks[j], i, j
}

// rule returns a random rule of a random webhook, adding one if there is none.
func (g *gen) rule(o *mwc) (*v1.RuleWithOperations, string) {
	h, i := g.hook(o)
	if len(h.Rules) == 0 {
		h.Rules = append(h.Rules, g.validRule())
	}
	j := g.r.IntN(len(h.Rules))
	return &h.Rules[j], fmt.Sprintf("webhooks[%d].rules[%d]", i, j)
}

// selector returns the namespace or object selector of a random webhook, made non-nil.
func (g *gen) selector(o *mwc) (*metav1.LabelSelector, string) {
	h, i := g.hook(o)
	p := &h.NamespaceSelector
	where := fmt.Sprintf("webhooks[%d].namespaceSelector", i)
	if g.chance(0.5) {
		p = &h.ObjectSelector
		where = fmt.Sprintf("webhooks[%d].objectSelector", i)
	}
	if *p == nil {
		*p = &metav1.LabelSelector{}
	}
	return *p, where
}

// requirement appends req at a random position of a random selector's matchExpressions.
func (g *gen) requirement(o *mwc, req metav1.LabelSelectorRequirement) string {
	s, where := g.selector(o)
	k := g.r.IntN(len(s.MatchExpressions) + 1)
	s.MatchExpressions = slices.Insert(s.MatchExpressions, k, req)
	return fmt.Sprintf("%s.matchExpressions[%d] = %s %s %q", where, k, req.Key, req.Operator, req.Values)
}

// condition inserts mc at a random position of a random webhook's matchConditions.
func (g *gen) condition(o *mwc, mc v1.MatchCondition) string {
	h, i := g.hook(o)
	k := g.r.IntN(len(h.MatchConditions) + 1)
	h.MatchConditions = slices.Insert(h.MatchConditions, k, mc)
	return fmt.Sprintf("webhooks[%d].matchConditions[%d] = {%q, %q}", i, k, mc.Name, shorten(mc.Expression))
}

// expression inserts a condition with a fresh valid name and the given expression.
func (g *gen) expression(o *mwc, expr string) string {
	return g.condition(o, v1.MatchCondition{Name: "under-test", Expression: expr})
}

func shorten(s string) string {
	if len(s) > 60 {
		return fmt.Sprintf("%s…(%d chars)", s[:40], len(s))
	}
	return s
}

// nameOfLength is a valid DNS subdomain of exactly n characters that carries the case number.
// DNS subdomains have no limit per label, only the 253 in total.
func (g *gen) nameOfLength(n int) string {
	head, tail := fmt.Sprintf("c%04d.", g.id), ".example.com"
	return head + strings.Repeat("a", n-len(head)-len(tail)) + tail
}

// hookNameOfLength is a valid three-segment webhook name of exactly n characters.
func hookNameOfLength(n int) string {
	const tail = ".example.com"
	return strings.Repeat("h", n-len(tail)) + tail
}

// ---------------------------------------------------------------------------------------------
// Mutators, by the server's rule they break.

func mutators() []mutator {
	var ms []mutator
	add := func(rule string, want verdict, fn func(g *gen, o *mwc) string) {
		ms = append(ms, mutator{rule: rule, want: want, fn: fn})
	}
	once := func(rule string, want verdict, fn func(g *gen, o *mwc) string) {
		ms = append(ms, mutator{rule: rule, want: want, reps: 1, fn: fn})
	}
	some := func(reps int, rule string, want verdict, fn func(g *gen, o *mwc) string) {
		ms = append(ms, mutator{rule: rule, want: want, reps: reps, fn: fn})
	}

	// 2.2 metadata
	once("2.2 metadata.name: empty, no generateName", reject, func(g *gen, o *mwc) string { o.Name = ""; return `name ""` })
	setName := func(rule string, want verdict, f func(g *gen) string) {
		add(rule, want, func(g *gen, o *mwc) string { o.Name = f(g); return "name " + o.Name })
	}
	setName("2.2 metadata.name: upper case", reject, func(g *gen) string { return strings.ToUpper(g.name()[:1]) + g.name()[1:] })
	setName("2.2 metadata.name: trailing dot", reject, func(g *gen) string { return g.name() + "." })
	setName("2.2 metadata.name: underscore", reject, func(g *gen) string { return strings.Replace(g.name(), ".", "_", 1) })
	setName("2.2 metadata.name: contains / or %", reject, func(g *gen) string { return g.name() + pick(g, "/x", "%x", "/..") })
	setName("2.2 metadata.name: 254 characters", reject, func(g *gen) string { return g.nameOfLength(254) })
	setName("2.2 metadata.name: 253 characters", accept, func(g *gen) string { return g.nameOfLength(253) })
	setName("2.2 metadata.name: a label over 63 characters", accept, func(g *gen) string { return fmt.Sprintf("c%04d%s.example.com", g.id, strings.Repeat("l", 70)) })
	setName("2.2 metadata.name: one label", accept, func(g *gen) string { return fmt.Sprintf("c%04d", g.id) })
	setName("2.12 metadata.name: reserved suffix .static.k8s.io", reject, func(g *gen) string { return fmt.Sprintf("c%04d.static.k8s.io", g.id) })
	setName("2.12 metadata.name: .static.k8s.io not at the end", accept, func(g *gen) string {
		return pick(g, fmt.Sprintf("c%04d.static.k8s.io.example.com", g.id), fmt.Sprintf("c%04d-static.k8s.io", g.id))
	})
	some(3, "2.2 metadata.generateName: valid, no name", accept, func(g *gen, o *mwc) string {
		o.Name, o.GenerateName = "", fmt.Sprintf("c%04d-%s", g.id, pick(g, "gen-", "gen", "a.b-"))
		return "generateName " + o.GenerateName
	})
	some(3, "2.2 metadata.generateName: long (cut to 58)", accept, func(g *gen, o *mwc) string {
		o.Name, o.GenerateName = "", fmt.Sprintf("c%04d-%s-", g.id, strings.Repeat("g", 80))
		return "generateName " + shorten(o.GenerateName)
	})
	some(3, "2.2 metadata.generateName: invalid, no name", reject, func(g *gen, o *mwc) string {
		o.Name, o.GenerateName = "", fmt.Sprintf("C%04d-%s", g.id, pick(g, "Gen-", "g_", "x."))
		return "generateName " + o.GenerateName
	})
	some(3, "2.2 metadata.generateName: invalid, name set", reject, func(g *gen, o *mwc) string {
		o.GenerateName = pick(g, "Bad_", "-x", "a..")
		return "generateName " + o.GenerateName
	})
	some(3, "2.2 metadata.namespace: set (cleared for a cluster-scoped kind)", accept, func(g *gen, o *mwc) string {
		o.Namespace = pick(g, "default", "Not A Namespace")
		return "namespace " + o.Namespace
	})
	add("2.2 metadata.labels: bad key", reject, func(g *gen, o *mwc) string {
		k := pick(g, "-bad", "a/b/c", "example.com/", "/x", "Exa_mple.com/x", strings.Repeat("k", 64), "bad key", "")
		o.Labels = map[string]string{k: "v", "ok": "v"}
		return fmt.Sprintf("label key %q", k)
	})
	add("2.2 metadata.labels: bad value", reject, func(g *gen, o *mwc) string {
		v := pick(g, "-x", strings.Repeat("v", 64), "a b", "x-", "ü")
		o.Labels = map[string]string{"app": v}
		return fmt.Sprintf("label value %q", shorten(v))
	})
	add("2.2 metadata.labels: two keys with the same bad value", reject, func(g *gen, o *mwc) string {
		o.Labels = map[string]string{"a": "-bad-", "b": "-bad-", "c": "-worse-"}
		return "labels a=-bad- b=-bad- c=-worse-"
	})
	add("2.2 metadata.labels: valid edge cases", accept, func(g *gen, o *mwc) string {
		o.Labels = map[string]string{"empty": "", "example.com/Name_1.x": strings.Repeat("v", 63), "K": "V", strings.Repeat("k", 63): "x"}
		return "labels with empty and 63-character values, 63-character key"
	})
	add("2.2 metadata.annotations: bad key", reject, func(g *gen, o *mwc) string {
		k := pick(g, "bad key", "a/b/c", "-x", "example.com/", "")
		o.Annotations = map[string]string{k: "v"}
		return fmt.Sprintf("annotation key %q", k)
	})
	add("2.2 metadata.annotations: upper-case key (lower-cased first)", accept, func(g *gen, o *mwc) string {
		k := pick(g, "Example.COM/Owner", "UPPER", "A.B/C_d")
		o.Annotations = map[string]string{k: "any value at all: -_ ü"}
		return fmt.Sprintf("annotation key %q", k)
	})
	some(2, "2.2 metadata.annotations: 262145 bytes", reject, func(g *gen, o *mwc) string {
		o.Annotations = map[string]string{"big": strings.Repeat("x", 262144-3+1)}
		return "key+value 262145 bytes"
	})
	some(2, "2.2 metadata.annotations: exactly 262144 bytes", accept, func(g *gen, o *mwc) string {
		o.Annotations = map[string]string{"big": strings.Repeat("x", 262144-3)}
		return "key+value 262144 bytes"
	})
	add("2.2 metadata.finalizers: not a qualified name", reject, func(g *gen, o *mwc) string {
		f := pick(g, "bad finalizer", "a/b/c", "-x", "example.com/", "")
		o.Finalizers = []string{"example.com/keep", f}
		return fmt.Sprintf("finalizers [example.com/keep %q]", f)
	})
	add("2.2 metadata.finalizers: valid", accept, func(g *gen, o *mwc) string {
		o.Finalizers = slices.Clone(pick(g, []string{"example.com/keep"}, []string{"orphan"}, []string{"foregroundDeletion"}, []string{"kubernetes", "x"}))
		return fmt.Sprintf("finalizers %q", o.Finalizers)
	})
	add("2.2 metadata.finalizers: orphan and foregroundDeletion", reject, func(g *gen, o *mwc) string {
		o.Finalizers = []string{"orphan", "example.com/x", "foregroundDeletion"}
		return "finalizers [orphan example.com/x foregroundDeletion]"
	})
	add("2.2 metadata.finalizers: duplicates", unknown, func(g *gen, o *mwc) string {
		o.Finalizers = []string{"example.com/x", "example.com/x"}
		return "finalizers [example.com/x example.com/x]"
	})
	owner := func(uid string) metav1.OwnerReference {
		return metav1.OwnerReference{APIVersion: "v1", Kind: "Namespace", Name: "owner", UID: types.UID(uid)}
	}
	add("2.2 metadata.ownerReferences: valid", accept, func(g *gen, o *mwc) string {
		a, b := owner("u1"), owner("u2")
		a.Controller, b.BlockOwnerDeletion = ptr(true), ptr(g.chance(0.5))
		b.APIVersion = "apps/v1"
		o.OwnerReferences = []metav1.OwnerReference{a, b}
		return "two owners, one controller"
	})
	add("2.2 metadata.ownerReferences: a required field empty", reject, func(g *gen, o *mwc) string {
		ref := owner("u1")
		f := pick(g, "apiVersion", "kind", "name", "uid")
		switch f {
		case "apiVersion":
			ref.APIVersion = ""
		case "kind":
			ref.Kind = ""
		case "name":
			ref.Name = ""
		case "uid":
			ref.UID = ""
		}
		o.OwnerReferences = []metav1.OwnerReference{owner("u0"), ref}
		return "ownerReferences[1]." + f + " empty"
	})
	add("2.2 metadata.ownerReferences: apiVersion not a group/version", reject, func(g *gen, o *mwc) string {
		ref := owner("u1")
		ref.APIVersion = pick(g, "a/b/c", "apps/v1/x")
		o.OwnerReferences = []metav1.OwnerReference{ref}
		return "apiVersion " + ref.APIVersion
	})
	add("2.2 metadata.ownerReferences: apiVersion with an empty group", unknown, func(g *gen, o *mwc) string {
		ref := owner("u1")
		ref.APIVersion = pick(g, "/v1", "apps/")
		o.OwnerReferences = []metav1.OwnerReference{ref}
		return "apiVersion " + ref.APIVersion
	})
	add("2.2 metadata.ownerReferences: two controllers", reject, func(g *gen, o *mwc) string {
		a, b := owner("u1"), owner("u2")
		a.Controller, b.Controller = ptr(true), ptr(true)
		o.OwnerReferences = []metav1.OwnerReference{a, b}
		return "two distinct owners with controller: true"
	})
	add("2.2 metadata.ownerReferences: the same controller owner twice", unknown, func(g *gen, o *mwc) string {
		a := owner("u1")
		a.Controller = ptr(true)
		o.OwnerReferences = []metav1.OwnerReference{a, a}
		return "identical owner reference (controller: true) twice"
	})
	add("2.2 metadata.ownerReferences: the same owner twice", unknown, func(g *gen, o *mwc) string {
		o.OwnerReferences = []metav1.OwnerReference{owner("u1"), owner("u1")}
		return "identical owner reference twice"
	})

	// 2.3 webhook names
	hookName := func(rule string, want verdict, names ...string) {
		add(rule, want, func(g *gen, o *mwc) string {
			h, i := g.hook(o)
			h.Name = pick(g, names...)
			return fmt.Sprintf("webhooks[%d].name %q", i, h.Name)
		})
	}
	hookName("2.3 webhook name: empty", reject, "")
	hookName("2.3 webhook name: two segments", reject, "a.b", "hook.example", "example.com")
	hookName("2.3 webhook name: one segment", reject, "hook", "x")
	hookName("2.3 webhook name: upper case", reject, "Hook.example.com", "hook.EXAMPLE.com")
	hookName("2.3 webhook name: trailing dot", reject, "hook.example.com.", "a.b.")
	hookName("2.3 webhook name: empty segment or bad character", reject, "hook..example.com", ".hook.example.com", "hook_x.example.com", "hook.-x.example.com")
	hookName("2.3 webhook name: 254 characters", reject, hookNameOfLength(254))
	hookName("2.3 webhook name: 253 characters", accept, hookNameOfLength(253))
	hookName("2.3 webhook name: a segment over 63 characters", accept, strings.Repeat("s", 70)+".example.com")
	add("2.3 webhook name: duplicate", reject, func(g *gen, o *mwc) string {
		a, b, i, j := g.twoHooks(o)
		b.Name = a.Name
		return fmt.Sprintf("webhooks[%d].name = webhooks[%d].name", j, i)
	})
	add("2.3 webhook name: two empty names (not duplicates)", reject, func(g *gen, o *mwc) string {
		a, b, i, j := g.twoHooks(o)
		a.Name, b.Name = "", ""
		return fmt.Sprintf("webhooks[%d].name and webhooks[%d].name empty", i, j)
	})
	add("2.3 webhook name: the same name twice, once invalid", reject, func(g *gen, o *mwc) string {
		a, b, i, j := g.twoHooks(o)
		a.Name = "a.b"
		b.Name = "a.b"
		return fmt.Sprintf("webhooks[%d] and webhooks[%d] both named a.b", i, j)
	})

	// 2.4 rules
	ops := func(rule string, want verdict, sets ...[]v1.OperationType) {
		add(rule, want, func(g *gen, o *mwc) string {
			r, where := g.rule(o)
			r.Operations = slices.Clone(pick(g, sets...))
			return fmt.Sprintf("%s.operations %q", where, r.Operations)
		})
	}
	ops("2.4 operations: empty", reject, nil, []v1.OperationType{})
	ops("2.4 operations: * with others", reject, []v1.OperationType{"*", "CREATE"}, []v1.OperationType{"UPDATE", "*"})
	ops("2.4 operations: unsupported", reject, []v1.OperationType{"create"}, []v1.OperationType{"PATCH"}, []v1.OperationType{""}, []v1.OperationType{"CREATE", "GET", "Delete"})
	ops("2.4 operations: * twice", reject, []v1.OperationType{"*", "*"})
	strs := func(rule string, want verdict, field string, set func(r *v1.RuleWithOperations, v []string), sets ...[]string) {
		add(rule, want, func(g *gen, o *mwc) string {
			r, where := g.rule(o)
			v := slices.Clone(pick(g, sets...))
			set(r, v)
			return fmt.Sprintf("%s.%s %q", where, field, v)
		})
	}
	setGroups := func(r *v1.RuleWithOperations, v []string) { r.APIGroups = v }
	setVersions := func(r *v1.RuleWithOperations, v []string) { r.APIVersions = v }
	setResources := func(r *v1.RuleWithOperations, v []string) { r.Resources = v }
	strs("2.4 apiGroups: empty", reject, "apiGroups", setGroups, nil, []string{})
	strs("2.4 apiGroups: * with others", reject, "apiGroups", setGroups, []string{"*", "apps"}, []string{"", "*"}, []string{"*", "*"})
	strs("2.4 apiGroups: anything else goes", accept, "apiGroups", setGroups, []string{"", ""}, []string{"not a group!", "UPPER"}, []string{"apps", "apps"})
	strs("2.4 apiVersions: empty", reject, "apiVersions", setVersions, nil, []string{})
	strs("2.4 apiVersions: * with others", reject, "apiVersions", setVersions, []string{"*", "v1"}, []string{"v1", "*"})
	strs("2.4 apiVersions: empty element", reject, "apiVersions", setVersions, []string{""}, []string{"v1", ""}, []string{"", "", "v1"})
	strs("2.4 apiVersions: anything non-empty goes", accept, "apiVersions", setVersions, []string{"V1 beta!"}, []string{"v1", "v1"})
	strs("2.4 resources: empty", reject, "resources", setResources, nil, []string{})
	strs("2.4 resources: empty element", reject, "resources", setResources, []string{""}, []string{"pods", ""}, []string{"", "*/*"})
	strs("2.4 resources: R/* before R/S", reject, "resources", setResources, []string{"pods/*", "pods/log"}, []string{"deployments/*", "pods", "deployments/scale"})
	strs("2.4 resources: R/S before R/* (order-dependent, accepted)", accept, "resources", setResources, []string{"pods/log", "pods/*"}, []string{"deployments/scale", "deployments", "deployments/*"})
	strs("2.4 resources: */S before R/S", reject, "resources", setResources, []string{"*/scale", "deployments/scale"}, []string{"*/status", "pods/status", "nodes/status"})
	strs("2.4 resources: R/S before */S (order-dependent, accepted)", accept, "resources", setResources, []string{"deployments/scale", "*/scale"})
	strs("2.4 resources: */* with others", reject, "resources", setResources, []string{"*/*", "pods"}, []string{"pods", "*/*"}, []string{"*/*", "*/scale"}, []string{"*/*", "*/*"}, []string{"*/*", "*"})
	strs("2.4 resources: * then a plain resource last", reject, "resources", setResources, []string{"*", "pods"}, []string{"pods", "*", "configmaps"}, []string{"*", "pods", "pods/log"})
	strs("2.4 resources: * last among plain resources (accepted)", accept, "resources", setResources, []string{"pods", "*"}, []string{"*", "pods/status"}, []string{"*", "*"}, []string{"pods", "*", "*/status"})
	strs("2.4 resources: split at the first slash", accept, "resources", setResources, []string{"pods/a/b", "pods/a"}, []string{"Pods/LOG"})
	add("2.4 scope: unsupported", reject, func(g *gen, o *mwc) string {
		r, where := g.rule(o)
		r.Scope = ptr(v1.ScopeType(pick(g, "namespaced", "", "All", "Cluster ")))
		return fmt.Sprintf("%s.scope %q", where, *r.Scope)
	})

	// 2.5 enums and timeout
	enum := func(rule string, want verdict, set func(h *v1.MutatingWebhook, v string) string, values ...string) {
		add(rule, want, func(g *gen, o *mwc) string {
			h, i := g.hook(o)
			v := pick(g, values...)
			return fmt.Sprintf("webhooks[%d].%s %q", i, set(h, v), v)
		})
	}
	failurePolicy := func(h *v1.MutatingWebhook, v string) string {
		h.FailurePolicy = ptr(v1.FailurePolicyType(v))
		return "failurePolicy"
	}
	matchPolicy := func(h *v1.MutatingWebhook, v string) string {
		h.MatchPolicy = ptr(v1.MatchPolicyType(v))
		return "matchPolicy"
	}
	reinvocation := func(h *v1.MutatingWebhook, v string) string {
		h.ReinvocationPolicy = ptr(v1.ReinvocationPolicyType(v))
		return "reinvocationPolicy"
	}
	sideEffects := func(h *v1.MutatingWebhook, v string) string {
		h.SideEffects = ptr(v1.SideEffectClass(v))
		return "sideEffects"
	}
	enum("2.5 failurePolicy: unsupported", reject, failurePolicy, "", "fail", "Retry")
	enum("2.5 matchPolicy: unsupported", reject, matchPolicy, "", "exact", "Fuzzy")
	enum("2.5 reinvocationPolicy: unsupported", reject, reinvocation, "", "Always", "ifNeeded")
	ms[len(ms)-1].mutatingOnly = true
	enum("2.5 sideEffects: empty string", reject, sideEffects, "")
	enum("2.5 sideEffects: Some or Unknown (create)", reject, sideEffects, "Some", "Unknown")
	enum("2.5 sideEffects: wrong case", reject, sideEffects, "none", "NONE", "noneOnDryRun")
	enum("2.5 sideEffects: None or NoneOnDryRun", accept, sideEffects, "None", "NoneOnDryRun")
	add("2.5 sideEffects: null", reject, func(g *gen, o *mwc) string {
		h, i := g.hook(o)
		h.SideEffects = nil
		return fmt.Sprintf("webhooks[%d].sideEffects null", i)
	})
	timeout := func(rule string, want verdict, values ...int32) {
		add(rule, want, func(g *gen, o *mwc) string {
			h, i := g.hook(o)
			h.TimeoutSeconds = ptr(pick(g, values...))
			return fmt.Sprintf("webhooks[%d].timeoutSeconds %d", i, *h.TimeoutSeconds)
		})
	}
	timeout("2.5 timeoutSeconds: out of 1..30", reject, 0, -1, 31, 1000)
	timeout("2.5 timeoutSeconds: 1 or 30", accept, 1, 30)

	// 2.6 admissionReviewVersions
	arv := func(rule string, want verdict, sets ...[]string) {
		add(rule, want, func(g *gen, o *mwc) string {
			h, i := g.hook(o)
			h.AdmissionReviewVersions = slices.Clone(pick(g, sets...))
			return fmt.Sprintf("webhooks[%d].admissionReviewVersions %q", i, h.AdmissionReviewVersions)
		})
	}
	arv("2.6 admissionReviewVersions: empty", reject, nil, []string{})
	arv("2.6 admissionReviewVersions: duplicate", reject, []string{"v1", "v1"}, []string{"v1beta1", "v1", "v1beta1"}, []string{"v1", "V1", "V1"})
	arv("2.6 admissionReviewVersions: none known", reject, []string{"v2"}, []string{"v1alpha1", "v3"})
	arv("2.6 admissionReviewVersions: not a DNS-1035 label", reject, []string{"V1"}, []string{"v1", "V1"}, []string{"v1", "1v"}, []string{"v1", ""}, []string{"v1", "v_1"}, []string{"v1", "v1-"})
	arv("2.6 admissionReviewVersions: 64 characters", reject, []string{"v1", "v" + strings.Repeat("x", 63)}, []string{"v" + strings.Repeat("1", 63)})
	arv("2.6 admissionReviewVersions: 63 characters, unknown but well-formed", accept, []string{"v1", "v" + strings.Repeat("x", 62)}, []string{"v2", "v1beta1"})

	// 2.7 clientConfig
	add("2.7 clientConfig: neither url nor service", reject, func(g *gen, o *mwc) string {
		h, i := g.hook(o)
		h.ClientConfig.URL, h.ClientConfig.Service = nil, nil
		return fmt.Sprintf("webhooks[%d].clientConfig {}", i)
	})
	add("2.7 clientConfig: both url and service", reject, func(g *gen, o *mwc) string {
		h, i := g.hook(o)
		h.ClientConfig.URL = ptr(pick(g, "https://h.example.com", "not a url at all %%", ""))
		h.ClientConfig.Service = &v1.ServiceReference{Namespace: "default", Name: "svc", Port: ptr(int32(pick(g, 443, 0)))}
		return fmt.Sprintf("webhooks[%d].clientConfig url %q and a service", i, *h.ClientConfig.URL)
	})
	url := func(rule string, want verdict, urls ...string) {
		add(rule, want, func(g *gen, o *mwc) string {
			h, i := g.hook(o)
			h.ClientConfig.URL, h.ClientConfig.Service = ptr(pick(g, urls...)), nil
			return fmt.Sprintf("webhooks[%d].clientConfig.url %q", i, *h.ClientConfig.URL)
		})
	}
	url("2.7 url: empty string", reject, "")
	url("2.7 url: upper-case scheme (lower-cased by Go)", accept, "HTTPS://h", "HttpS://h.example.com/x")
	url("2.7 url: empty host", reject, "https:///p", "https://", "https:///")
	url("2.7 url: opaque form", reject, "https:h", "https:h/p")
	url("2.7 url: user info", reject, "https://user@h", "https://user:secret@h/p", "https://@h")
	url("2.7 url: bare # or ?", accept, "https://h#", "https://h?", "https://h/p?#")
	url("2.7 url: fragment", reject, "https://h#frag", "https://h/p#x")
	url("2.7 url: query", reject, "https://h?a=b", "https://h/p?x", "https://h?a=b#c")
	url("2.7 url: no scheme", reject, "example.com/x", "h")
	url("2.7 url: other scheme", reject, "http://h", "ftp://h/x", "//h/x")
	url("2.7 url: parse error (port, escape, space, control)", reject, "https://h:abc", "https://h/%zz", " https://h", "https://h x/", "https://h/\x7f", "https://h:-1")
	url("2.7 url: host and port not checked", accept, "https://:443", "https://h:99999", "https://h:0", "https://H_ost", "https://10.0.0.1", "https://[::1]/x")
	url("2.7 url: path not checked", accept, "https://h/Any Path/ x", "https://h//a//", "https://h/%20")
	svc := func(rule string, want verdict, f func(g *gen, s *v1.ServiceReference) string) {
		add(rule, want, func(g *gen, o *mwc) string {
			h, i := g.hook(o)
			s := &v1.ServiceReference{Namespace: pick(g, validNamespaces...), Name: pick(g, validServices...), Port: pick(g, validPorts...), Path: pick(g, validPaths...)}
			h.ClientConfig.URL, h.ClientConfig.Service = nil, s
			return fmt.Sprintf("webhooks[%d].clientConfig.service %s", i, f(g, s))
		})
	}
	svc("2.7 service: empty name (reported at namespace)", reject, func(g *gen, s *v1.ServiceReference) string { s.Name = ""; return `name ""` })
	svc("2.7 service: empty namespace (reported at name)", reject, func(g *gen, s *v1.ServiceReference) string { s.Namespace = ""; return `namespace ""` })
	svc("2.7 service: empty name and namespace", reject, func(g *gen, s *v1.ServiceReference) string {
		s.Name, s.Namespace = "", ""
		return `name "" namespace ""`
	})
	svc("2.7 service: name and namespace not checked", accept, func(g *gen, s *v1.ServiceReference) string {
		s.Name, s.Namespace = pick(g, "Bad_Name!", "a b", strings.Repeat("n", 300)), pick(g, "UPPER ns", "x/y")
		return fmt.Sprintf("name %q namespace %q", shorten(s.Name), s.Namespace)
	})
	port := func(rule string, want verdict, ports ...int32) {
		svc(rule, want, func(g *gen, s *v1.ServiceReference) string {
			s.Port = ptr(pick(g, ports...))
			return fmt.Sprintf("port %d", *s.Port)
		})
	}
	port("2.7 service: port out of 1..65535", reject, 0, -1, 65536, 100000)
	port("2.7 service: port 1 or 65535", accept, 1, 65535)
	path := func(rule string, want verdict, paths ...string) {
		svc(rule, want, func(g *gen, s *v1.ServiceReference) string {
			s.Path = ptr(pick(g, paths...))
			return fmt.Sprintf("path %q", *s.Path)
		})
	}
	path("2.7 service path: //", reject, "//")
	path("2.7 service path: empty segment", reject, "/a//b", "/a//", "///", "/a///b/")
	path("2.7 service path: segment not a DNS subdomain", reject, "/Validate", "/mutate_pods", "/a/-b", "/a b")
	path("2.7 service path: does not start with /", reject, "a", "mutate/pods", "x/")
	path("2.7 service path: valid (one trailing slash allowed)", accept, "", "/", "/a/", "/apis/foo.bar/v1", "/a.b-c/d")

	// 2.8 selectors
	req := func(rule string, want verdict, reqs ...metav1.LabelSelectorRequirement) {
		add(rule, want, func(g *gen, o *mwc) string {
			r := pick(g, reqs...)
			r.Values = slices.Clone(r.Values)
			return g.requirement(o, r)
		})
	}
	type lsr = metav1.LabelSelectorRequirement
	In, NotIn, Exists, DoesNotExist := metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn, metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist
	req("2.8 selector: In/NotIn without values", reject, lsr{Key: "a", Operator: In}, lsr{Key: "a", Operator: NotIn}, lsr{Key: "a", Operator: In, Values: []string{}})
	req("2.8 selector: Exists/DoesNotExist with values", reject, lsr{Key: "a", Operator: Exists, Values: []string{"x"}}, lsr{Key: "a", Operator: DoesNotExist, Values: []string{""}})
	req("2.8 selector: In/NotIn with values, Exists/DoesNotExist without", accept,
		lsr{Key: "a", Operator: In, Values: []string{"x"}}, lsr{Key: "a", Operator: NotIn, Values: []string{"x", "x"}},
		lsr{Key: "a", Operator: Exists}, lsr{Key: "a", Operator: DoesNotExist}, lsr{Key: "a", Operator: In, Values: []string{""}})
	req("2.8 selector: unsupported operator", reject, lsr{Key: "a", Operator: "in", Values: []string{"x"}}, lsr{Key: "a", Operator: ""},
		lsr{Key: "a", Operator: "Gt", Values: []string{"1"}}, lsr{Key: "a", Operator: "exists"})
	req("2.8 selector: bad key", reject, lsr{Key: "", Operator: Exists}, lsr{Key: "a/b/c", Operator: Exists},
		lsr{Key: "-a", Operator: In, Values: []string{"x"}}, lsr{Key: "example.com/", Operator: DoesNotExist}, lsr{Key: strings.Repeat("k", 64), Operator: Exists})
	req("2.8 selector: bad value", reject, lsr{Key: "a", Operator: In, Values: []string{"ok", "-bad"}},
		lsr{Key: "a", Operator: NotIn, Values: []string{strings.Repeat("v", 64)}}, lsr{Key: "a", Operator: In, Values: []string{"a b", "c d"}})
	req("2.8 selector: bad value with Exists (both errors)", reject, lsr{Key: "a", Operator: Exists, Values: []string{"-bad"}})
	req("2.8 selector: bad operator and bad values", reject, lsr{Key: "a", Operator: "Equals", Values: []string{"-x"}}, lsr{Key: "", Operator: "", Values: []string{"-"}})
	add("2.8 selector: bad matchLabels key", reject, func(g *gen, o *mwc) string {
		s, where := g.selector(o)
		k := pick(g, "a/b/c", "-a", "", "example.com/", "bad key")
		s.MatchLabels = map[string]string{k: "x", "ok": "y"}
		return fmt.Sprintf("%s.matchLabels key %q", where, k)
	})
	add("2.8 selector: bad matchLabels value", reject, func(g *gen, o *mwc) string {
		s, where := g.selector(o)
		v := pick(g, "-x", strings.Repeat("v", 64), "a b")
		s.MatchLabels = map[string]string{"k": v}
		return fmt.Sprintf("%s.matchLabels value %q", where, shorten(v))
	})
	add("2.8 selector: matchLabels edge cases", accept, func(g *gen, o *mwc) string {
		s, where := g.selector(o)
		s.MatchLabels = map[string]string{"k": "", "example.com/" + strings.Repeat("k", 63): strings.Repeat("v", 63)}
		return where + ".matchLabels with empty and 63-character values"
	})

	// 2.9 matchConditions
	expr := func(rule string, want verdict, exprs ...string) {
		add(rule, want, func(g *gen, o *mwc) string { return g.expression(o, pick(g, exprs...)) })
	}
	expr("2.9 matchCondition: valid expressions", accept, validExpressions...)
	expr("2.9 matchCondition: not bool (dyn, int, string, null, ...)", reject,
		"object.spec.enabled", "1", "'s'", "null", "object", "request", "optional.of(true)",
		"object.metadata.name.upperAscii()", "authorizer.requestResource.check('get')", "[true]", "{'a': true}")
	expr("2.9 matchCondition: syntax error", reject, "object.metadata.name ==", "size(", "a b", "'unterminated", "object.x == 1 &&", "true)")
	expr("2.9 matchCondition: undeclared or unknown reference", reject,
		"params.x == 1", "variables.x == 1", "request.foo == 'x'", "request.uid == 'x'", "foo", "request.object == null")
	expr("2.9 matchCondition: includes (not in the 1.36 environment of a 1.37 server)", reject, "[1, 2].includes(1)", "object.metadata.finalizers.includes('x')")
	expr("2.9 matchCondition: type or literal errors", reject,
		"1 + 'a' == 2", "duration('1x') > duration('1s')", "'a'.matches('[')", "[1, 'a'].size() == 2",
		"'abc'.reverse() == 'cba'", "timestamp('not a time') == timestamp('2020-01-01T00:00:00Z')")
	expr("2.9 matchCondition: blank expression", reject, "", "   ", "\n\t")
	some(2, "2.9 matchCondition: expression of 100,001 characters", reject, func(g *gen, o *mwc) string {
		return g.expression(o, "'"+strings.Repeat("a", 100001-8)+"' != ''")
	})
	some(2, "2.9 matchCondition: expression of 100,000 characters", accept, func(g *gen, o *mwc) string {
		return g.expression(o, "'"+strings.Repeat("a", 100000-8)+"' != ''")
	})
	expr("2.9 matchCondition: deep nesting (parser limits)", unknown,
		strings.Repeat("(", 100)+"true"+strings.Repeat(")", 100),
		strings.Repeat("(", 300)+"true"+strings.Repeat(")", 300),
		strings.Repeat("!", 300)+"true")
	cond := func(rule string, want verdict, names ...string) {
		add(rule, want, func(g *gen, o *mwc) string {
			return g.condition(o, v1.MatchCondition{Name: pick(g, names...), Expression: "true"})
		})
	}
	cond("2.9 matchCondition name: empty", reject, "")
	cond("2.9 matchCondition name: not a qualified name", reject, "bad name", "a/b/c", "-x", "example.com/", strings.Repeat("n", 64), "/x")
	cond("2.9 matchCondition name: qualified names", accept, "example.com/ok", "Upper_case.x", strings.Repeat("n", 63), "a")
	add("2.9 matchCondition name: duplicate in one webhook", reject, func(g *gen, o *mwc) string {
		h, i := g.hook(o)
		h.MatchConditions = append(h.MatchConditions, v1.MatchCondition{Name: "same", Expression: "true"}, v1.MatchCondition{Name: "same", Expression: "false"})
		return fmt.Sprintf("webhooks[%d] has two conditions named same", i)
	})
	add("2.9 matchCondition name: the same name in two webhooks", accept, func(g *gen, o *mwc) string {
		a, b, i, j := g.twoHooks(o)
		a.MatchConditions = append(a.MatchConditions, v1.MatchCondition{Name: "shared", Expression: "true"})
		b.MatchConditions = append(b.MatchConditions, v1.MatchCondition{Name: "shared", Expression: "true"})
		return fmt.Sprintf("webhooks[%d] and webhooks[%d] each have a condition named shared", i, j)
	})
	conditions := func(n int, bad int) func(g *gen, o *mwc) string {
		return func(g *gen, o *mwc) string {
			h, i := g.hook(o)
			h.MatchConditions = nil
			for k := range n {
				e := pick(g, validExpressions...)
				if k == bad {
					e = "1"
				}
				h.MatchConditions = append(h.MatchConditions, v1.MatchCondition{Name: fmt.Sprintf("c%d", k), Expression: e})
			}
			note := fmt.Sprintf("webhooks[%d] has %d match conditions", i, n)
			if bad >= 0 {
				note += fmt.Sprintf(", [%d] not bool", bad)
			}
			return note
		}
	}
	some(4, "2.9 matchConditions: 64 (the maximum)", accept, conditions(64, -1))
	some(4, "2.9 matchConditions: 65", reject, conditions(65, -1))
	some(3, "2.9 matchConditions: 65, one of them not bool (all still checked)", reject, conditions(65, 64))

	// 2.10 and 2.12: what is not validated, and warnings
	add("2.10 webhooks: none", accept, func(g *gen, o *mwc) string { o.Webhooks = pick(g, nil, []v1.MutatingWebhook{}); return "no webhooks" })
	add("2.10 webhooks: many, many rules", accept, func(g *gen, o *mwc) string {
		for len(o.Webhooks) < 12 {
			o.Webhooks = append(o.Webhooks, g.validWebhook(len(o.Webhooks)))
		}
		h, i := g.hook(o)
		for range 40 {
			h.Rules = append(h.Rules, g.validRule())
		}
		return fmt.Sprintf("%d webhooks, webhooks[%d] with %d rules", len(o.Webhooks), i, len(h.Rules))
	})
	add("2.12 rules: excluded virtual resources (a warning only)", accept, func(g *gen, o *mwc) string {
		r, where := g.rule(o)
		gr := pick(g, [2]string{"authentication.k8s.io", "tokenreviews"}, [2]string{"authorization.k8s.io", "subjectaccessreviews"},
			[2]string{"authorization.k8s.io", "selfsubjectrulesreviews"}, [2]string{"authentication.k8s.io", "selfsubjectreviews"})
		r.APIGroups = []string{gr[0], "apps"}
		r.Resources = []string{gr[1], "deployments", gr[1]}
		return fmt.Sprintf("%s names %s.%s", where, gr[1], gr[0])
	})
	return ms
}
