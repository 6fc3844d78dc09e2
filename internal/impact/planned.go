package impact

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// Terraform plans each resource on its own (PlanResourceChange, up to ten at a time by
// default), so the impact of a validating policy learns of the mutating policies and bindings
// planned in the same run only from the provider process: each plan of a policy or binding
// records itself here (Plans), and the impact that needs them waits a moment for the plans
// that run beside it (settle). What a resource depends on (a reference, depends_on) is
// planned before it, and needs no wait.

// planQuiet is how long no plan of a policy or binding must have begun before an impact takes
// the planned chain as known: the plans Terraform starts together reach the provider within
// it. planWait bounds the whole wait, for a mutating policy still being planned whose binding
// is not known yet (its binding's plan waits on it).
const (
	planQuiet = 300 * time.Millisecond
	planWait  = 5 * time.Second
)

// Plans are what one run of the provider planned of the admission policies: the mutating
// policies and bindings (their specs, nil while not known), and which objects the impact's
// warnings named already. The zero value is ready; it is safe for concurrent use.
type Plans struct {
	mu               sync.Mutex
	last             time.Time
	mutatingPolicies map[string]*plannedMutating
	mutatingBindings map[string]*admissionregistrationv1.MutatingAdmissionPolicyBinding
	named            map[string]string
}

type plannedMutating struct {
	policy   *admissionregistrationv1.MutatingAdmissionPolicy
	planning bool
}

// Plans are the plans of this cluster's run.
func (c *Cluster) Plans() *Plans { return &c.plans }

// Begin records that the plan of a policy or binding of any kind has begun.
func (p *Plans) Begin() {
	p.mu.Lock()
	p.last = time.Now()
	p.mu.Unlock()
}

// MutatingPolicy records the planned mutating policy of that name (nil while its spec is not
// known); done says its plan is over.
func (p *Plans) MutatingPolicy(name string, policy *admissionregistrationv1.MutatingAdmissionPolicy) (done func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = time.Now()
	if p.mutatingPolicies == nil {
		p.mutatingPolicies = map[string]*plannedMutating{}
	}
	m := &plannedMutating{policy: policy, planning: true}
	p.mutatingPolicies[name] = m
	return func() {
		p.mu.Lock()
		m.planning = false
		p.last = time.Now()
		p.mu.Unlock()
	}
}

// MutatingBinding records the planned mutating binding of that name (nil while its spec is not
// known).
func (p *Plans) MutatingBinding(name string, binding *admissionregistrationv1.MutatingAdmissionPolicyBinding) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = time.Now()
	if p.mutatingBindings == nil {
		p.mutatingBindings = map[string]*admissionregistrationv1.MutatingAdmissionPolicyBinding{}
	}
	p.mutatingBindings[name] = binding
}

// settle waits until the plans that run beside the caller's have recorded themselves: no plan
// of a policy or binding began for planQuiet, and no mutating policy still being planned lacks
// a binding (in bound, the cluster's bindings' policy names, or planned), at most planWait;
// bound nil waits for the quiet only (a mutating policy's impact: mutating policies planned
// together wait on one another's plans, and their bindings on theirs). It says what it waited
// for in vain.
func (p *Plans) settle(ctx context.Context, bound map[string]bool) string {
	deadline := time.Now().Add(planWait)
	for {
		p.mu.Lock()
		quiet := time.Since(p.last) >= planQuiet
		var unbound []string
		for name, m := range p.mutatingPolicies {
			if bound == nil || !m.planning || bound[name] {
				continue
			}
			has := false
			for _, b := range p.mutatingBindings {
				if b != nil && b.Spec.PolicyName == name {
					has = true
				}
			}
			if !has {
				unbound = append(unbound, name)
			}
		}
		p.mu.Unlock()
		if quiet && len(unbound) == 0 {
			return ""
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			sort.Strings(unbound)
			if len(unbound) == 0 {
				return ""
			}
			return fmt.Sprintf("the mutating admission policies %q, planned in the same run, had no binding known when the impact was read "+
				"(a binding planned later is not applied before the verdicts: depends_on on it orders the plans)", unbound)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// plannedMutators are the planned mutating policies and bindings, nil values for those whose
// spec is not known yet.
func (p *Plans) plannedMutators() (map[string]*admissionregistrationv1.MutatingAdmissionPolicy, map[string]*admissionregistrationv1.MutatingAdmissionPolicyBinding) {
	p.mu.Lock()
	defer p.mu.Unlock()
	policies := make(map[string]*admissionregistrationv1.MutatingAdmissionPolicy, len(p.mutatingPolicies))
	for name, m := range p.mutatingPolicies {
		policies[name] = m.policy
	}
	bindings := make(map[string]*admissionregistrationv1.MutatingAdmissionPolicyBinding, len(p.mutatingBindings))
	for name, b := range p.mutatingBindings {
		bindings[name] = b
	}
	return policies, bindings
}

// claim records that subject's warning names the object ref in the list of key, and says
// which subject named it first ("" when this one is the first).
func (p *Plans) claim(key, ref, subject string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.named == nil {
		p.named = map[string]string{}
	}
	k := key + "\x00" + ref
	if by, ok := p.named[k]; ok && by != subject {
		return by
	}
	p.named[k] = subject
	return ""
}
