package impact

import (
	"context"
	"fmt"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// ListedFirst is how many objects of each list a Result names; the rest are counted.
const ListedFirst = 20

// Tally is a list of verdicts: how many, the first ListedFirst of them (all with KeepAll), and
// their namespaces.
type Tally struct {
	Count      int
	First      []Verdict
	Namespaces map[string]bool
	// Elsewhere counts, by the subject of the warning that named them, the objects of the list
	// that another warning of the run names already in the same list of the same policy and
	// binding (Options.Subject).
	Elsewhere map[string]int
}

func (t *Tally) add(v Verdict, keepAll bool) {
	t.Count++
	if keepAll || len(t.First) < ListedFirst {
		t.First = append(t.First, v)
	}
	if v.Namespace != "" {
		if t.Namespaces == nil {
			t.Namespaces = map[string]bool{}
		}
		t.Namespaces[v.Namespace] = true
	}
}

// Result is the impact of one policy through one binding on the objects the cluster runs.
type Result struct {
	Policy, Binding string
	// Actions are the binding's validation actions.
	Actions []admissionregistrationv1.ValidationAction
	// NoUpdate: the policy's rules leave out UPDATE, so no existing object is evaluated.
	NoUpdate bool
	// Lists are the lists read, one per resource the rules may match.
	Lists []Listed
	// Examined is how many objects were read; Matched how many the policy applies to.
	Examined, Matched int
	// MatchedKinds counts the matched objects by kind.
	MatchedKinds map[string]int
	// The verdicts of the planned policy and binding.
	Denied, Warned, Audited, CannotTell Tally
	// Changed are the objects a mutating policy changes; OrderDependent those whose next write
	// it and the other mutating policies (of the cluster, or planned in the same run) leave
	// otherwise in one order than in another (Verdict.Message says how).
	Changed, OrderDependent Tally
	// Flips, for a change: the objects the planned version denies and the live one does not
	// (NewlyDenied), and the other way round (NoLongerDenied).
	Flips                       bool
	NewlyDenied, NoLongerDenied Tally
	// All are every verdict of an object the policy matches (Options.KeepAll).
	All []Verdict
	// Incomplete are what the impact could not read, beside the lists that stopped early.
	Incomplete []string
	// Elapsed is how long it took.
	Elapsed time.Duration

	plans   *Plans
	subject string
}

// add adds v to the result's list t, named list, naming it there unless another subject of the
// run named it already (Options.Subject).
func (res *Result) add(t *Tally, list string, v Verdict, keepAll bool) {
	if res.plans != nil && res.subject != "" && (keepAll || len(t.First) < ListedFirst) {
		if by := res.plans.claim(res.Policy+"\x00"+res.Binding+"\x00"+list, v.Resource.String()+"/"+v.Ref(), res.subject); by != "" {
			t.Count++
			if v.Namespace != "" {
				if t.Namespaces == nil {
					t.Namespaces = map[string]bool{}
				}
				t.Namespaces[v.Namespace] = true
			}
			if t.Elsewhere == nil {
				t.Elsewhere = map[string]int{}
			}
			t.Elsewhere[by]++
			return
		}
	}
	t.add(v, keepAll)
}

// Options shape one impact.
type Options struct {
	// KeepAll keeps every verdict in Result.All and the tallies, not the first ListedFirst.
	KeepAll bool
	// Subject, when set, is the subject of the warnings the result is for: an object that the
	// warnings of another subject of the run name already, in the same list (denied, warned,
	// audited, flipped, changed, cannot tell) of the same policy and binding, is counted but
	// not named again (Tally.Elsewhere). A policy and its binding planned together report on
	// the same pair: each object is named once per list.
	Subject string
}

// ValidatingPair is a validating policy with one of its bindings.
type ValidatingPair struct {
	Policy  *admissionregistrationv1.ValidatingAdmissionPolicy
	Binding *admissionregistrationv1.ValidatingAdmissionPolicyBinding
}

// Validating is the impact of planned on the objects the cluster runs; with live, the pair as
// the cluster has it now, also the flips between the two. Both are read with the server's
// defaults.
func (c *Cluster) Validating(ctx context.Context, planned ValidatingPair, live *ValidatingPair, opts Options) *Result {
	began := time.Now()
	ctx, cancel := context.WithTimeout(ctx, c.Bounds.budget())
	defer cancel()
	p := newValidating(validation.DefaultValidatingPolicy(planned.Policy), validation.DefaultValidatingPolicyBinding(planned.Binding))
	res := &Result{Policy: planned.Policy.Name, Binding: planned.Binding.Name, Actions: p.binding.Spec.ValidationActions, MatchedKinds: map[string]int{},
		plans: &c.plans, subject: opts.Subject}
	var l *validating
	if live != nil {
		l = newValidating(validation.DefaultValidatingPolicy(live.Policy), validation.DefaultValidatingPolicyBinding(live.Binding))
		res.Flips = true
	}
	defer func() { res.Elapsed = time.Since(began) }()

	served, err := c.Served()
	if err != nil {
		res.Incomplete = append(res.Incomplete, err.Error())
		return res
	}
	for _, f := range served.Failed {
		res.Incomplete = append(res.Incomplete, "discovery could not read "+f)
	}
	resources := served.matchedResources(rulesOf(p.policy.Spec.MatchConstraints), rulesOf(p.binding.Spec.MatchResources))
	selector := objectSelectors(p.policy.Spec.MatchConstraints, p.binding.Spec.MatchResources)
	if l != nil {
		resources = union(resources, served.matchedResources(rulesOf(l.policy.Spec.MatchConstraints), rulesOf(l.binding.Spec.MatchResources)))
		if objectSelectors(l.policy.Spec.MatchConstraints, l.binding.Spec.MatchResources) != selector {
			selector = ""
		}
	}
	if len(resources) == 0 {
		res.NoUpdate = !anyUpdate(p.policy.Spec.MatchConstraints)
		return res
	}
	// The mutating policies planned beside this one change the writes first.
	if note := c.plans.settle(ctx, c.clusterMutators(ctx).boundNames()); note != "" {
		res.Incomplete = append(res.Incomplete, note)
	}
	r, err := c.newRun(ctx, true)
	if err != nil {
		res.Incomplete = append(res.Incomplete, err.Error())
		return res
	}
	if err := r.namespaces.Incomplete(); err != nil {
		res.Incomplete = append(res.Incomplete, err.Error())
	}
	for _, rs := range resources {
		listed := c.list(ctx, rs, selector, func(page []unstructured.Unstructured) {
			for i := range page {
				obj := &page[i]
				v := r.evaluate(ctx, p, obj, rs)
				res.record(v, opts.KeepAll)
				if l == nil {
					continue
				}
				was := r.evaluate(ctx, l, obj, rs)
				switch {
				case v.CannotTell != "" || was.CannotTell != "":
				case v.Denied && !was.Denied:
					res.add(&res.NewlyDenied, "newly denied", v, opts.KeepAll)
				case was.Denied && !v.Denied:
					res.add(&res.NoLongerDenied, "no longer denied", was, opts.KeepAll)
				}
			}
		})
		res.Examined += listed.Examined
		res.Lists = append(res.Lists, listed)
	}
	return res
}

// record counts the verdict of the planned pair.
func (res *Result) record(v Verdict, keepAll bool) {
	if !v.Matched {
		return
	}
	res.Matched++
	res.MatchedKinds[v.Resource.Kind.Kind]++
	if keepAll {
		res.All = append(res.All, v)
	}
	switch {
	case v.CannotTell != "":
		res.add(&res.CannotTell, "cannot tell", v, keepAll)
		return
	case len(v.Changes) > 0:
		res.add(&res.Changed, "changed", v, keepAll)
	}
	if v.Denied {
		res.add(&res.Denied, "denied", v, keepAll)
	}
	if v.Warned {
		res.add(&res.Warned, "warned", v, keepAll)
	}
	if v.Audited {
		res.add(&res.Audited, "audited", v, keepAll)
	}
}

// anyUpdate reports whether a rule of mr names UPDATE.
func anyUpdate(mr *admissionregistrationv1.MatchResources) bool {
	if mr == nil {
		return false
	}
	for _, r := range mr.ResourceRules {
		for _, o := range r.Operations {
			if o == admissionregistrationv1.Update || o == admissionregistrationv1.OperationAll {
				return true
			}
		}
	}
	return false
}

// union is a and the resources of b that a has not.
func union(a, b []Resource) []Resource {
	have := map[string]bool{}
	for _, r := range a {
		have[r.String()] = true
	}
	for _, r := range b {
		if !have[r.String()] {
			a = append(a, r)
			have[r.String()] = true
		}
	}
	return a
}

// String says in a line what the result counts, for logs and tests.
func (res *Result) String() string {
	return fmt.Sprintf("examined %d, matched %d, denied %d, warned %d, audited %d, changed %d, cannot tell %d, newly denied %d, no longer denied %d",
		res.Examined, res.Matched, res.Denied.Count, res.Warned.Count, res.Audited.Count, res.Changed.Count, res.CannotTell.Count,
		res.NewlyDenied.Count, res.NoLongerDenied.Count)
}
