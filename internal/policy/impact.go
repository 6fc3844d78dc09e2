package policy

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/core"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/impact"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/live"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

// The impact of a planned policy or binding on the objects the cluster runs
// (internal/impact), at plan, when the cluster can be reached and dry_run_on_plan is on:
// reported on the binding when the binding is planned, and on the policy, through the
// bindings the cluster has, when the policy is planned. A binding planned after its policy
// (policy_name names the policy resource's metadata name) sees the policy as planned: each
// planned policy is kept for the rest of the run (planned).

// clusters are the impact's view of each provider client's cluster, kept for the run.
var clusters core.PerClient[*impact.Cluster]

// impactCluster is the cluster of the plan's client, nil when the impact is off: no cluster,
// dry_run_on_plan off, or impact_max_objects = 0.
func impactCluster(env core.PlanEnv) *impact.Cluster {
	c := env.Client
	if c == nil || !c.DryRunOnPlan || c.ImpactMaxObjects < 0 {
		return nil
	}
	return clusters.Get(c, func() (*impact.Cluster, bool) {
		clients, err := live.ClientsOf(c)
		if err != nil {
			return nil, false
		}
		return impact.NewCluster(clients, impact.Bounds{MaxObjects: c.ImpactMaxObjects, Budget: c.ImpactTimeout}), true
	})
}

// impactContext is the context of one impact: the plan's values, and its own time budget
// (impact.Bounds), not the checks' shorter deadline.
func impactContext(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }

// report is how the impact reads on the resource at path.
func report(c *impact.Cluster, subject string, path *field.Path, gate bool) impact.Report {
	return impact.Report{Subject: subject, Path: path, Gate: gate, Bounds: c.Bounds,
		MaxObjectsSetting: "impact_max_objects", BudgetSetting: "impact_timeout"}
}

// plannedPolicies are the policies planned in this run, by client and name; a nil value is
// one whose spec is not known yet.
var (
	plannedValidating core.PerClient[*sync.Map]
	plannedMutating   core.PerClient[*sync.Map]
)

func plannedOf(per *core.PerClient[*sync.Map], env core.PlanEnv) *sync.Map {
	return per.Get(env.Client, func() (*sync.Map, bool) { return &sync.Map{}, true })
}

// plannedPolicy is the policy named name as planned earlier in this run: planned is false when
// it was not; p is nil when its spec is not known yet.
func plannedPolicy[P any](per *core.PerClient[*sync.Map], env core.PlanEnv, name string) (p *P, planned bool) {
	v, ok := plannedOf(per, env).Load(name)
	if !ok {
		return nil, false
	}
	p, _ = v.(*P)
	return p, true
}

// recordPlanned records the planned policy p of the kind, named name, for the bindings planned
// in the same run (nil when its spec is not known yet): first thing in the policy's advice, so
// that a binding waiting for it (awaitPlanned) waits as little as can be.
func recordPlanned[P any](per *core.PerClient[*sync.Map], env core.PlanEnv, name string, p *P) {
	if env.Client == nil {
		return
	}
	if env.UnknownUnder("spec") {
		p = nil
	}
	plannedOf(per, env).Store(name, p)
}

// knownAfterApply is the one line of an impact that depends on what is not known yet.
func knownAfterApply(subject, what string) warning.Warning {
	return warning.Warning{Kind: warning.Impact, Summary: impact.SummaryKnownLater,
		Message: fmt.Sprintf("%s: its impact on the objects the cluster runs is known after apply, since %s is not known yet.", bare(subject), what)}
}

// incomplete is the line of an impact that could not start; a cluster that cannot be reached
// is said once for the whole plan instead (core.Unreachable), by whichever check meets it first.
func incomplete(env core.PlanEnv, subject, what string, err error) []warning.Warning {
	if w, first, ok := core.Unreachable(env.Client, err); ok {
		if first {
			return []warning.Warning{w}
		}
		return nil
	}
	return []warning.Warning{{Kind: warning.Impact, Summary: impact.SummaryIncomplete,
		Message: fmt.Sprintf("%s: its impact on the objects the cluster runs is not known: %s could not be read: %v.", bare(subject), what, err)}}
}

// bare is a subject without the comma that closes it in the impact's sentences (`Binding "b" of
// ValidatingAdmissionPolicy "p", as planned, would deny ...`), for a sentence that goes on
// after a colon.
func bare(subject string) string { return strings.TrimSuffix(subject, ",") }

// startPolicyImpact records the planned policy p of the kind for the bindings planned after it
// (nil when its spec is not known yet) and gives the cluster its impact is read from, with the
// subject of its warnings; a nil cluster ends it there, with the warnings done (none without a
// cluster, "known after apply" for a spec not known yet).
func startPolicyImpact[P any](per *core.PerClient[*sync.Map], env core.PlanEnv, kind, name string, p *P) (c *impact.Cluster, subject string, done []warning.Warning) {
	if env.Client == nil {
		return nil, "", nil
	}
	unknown := env.UnknownUnder("spec")
	recordPlanned(per, env, name, p)
	if c = impactCluster(env); c == nil {
		return nil, "", nil
	}
	subject = fmt.Sprintf("%s %q, as planned,", kind, name)
	if unknown {
		return nil, "", []warning.Warning{knownAfterApply(subject, "part of its spec")}
	}
	return c, subject, nil
}

// validatingPolicyImpact is the impact of a planned validating policy through the bindings the
// cluster has of it, with the flips against the policy the cluster has.
func validatingPolicyImpact(ctx context.Context, env core.PlanEnv, p *validatingPolicy) []warning.Warning {
	planProbes(env, kindValidatingPolicy, p.Name)
	c, subject, done := startPolicyImpact(&plannedValidating, env, "ValidatingAdmissionPolicy", p.Name, p)
	if c == nil {
		return done
	}
	ctx = impactContext(ctx)
	bindings, err := c.ValidatingBindings(ctx, p.Name)
	if err != nil {
		return incomplete(env, subject, "the bindings of the cluster", err)
	}
	if len(bindings) == 0 {
		tflog.Debug(ctx, "no binding in the cluster applies the policy; its bindings' plans report its impact", map[string]any{"policy": p.Name})
		return nil
	}
	live, err := c.ValidatingPolicy(ctx, p.Name)
	if err != nil {
		return incomplete(env, subject, "the policy in the cluster", err)
	}
	var out []warning.Warning
	for i := range bindings {
		b := &bindings[i]
		var was *impact.ValidatingPair
		if live != nil {
			was = &impact.ValidatingPair{Policy: live, Binding: b}
		}
		subject := fmt.Sprintf("ValidatingAdmissionPolicy %q, as planned, through its binding %q in the cluster,", p.Name, b.Name)
		res := c.Validating(ctx, impact.ValidatingPair{Policy: p, Binding: b}, was, impact.Options{Subject: subject})
		tflog.Debug(ctx, "impact of the planned policy", map[string]any{"policy": p.Name, "binding": b.Name, "result": res.String()})
		addProbes(env, kindValidatingPolicy, p.Name, res, was == nil)
		// The binding's gate, as the cluster records it (gateRecorded), holds for its policy too.
		out = append(out, res.Warnings(report(c, subject, field.NewPath("spec", "validations"), gateRecorded(b)))...)
	}
	return out
}

// validatingBindingImpact is the impact of a planned validating binding with its policy (as
// planned in this run, else as the cluster has it), with the flips against the binding and
// policy the cluster has; gate makes what would deny existing objects an error.
func validatingBindingImpact(ctx context.Context, env core.PlanEnv, b *validatingBinding, gate bool) []warning.Warning {
	planProbes(env, kindValidatingBinding, b.Name)
	c := impactCluster(env)
	if c == nil {
		return nil
	}
	subject := fmt.Sprintf("Binding %q", b.Name)
	if byID(env, b.Spec.PolicyName) {
		// A binding that names a policy created in the same apply by its id, as the advice on
		// a binding asks: its impact is known after apply, and said only when the gate asks
		// that the plan judge it.
		tflog.Debug(ctx, "the binding's policy_name is not known yet; its impact is known after apply", map[string]any{"binding": b.Name})
		if !gate {
			return nil
		}
		w := knownAfterApply(subject, "its policy_name (the id of a policy created in the same apply)")
		w.Summary, w.Gated = impact.SummaryGateFailure, true
		w.Message += "\n\nThe binding's fail_on_existing_denials is true, and the plan cannot judge it: name the policy by the policy resource's " +
			"metadata[0].name (known at plan, and Terraform still creates the policy first), or apply the policy first."
		return []warning.Warning{w}
	}
	if env.UnknownUnder("spec") {
		w := knownAfterApply(subject, "part of its spec")
		w.Gated = gate
		return []warning.Warning{w}
	}
	ctx = impactContext(ctx)
	live, err := c.ValidatingPolicy(ctx, b.Spec.PolicyName)
	if err != nil {
		return incomplete(env, subject, "its policy", err)
	}
	policy := live
	if planned, ok := plannedPolicy[validatingPolicy](&plannedValidating, env, b.Spec.PolicyName); ok {
		if planned == nil {
			return []warning.Warning{knownAfterApply(subject, fmt.Sprintf("the spec of its policy %q, planned in the same run,", b.Spec.PolicyName))}
		}
		policy = planned
	}
	if policy == nil {
		return nil // adviseBinding says the policy does not exist
	}
	subject = fmt.Sprintf("Binding %q of ValidatingAdmissionPolicy %q, as planned,", b.Name, b.Spec.PolicyName)
	var was *impact.ValidatingPair
	if live != nil {
		if liveBinding, err := c.ValidatingBinding(ctx, b.Name); err == nil && liveBinding != nil && liveBinding.Spec.PolicyName == live.Name {
			was = &impact.ValidatingPair{Policy: live, Binding: liveBinding}
		}
	}
	res := c.Validating(ctx, impact.ValidatingPair{Policy: policy, Binding: b}, was, impact.Options{Subject: subject})
	tflog.Debug(ctx, "impact of the planned binding", map[string]any{"policy": policy.Name, "binding": b.Name, "result": res.String()})
	addProbes(env, kindValidatingBinding, b.Name, res, was == nil)
	return res.Warnings(report(c, subject, field.NewPath("spec", "validationActions"), gate))
}

// mutatingPolicyImpact is the impact of a planned mutating policy through the bindings the
// cluster has of it.
func mutatingPolicyImpact(ctx context.Context, env core.PlanEnv, p *mutatingPolicy) []warning.Warning {
	c, subject, done := startPolicyImpact(&plannedMutating, env, "MutatingAdmissionPolicy", p.Name, p)
	if c == nil {
		return done
	}
	ctx = impactContext(ctx)
	bindings, err := c.MutatingBindings(ctx, p.Name)
	if err != nil {
		return incomplete(env, subject, "the bindings of the cluster", err)
	}
	var out []warning.Warning
	for i := range bindings {
		b := &bindings[i]
		subject := fmt.Sprintf("MutatingAdmissionPolicy %q, as planned, through its binding %q in the cluster,", p.Name, b.Name)
		res := c.Mutating(ctx, impact.MutatingPair{Policy: p, Binding: b}, impact.Options{Subject: subject})
		out = append(out, res.MutatingWarnings(report(c, subject, field.NewPath("spec", "mutations"), false))...)
	}
	return out
}

// mutatingBindingImpact is the impact of a planned mutating binding with its policy.
func mutatingBindingImpact(ctx context.Context, env core.PlanEnv, b *mutatingBinding) []warning.Warning {
	c := impactCluster(env)
	if c == nil {
		return nil
	}
	subject := fmt.Sprintf("Binding %q", b.Name)
	if byID(env, b.Spec.PolicyName) {
		tflog.Debug(ctx, "the binding's policy_name is not known yet; its impact is known after apply", map[string]any{"binding": b.Name})
		return nil
	}
	if env.UnknownUnder("spec") {
		return []warning.Warning{knownAfterApply(subject, "part of its spec")}
	}
	ctx = impactContext(ctx)
	policy, err := c.MutatingPolicy(ctx, b.Spec.PolicyName)
	if err != nil {
		return incomplete(env, subject, "its policy", err)
	}
	if planned, ok := plannedPolicy[mutatingPolicy](&plannedMutating, env, b.Spec.PolicyName); ok {
		if planned == nil {
			return []warning.Warning{knownAfterApply(subject, fmt.Sprintf("the spec of its policy %q, planned in the same run,", b.Spec.PolicyName))}
		}
		policy = planned
	}
	if policy == nil {
		return nil
	}
	subject = fmt.Sprintf("Binding %q of MutatingAdmissionPolicy %q, as planned,", b.Name, b.Spec.PolicyName)
	res := c.Mutating(ctx, impact.MutatingPair{Policy: policy, Binding: b}, impact.Options{Subject: subject})
	return res.MutatingWarnings(report(c, subject, field.NewPath("spec"), false))
}

// byID reports whether the binding's policy_name is what is not known yet of its spec: the id
// of a policy created in the same apply, the way the advice on a binding asks to name one.
func byID(env core.PlanEnv, policyName string) bool {
	return policyName == "" && env.UnknownUnder("spec.policyName") && !env.UnknownUnder("spec", "policyName")
}

// gateOf is the binding's fail_on_existing_denials in the plan.
func gateOf(env core.PlanEnv) bool {
	m, ok := env.Plan.(*validatingBindingModel)
	return ok && m.FailOnExistingDenials.ValueBool()
}

// The impact of a validating policy applies the mutating policies planned in the same run
// first, and that of a mutating one weighs their order (impact.Plans): each plan of a policy or
// binding records itself there as it begins its advice, before the checks that read the
// cluster.

// planBegins records that the plan of a policy or binding has begun.
func planBegins(env core.PlanEnv) {
	if c := impactCluster(env); c != nil {
		c.Plans().Begin()
	}
}

// planMutatingPolicy records the planned mutating policy (its spec, when known); the returned
// func says its plan is over.
func planMutatingPolicy(env core.PlanEnv, p *mutatingPolicy) (done func()) {
	c := impactCluster(env)
	if c == nil {
		return func() {}
	}
	name := p.Name
	if env.UnknownUnder("spec") {
		p = nil
	}
	if name == "" {
		return func() {}
	}
	return c.Plans().MutatingPolicy(name, p)
}

// planMutatingBinding records the planned mutating binding (its spec, when known).
func planMutatingBinding(env core.PlanEnv, b *mutatingBinding) {
	c := impactCluster(env)
	if c == nil || b.Name == "" {
		return
	}
	if env.UnknownUnder("spec") {
		c.Plans().MutatingBinding(b.Name, nil)
		return
	}
	c.Plans().MutatingBinding(b.Name, b)
}
