package simulate

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/policy/generic"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/matching"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// AdmitObjects are the admission objects admit runs a request through: any
// number of each of the six kinds. Bindings apply to the policy their
// policyName names.
type AdmitObjects struct {
	MutatingPolicies   []*MutatingPolicy
	MutatingBindings   []*MutatingBinding
	ValidatingPolicies []*ValidatingPolicy
	ValidatingBindings []*ValidatingBinding
	MutatingWebhooks   []*admissionregistrationv1.MutatingWebhookConfiguration
	ValidatingWebhooks []*admissionregistrationv1.ValidatingWebhookConfiguration
	// Notes say how the objects were read (a binding whose policy name was
	// not known yet); they come first in the result's notes.
	Notes []string
}

// Outcome is what the server does with the request in one or more orders of
// its hooks.
type Outcome struct {
	// Allowed is nil when it is not known offline: it depends on the answer
	// of a webhook that the caller did not give.
	Allowed *bool
	// Message is the server's message of the denial ("" when admitted), nil
	// when not known; Reason and Code the denial's status reason and code.
	Message *string
	Reason  string
	Code    int32
	// Warnings are the warnings the client gets, sorted; AuditAnnotations the
	// annotations of the audit event.
	Warnings         []string
	AuditAnnotations map[string]string
	// Object is the object the server would store (after every mutation),
	// nil for a denied request or a DELETE; ObjectKnown is false when a
	// webhook whose answer was not given may have changed it.
	Object      *unstructured.Unstructured
	ObjectKnown bool
	// Orders are the orders of the server's hooks that give this outcome.
	Orders []Order
	// Steps are what the chain did, in the first of those orders.
	Steps []Step
}

// Order is an order in which the server may run the hooks whose order it does
// not fix: the mutating admission policies (each policy with its bindings,
// each named as Step.Name, with "/binding" where a policy has several), and,
// where several validations deny, the one whose denial the client gets (the
// server runs validating policies in no fixed order, and validating webhooks
// in parallel).
type Order struct {
	MutatingPolicies []string
	FirstDenial      string
}

// AdmitResult is what the server does with a request, for the whole chain of
// admission objects.
type AdmitResult struct {
	// Outcome is the outcome when every order agrees; a field on which
	// orders disagree is unknown (nil, ObjectKnown false), and Steps are
	// those of the first order (the policies by name).
	Outcome
	// OrderDependent: the outcome depends on the order the server runs its
	// hooks in; Outcomes are then the distinct outcomes, with their orders.
	OrderDependent bool
	Outcomes       []Outcome
	// Unanswered are the webhooks called ("configuration/webhook") whose
	// answer the caller did not give: taken to allow with no patch.
	Unanswered []string
	// Orders is how many orders were evaluated.
	Orders int
	// Notes say what the server does with the request that the answer
	// leaves out.
	Notes []string
}

// maxOrders is the most orders of mutating policies admit evaluates: every
// order of six policies.
const maxOrders = 720

// Admit says what kube-apiserver does with req for the admission objects, as
// its admission chain runs them (k8s.io/kubernetes pkg/kubeapiserver/options
// AllOrderedPlugins): the mutating admission policies, then the mutating
// webhooks, reinvoked as their reinvocation policies say
// (k8s.io/apiserver pkg/admission reinvoker), then the validating admission
// policies, then the validating webhooks, the first denial ending the chain.
// The plugins are the server's: the policy dispatchers, and the webhook
// plugins, whose calls the caller's answers answer (answers; a webhook with
// no answer allows with no patch, and what depends on it is unknown). The
// server runs mutating policies in no fixed order: every order is evaluated
// (up to maxOrders), and the result says whether they differ.
func Admit(ctx context.Context, objs *AdmitObjects, req *Request, answers WebhookAnswers) (*AdmitResult, error) {
	e, err := newEnv(req)
	if err != nil {
		return nil, err
	}
	a := &admitter{e: e, req: req}
	notes := slices.Clone(objs.Notes)
	var more []string
	a.mutatingUnits, more = mutatingUnits(e, objs.MutatingPolicies, objs.MutatingBindings)
	notes = append(notes, more...)
	a.validatingUnits, more = validatingUnits(e, objs.ValidatingPolicies, objs.ValidatingBindings)
	notes = append(notes, more...)
	mcfgs, vcfgs, hooks, err := offlineConfigurations(objs.MutatingWebhooks, objs.ValidatingWebhooks, answers)
	if err != nil {
		return nil, &InputError{Err: err}
	}
	a.hooks = hooks
	if len(mcfgs) > 0 {
		if a.mutatingWebhooks, err = newMutatingWebhooks(e, mcfgs, hooks); err != nil {
			return nil, err
		}
	}
	for _, cfg := range vcfgs {
		for j := range cfg.Webhooks {
			one := cfg.DeepCopy()
			one.Webhooks = []admissionregistrationv1.ValidatingWebhook{cfg.Webhooks[j]}
			p, err := newValidatingWebhooks(e, []*admissionregistrationv1.ValidatingWebhookConfiguration{one}, hooks)
			if err != nil {
				return nil, err
			}
			a.validatingWebhooks = append(a.validatingWebhooks, p)
		}
	}
	for _, name := range unusedAnswers(answers, hooks) {
		return nil, &InputError{Path: "webhook_answers." + name, Err: fmt.Errorf("no webhook of the objects is named so")}
	}

	res := &AdmitResult{}
	orders := a.orders()
	res.Orders = len(orders)
	if res.Orders == maxOrders {
		notes = append(notes, fmt.Sprintf("The mutating policies have more than %d orders: the first %d were evaluated.", maxOrders, maxOrders))
	}
	unanswered := map[string]bool{}
	for _, order := range orders {
		r, err := a.run(ctx, order)
		if err != nil {
			return nil, err
		}
		for _, u := range append(r.trace.unansweredMutating, r.trace.unansweredValidating...) {
			unanswered[u] = true
		}
		for _, o := range r.outcomes(a.labels(order)) {
			res.add(o)
		}
	}
	for u := range unanswered {
		res.Unanswered = append(res.Unanswered, u)
	}
	sort.Strings(res.Unanswered)
	res.agree()
	res.Notes = append(notes, requestNotes(req, len(a.validatingUnits)+len(a.validatingWebhooks) > 0)...)
	return res, nil
}

// mutatingUnit is one mutating policy with one of its bindings, as the
// dispatcher takes it, its mutations and match conditions traced.
type mutatingUnit struct {
	unit
	hook mutating.PolicyHook
}

type validatingUnit struct {
	unit
	hook validating.PolicyHook
}

// bindingsOf groups bindings by the policy they name, each group by name.
func bindingsOf[B interface {
	GetName() string
}](bindings []B, policyName func(B) string) map[string][]B {
	out := map[string][]B{}
	for _, b := range bindings {
		out[policyName(b)] = append(out[policyName(b)], b)
	}
	for _, l := range out {
		sort.SliceStable(l, func(i, j int) bool { return l[i].GetName() < l[j].GetName() })
	}
	return out
}

// unitNotes are the notes on policies without bindings and bindings without
// their policy, which the server does nothing with.
func unitNotes(kind string, policies []string, bound map[string]int) []string {
	var out []string
	for _, p := range policies {
		if bound[p] == 0 {
			out = append(out, fmt.Sprintf("The %s %q has no binding among the objects: the server does nothing with it.", kind, p))
		}
		delete(bound, p)
	}
	for _, p := range slices.Sorted(mapsKeys(bound)) {
		out = append(out, fmt.Sprintf("A %sBinding names the policy %q, which is not among the objects: the server does nothing with it.", kind, p))
	}
	return out
}

func mapsKeys(m map[string]int) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func mutatingUnits(e *env, policies []*MutatingPolicy, bindings []*MutatingBinding) ([]mutatingUnit, []string) {
	byPolicy := bindingsOf(bindings, func(b *MutatingBinding) string { return b.Spec.PolicyName })
	bound := map[string]int{}
	for p, l := range byPolicy {
		bound[p] = len(l)
	}
	var units []mutatingUnit
	var names []string
	for _, p := range sortedByName(policies) {
		p = validation.DefaultMutatingPolicy(p)
		names = append(names, p.Name)
		evaluator := mutatingCache.get(p, func() mutating.PolicyEvaluator { return compileMutating(p) })
		for _, b := range byPolicy[p.Name] {
			b = validation.DefaultMutatingPolicyBinding(b)
			u := unit{policy: p.Name, binding: b.Name}
			traced := evaluator
			if evaluator.Matcher != nil {
				traced.Matcher = tracedConditions{inner: evaluator.Matcher, unit: u, kind: StepMutatingPolicy}
			}
			traced.Mutators = make([]patch.Patcher, len(evaluator.Mutators))
			for i, m := range evaluator.Mutators {
				traced.Mutators[i] = tracedPatcher{inner: m, unit: u, index: i}
			}
			units = append(units, mutatingUnit{unit: u, hook: policyHook(e, p, b, traced, p.Spec.ParamKind)})
		}
	}
	return units, unitNotes("MutatingAdmissionPolicy", names, bound)
}

func validatingUnits(e *env, policies []*ValidatingPolicy, bindings []*ValidatingBinding) ([]validatingUnit, []string) {
	byPolicy := bindingsOf(bindings, func(b *ValidatingBinding) string { return b.Spec.PolicyName })
	bound := map[string]int{}
	for p, l := range byPolicy {
		bound[p] = len(l)
	}
	var units []validatingUnit
	var names []string
	for _, p := range sortedByName(policies) {
		p = validation.DefaultValidatingPolicy(p)
		names = append(names, p.Name)
		compiled := validatingCache.get(p, func() compiledValidating { return compileValidating(p) })
		for _, b := range byPolicy[p.Name] {
			b = validation.DefaultValidatingPolicyBinding(b)
			u := unit{policy: p.Name, binding: b.Name}
			units = append(units, validatingUnit{unit: u, hook: policyHook(e, p, b, validating.Validator(tracedValidator{compiled.validator}), p.Spec.ParamKind)})
		}
	}
	return units, unitNotes("ValidatingAdmissionPolicy", names, bound)
}

// unusedAnswers are the keys of answers that name no webhook.
func unusedAnswers(answers WebhookAnswers, hooks []*offlineWebhook) []string {
	var out []string
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range answers {
			if !yield(k) {
				return
			}
		}
	}) {
		used := false
		for _, h := range hooks {
			if k == h.name || k == h.configuration+"/"+h.name {
				used = true
			}
		}
		if !used {
			out = append(out, k)
		}
	}
	return out
}

// admitter runs the chain over the objects, in one order after another.
type admitter struct {
	e                  *env
	req                *Request
	mutatingUnits      []mutatingUnit
	validatingUnits    []validatingUnit
	hooks              []*offlineWebhook
	mutatingWebhooks   admission.MutationInterface
	validatingWebhooks []admission.ValidationInterface
}

// orders are the orders of the mutating units the server may run: the
// policies in any order, and each policy's bindings in any order (the policy
// source lists its policies, and a policy's bindings, in no fixed order:
// k8s.io/apiserver pkg/admission/plugin/policy/generic policySource), in
// lexicographic order of their names, at most maxOrders.
func (a *admitter) orders() [][]int {
	type group struct{ units []int }
	var groups []group
	for i, u := range a.mutatingUnits {
		if len(groups) == 0 || a.mutatingUnits[groups[len(groups)-1].units[0]].policy != u.policy {
			groups = append(groups, group{})
		}
		groups[len(groups)-1].units = append(groups[len(groups)-1].units, i)
	}
	var out [][]int
	var walk func(prefix []int, rest []group)
	walk = func(prefix []int, rest []group) {
		if len(out) >= maxOrders {
			return
		}
		if len(rest) == 0 {
			out = append(out, slices.Clone(prefix))
			return
		}
		for i := range rest {
			others := append(slices.Clone(rest[:i]), rest[i+1:]...)
			for _, p := range permutations(rest[i].units) {
				walk(append(slices.Clone(prefix), p...), others)
			}
		}
	}
	walk(nil, groups)
	return out
}

// permutations are the orders of l, in lexicographic order.
func permutations(l []int) [][]int {
	if len(l) <= 1 {
		return [][]int{slices.Clone(l)}
	}
	var out [][]int
	for i := range l {
		rest := append(slices.Clone(l[:i]), l[i+1:]...)
		for _, p := range permutations(rest) {
			out = append(out, append([]int{l[i]}, p...))
		}
	}
	return out
}

// labels name the units of order.
func (a *admitter) labels(order []int) []string {
	count := map[string]int{}
	for _, u := range a.mutatingUnits {
		count[u.policy]++
	}
	out := make([]string, 0, len(order))
	for _, i := range order {
		u := a.mutatingUnits[i].unit
		out = append(out, u.label(count[u.policy] > 1))
	}
	return out
}

// denial is a validation that denied the request, among those the server
// runs in no fixed order.
type denial struct {
	hook string
	err  error
}

// runResult is one run of the chain.
type runResult struct {
	req         *Request
	trace       *trace
	mutationErr error
	denials     []denial
	warnings    []string
	annotations map[string]string
	object      *unstructured.Unstructured
}

// run runs the chain once, the mutating policies in order.
func (a *admitter) run(ctx context.Context, order []int) (*runResult, error) {
	t := &trace{}
	w := &warnings{}
	ctx = withTrace(w.context(ctx), t)
	attrs := a.req.attributes()
	o := a.e.objects
	hooks := make([]mutating.PolicyHook, len(order))
	for i, u := range order {
		hooks[i] = a.mutatingUnits[u].hook
	}
	stages := []admission.Interface{&mutatingPolicyStage{a: a, hooks: hooks}}
	if a.mutatingWebhooks != nil {
		stages = append(stages, &mutatingWebhookStage{a: a})
	}
	r := &runResult{req: a.req, trace: t}
	r.mutationErr = reinvoke(ctx, admission.NewChainHandler(stages...), attrs, o)
	if r.mutationErr == nil {
		a.validate(ctx, attrs, o, w, r)
	}
	r.warnings = w.list
	sort.Strings(r.warnings)
	r.annotations = attrs.annotations
	if obj := attrs.GetObject(); obj != nil && r.mutationErr == nil && len(r.denials) == 0 {
		u, err := unstructuredOf(obj, a.req.Kind)
		if err != nil {
			return nil, fmt.Errorf("the object after admission: %w", err)
		}
		r.object = u
	}
	return r, nil
}

// reinvoke is k8s.io/apiserver pkg/admission reinvoker.Admit (which is not
// exported): the mutating chain, and once more when a plugin asks for it.
func reinvoke(ctx context.Context, chain admission.Interface, a admission.Attributes, o admission.ObjectInterfaces) error {
	mutator, ok := chain.(admission.MutationInterface)
	if !ok {
		return nil
	}
	if err := mutator.Admit(ctx, a, o); err != nil {
		return err
	}
	if s := a.GetReinvocationContext(); s.ShouldReinvoke() {
		s.SetIsReinvoke()
		return mutator.Admit(ctx, a, o)
	}
	return nil
}

func round(a admission.Attributes) int {
	if a.GetReinvocationContext().IsReinvoke() {
		return 2
	}
	return 1
}

// mutatingPolicyStage is the mutating admission policy plugin
// (k8s.io/apiserver pkg/admission/plugin/policy/mutating NewPlugin: its
// handler and exclusions, then its dispatcher) over the run's order.
type mutatingPolicyStage struct {
	a     *admitter
	hooks []mutating.PolicyHook
}

func (s *mutatingPolicyStage) Handles(op admission.Operation) bool {
	return op == admission.Create || op == admission.Update || op == admission.Connect
}

func (s *mutatingPolicyStage) Admit(ctx context.Context, attrs admission.Attributes, o admission.ObjectInterfaces) error {
	if matching.ExcludedFromPolicies(attrs.GetResource().GroupResource()) || len(s.hooks) == 0 {
		return nil
	}
	t := traceFrom(ctx)
	t.round = round(attrs)
	start := len(t.steps)
	dispatcher := mutating.NewDispatcher(s.a.e.authz, s.a.e.matcher.PolicyPredicates(), typeConverters{})
	err := dispatcher.Dispatch(ctx, attrs, o, s.hooks)
	if t.round == 1 {
		// The policies that did nothing: their rules or selectors leave the request out.
		for _, h := range s.hooks {
			u := unit{policy: h.Policy.Name, binding: h.Bindings[0].Name}
			if !slices.ContainsFunc(t.steps[start:], func(st Step) bool { return st.Name == u.policy && st.Binding == u.binding }) {
				t.add(Step{Kind: StepMutatingPolicy, Name: u.policy, Binding: u.binding, Outcome: OutcomeNotMatched})
			}
		}
	}
	return err
}

// mutatingWebhookStage is the server's mutating webhook plugin, its calls
// traced, with a step for each webhook it does not call.
type mutatingWebhookStage struct{ a *admitter }

func (s *mutatingWebhookStage) Handles(admission.Operation) bool { return true }

func (s *mutatingWebhookStage) Admit(ctx context.Context, attrs admission.Attributes, o admission.ObjectInterfaces) error {
	if s.a.e.matcher.ExcludedFromWebhooks(attrs) {
		return nil
	}
	t := traceFrom(ctx)
	t.round = round(attrs)
	before := map[int]matching.WebhookAnswer{}
	for _, h := range s.a.hooks {
		if h.mutating && t.round == 1 {
			before[h.index] = s.a.e.matcher.Webhook(ctx, h.matcherHook, attrs)
		}
	}
	start := len(t.steps)
	err := s.a.mutatingWebhooks.Admit(ctx, attrs, o)
	if t.round == 1 {
		for _, h := range s.a.hooks {
			if !h.mutating || t.called[h.index] {
				continue
			}
			t.add(notCalledStep(StepMutatingWebhook, h, before[h.index]))
		}
		orderSteps(t.steps[start:], s.a.hooks)
	}
	return err
}

// notCalledStep is the step of a webhook not called, for the matcher's answer a.
func notCalledStep(kind string, h *offlineWebhook, a matching.WebhookAnswer) Step {
	s := Step{Kind: kind, Name: h.name, Configuration: h.configuration, Outcome: OutcomeNotMatched, Reason: string(a.Reason), Detail: a.Detail}
	if a.Outcome == matching.Failed && a.Err != nil {
		s.Outcome, s.Reason, s.Detail, s.Message = OutcomeFailed, "", "", a.Err.ErrStatus.Message
	}
	return s
}

// orderSteps puts the webhook steps in the order of the webhooks.
func orderSteps(steps []Step, hooks []*offlineWebhook) {
	index := func(s Step) int {
		for _, h := range hooks {
			if h.name == s.Name && h.configuration == s.Configuration {
				return h.index
			}
		}
		return len(hooks)
	}
	sort.SliceStable(steps, func(i, j int) bool { return index(steps[i]) < index(steps[j]) })
}

// validate is the validating half of the chain: the validating admission
// policies (each evaluated on its own, since the server runs them in no fixed
// order and reports the first denial), and, when none denies, the validating
// webhooks (each on its own: the server calls them in parallel and reports the
// first denial to arrive).
func (a *admitter) validate(ctx context.Context, attrs *recordingAttributes, o admission.ObjectInterfaces, w *warnings, r *runResult) {
	t := traceFrom(ctx)
	t.round = 1
	if !matching.ExcludedFromPolicies(attrs.GetResource().GroupResource()) {
		dispatcher := validating.NewDispatcher(a.e.authz, generic.NewPolicyMatcher(a.e.matcher.PolicyPredicates()))
		for _, u := range a.validatingUnits {
			t.lastValidation = nil
			warned := len(w.list)
			err := dispatcher.Dispatch(ctx, attrs, o, []validating.PolicyHook{u.hook})
			s := Step{Kind: StepValidatingPolicy, Name: u.policy, Binding: u.binding, Outcome: OutcomeAdmitted}
			switch {
			case err != nil:
				s.Outcome, s.Message = OutcomeDenied, err.Error()
				r.denials = append(r.denials, denial{hook: u.label(true), err: err})
			case t.lastValidation == nil:
				s.Outcome = OutcomeNotMatched
			case len(t.lastValidation.Decisions) == 0:
				s.Outcome, s.Reason = OutcomeNotMatched, string(matching.SkippedByMatchCondition)
			case len(w.list) > warned:
				s.Outcome, s.Message = OutcomeWarned, strings.Join(w.list[warned:], "; ")
			}
			t.add(s)
		}
	}
	if len(r.denials) > 0 || a.e.matcher.ExcludedFromWebhooks(attrs) {
		return
	}
	var validatingHooks []*offlineWebhook
	for _, h := range a.hooks {
		if !h.mutating {
			validatingHooks = append(validatingHooks, h)
		}
	}
	for i, p := range a.validatingWebhooks {
		h := validatingHooks[i]
		err := p.Validate(ctx, attrs, o)
		if err != nil {
			r.denials = append(r.denials, denial{hook: h.configuration + "/" + h.name, err: err})
		}
		if !t.called[h.index] {
			t.add(notCalledStep(StepValidatingWebhook, h, a.e.matcher.Webhook(ctx, h.matcherHook, attrs)))
		}
	}
}

// outcomes are the run's outcomes: one, or one for each validation that
// denied where several did (the client gets whichever comes first).
func (r *runResult) outcomes(order []string) []Outcome {
	unansweredMutating := len(r.trace.unansweredMutating) > 0
	unansweredValidating := len(r.trace.unansweredValidating) > 0
	base := Outcome{Warnings: r.warnings, AuditAnnotations: r.annotations, Steps: r.trace.steps}
	switch {
	case r.mutationErr != nil:
		o := base
		o.setDenial(r.mutationErr, !unansweredMutating, !unansweredMutating)
		o.ObjectKnown = !unansweredMutating
		o.Orders = []Order{{MutatingPolicies: order}}
		return []Outcome{o}
	case len(r.denials) > 0:
		var out []Outcome
		for _, d := range r.denials {
			o := base
			o.setDenial(d.err, !unansweredMutating, !unansweredMutating && !unansweredValidating)
			o.ObjectKnown = !unansweredMutating
			o.Orders = []Order{{MutatingPolicies: order}}
			if len(r.denials) > 1 {
				o.Orders[0].FirstDenial = d.hook
			}
			out = append(out, o)
		}
		return out
	}
	o := base
	if !unansweredMutating && !unansweredValidating {
		o.Allowed = ptrTo(true)
		o.Message = ptrTo("")
	}
	o.Object, o.ObjectKnown = r.object, !unansweredMutating
	if !o.ObjectKnown {
		o.Object = nil
	}
	o.Orders = []Order{{MutatingPolicies: order}}
	return []Outcome{o}
}

func (o *Outcome) setDenial(err error, verdictKnown, messageKnown bool) {
	message, reason, code := denialOf(err)
	if verdictKnown {
		o.Allowed = ptrTo(false)
	}
	if messageKnown {
		o.Message, o.Reason, o.Code = &message, reason, code
	}
}

// add adds o to the result's outcomes, with the orders of an equal one.
func (res *AdmitResult) add(o Outcome) {
	for i := range res.Outcomes {
		if res.Outcomes[i].same(o) {
			res.Outcomes[i].Orders = append(res.Outcomes[i].Orders, o.Orders...)
			return
		}
	}
	res.Outcomes = append(res.Outcomes, o)
}

// same: the outcomes are the same to the client.
func (o Outcome) same(p Outcome) bool {
	return reflect.DeepEqual(o.Allowed, p.Allowed) && reflect.DeepEqual(o.Message, p.Message) && o.Reason == p.Reason && o.Code == p.Code &&
		slices.Equal(o.Warnings, p.Warnings) && o.ObjectKnown == p.ObjectKnown && objectJSON(o.Object) == objectJSON(p.Object)
}

func objectJSON(u *unstructured.Unstructured) string {
	if u == nil {
		return ""
	}
	data, _ := json.Marshal(u.Object)
	return string(data)
}

// agree sets the result's outcome from the outcomes: the first, where they
// all agree; a field on which they disagree is unknown.
func (res *AdmitResult) agree() {
	if len(res.Outcomes) == 0 {
		return
	}
	first := res.Outcomes[0]
	res.Outcome = first
	res.Outcome.Orders = nil
	res.OrderDependent = len(res.Outcomes) > 1
	if !res.OrderDependent {
		res.Outcomes = nil
		return
	}
	for _, o := range res.Outcomes[1:] {
		if !reflect.DeepEqual(o.Allowed, first.Allowed) {
			res.Allowed = nil
		}
		if !reflect.DeepEqual(o.Message, first.Message) || o.Reason != first.Reason || o.Code != first.Code {
			res.Message, res.Reason, res.Code = nil, "", 0
		}
		if !slices.Equal(o.Warnings, first.Warnings) {
			res.Warnings = nil
		}
		if !reflect.DeepEqual(o.AuditAnnotations, first.AuditAnnotations) {
			res.AuditAnnotations = nil
		}
		if o.ObjectKnown != first.ObjectKnown || objectJSON(o.Object) != objectJSON(first.Object) {
			res.Object, res.ObjectKnown = nil, false
		}
	}
}
