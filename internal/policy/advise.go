package policy

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/advice"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/core"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/live"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/typecheck"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

// checkers are the type checkers of the provider's clients (each keeps the
// schemas it resolved, and fetches its cluster's API at most once), and
// offlineChecker the one for plans without a cluster, built-in kinds only.
var (
	checkers       core.PerClient[*typecheck.Checker]
	offlineChecker = sync.OnceValue(func() *typecheck.Checker { return typecheck.New(nil) })
)

// checker is the type checker of the plan's client.
func checker(env core.PlanEnv) *typecheck.Checker {
	if env.Client == nil {
		return offlineChecker()
	}
	return checkers.Get(env.Client, func() (*typecheck.Checker, bool) {
		return typecheck.New(func() (*live.Reader, error) { return live.For(env.Client, live.Limits{}) }), true
	})
}

// typeChecked turns the type checker's findings into advice on the
// expressions they are about, each in a few lines (typecheck.Brief); whose
// says whose findings they are.
func typeChecked(found []typecheck.Warning, whose string) []warning.Warning {
	var out []warning.Warning
	for _, w := range found {
		out = append(out, warning.Warning{
			Path:    field.NewPath(w.Field), // the whole API path, as one segment
			Kind:    warning.TypeCheck,
			Summary: summaryTypeChecking,
			Message: w.Brief() + "\n\n" + whose + " At admission object is not typed (k8s.io/apiserver " +
				"pkg/admission/plugin/policy/validating): a part that names a field its kind lacks fails only when it runs, " +
				"and then failure_policy decides; a part that a guard such as object.kind == 'Pod' keeps from running for that kind is harmless. " +
				"The type checker also misses fields that have no CEL type in the schema (maps of quantities, such as a container's resources.limits): " +
				"those read fine at admission.",
		})
	}
	return out
}

// typeCheckValidating and typeCheckMutating are the type checker's advice
// on a policy (defaulted).
func typeCheckValidating(env core.PlanEnv, p *validatingPolicy) []warning.Warning {
	return typeChecked(checker(env).ValidatingPolicy(p), "These are the findings of kube-apiserver's own type checker against the schema "+
		"of each kind the policy matches; the server reports the same in status.type_checking once the policy is stored.")
}

func typeCheckMutating(env core.PlanEnv, p *mutatingPolicy) []warning.Warning {
	return append(advice.JSONPatchPathWarnings(p), typeChecked(checker(env).MutatingPolicy(p), "These are the findings of kube-apiserver's type checker on the mutation as the server "+
		"compiles it, against the schema of each kind the policy matches; the server does not type-check mutating policies itself.")...)
}

// A binding whose policy is not in the cluster waits a bounded moment for a policy of that
// name planned in the same run: Terraform plans resources concurrently (-parallelism, 10 by
// default), so with a literal policy_name the binding may plan before or after its policy.
// Each of the provider's plans records the policies it plans (plannedOf) as it begins its
// advice. The binding waits at most plannedMaxWait, and stops early once Terraform has gone
// quiet: no plan started within plannedIdle and every plan still running is a binding waiting
// like this one. Quiet can mean two things: Terraform has nothing more to plan (the policy is
// nowhere), or all of its concurrent plans are such bindings, so no policy can start until
// one of them returns. The second needs at least as many waiting bindings as Terraform plans
// at once; from plannedSaturated waiting bindings the binding says it could not tell
// (plannedUnknown) rather than that the policy does not exist.
const (
	plannedIdle      = 2 * time.Second
	plannedMaxWait   = 10 * time.Second
	plannedPoll      = 20 * time.Millisecond
	plannedSaturated = 10 // Terraform's default -parallelism
)

// plannedWaiting counts the bindings waiting in awaitPlanned.
var plannedWaiting atomic.Int64

// What awaitPlanned found of the policy.
type plannedOutcome int

const (
	plannedFound   plannedOutcome = iota // planned in this run
	plannedNowhere                       // not planned: Terraform planned everything else it could
	plannedUnknown                       // Terraform's concurrent plans were all waiting bindings
)

// awaitPlanned is plannedPolicy once the policy named name is planned in this run; otherwise
// what it could tell when Terraform went quiet (above), plannedMaxWait passed, or ctx was done.
func awaitPlanned[P any](ctx context.Context, per *core.PerClient[*sync.Map], env core.PlanEnv, name string) (*P, plannedOutcome) {
	start := time.Now()
	plannedWaiting.Add(1)
	defer plannedWaiting.Add(-1)
	tick := time.NewTicker(plannedPoll)
	defer tick.Stop()
	for {
		if p, ok := plannedPolicy[P](per, env, name); ok {
			tflog.Debug(ctx, "the bound policy is planned in this run", map[string]any{"policy": name, "waited": time.Since(start).String()})
			return p, plannedFound
		}
		last := core.LastPlanStart()
		if last.Before(start) {
			last = start
		}
		if time.Since(start) > plannedMaxWait {
			return nil, plannedNowhere
		}
		if time.Since(last) > plannedIdle {
			if outcome, quiet := quietOutcome(plannedWaiting.Load(), core.PlansInFlight()); quiet {
				tflog.Debug(ctx, "the bound policy is not planned in this run so far", map[string]any{"policy": name, "outcome": int(outcome)})
				return nil, outcome
			}
		}
		select {
		case <-ctx.Done():
			return nil, plannedNowhere
		case <-tick.C:
		}
	}
}

// quietOutcome is what waiting bindings can tell once no plan has started for plannedIdle,
// given how many bindings wait and how many plans run: nothing while some other plan still
// runs (quiet is false), which may be the policy's, else whether their number may fill
// Terraform's concurrent plans.
func quietOutcome(waiting, inFlight int64) (outcome plannedOutcome, quiet bool) {
	if inFlight > waiting {
		return 0, false
	}
	if waiting >= plannedSaturated {
		return plannedUnknown, true
	}
	return plannedNowhere, true
}

// Summaries of the advice at plan.
const (
	summaryNoPolicy     = "Binding to a policy that does not exist"
	summaryPolicyNotYet = "Binding to a policy not planned yet"
	summaryNoParamRef   = "Binding without param_ref to a policy with param_kind"
	summaryTypeChecking = "Expression does not type-check"
)

// adviseBinding is the advice on a binding of the policy named policyName,
// of the policy kind policies, when the cluster can be reached: the policy
// does not exist, or it takes parameters that the binding does not give.
// The server accepts both; the first binds nothing, and with the second every
// request the binding matches fails the policy (then failure_policy decides).
// It reads the policy once.
//
// A policy planned earlier in the same run (a binding whose policy_name names the policy
// resource's metadata name) is judged as planned (plannedPolicy).
func adviseBinding[M core.Model, P any](ctx context.Context, env core.PlanEnv, policies *core.Description[M, P], planned *core.PerClient[*sync.Map],
	policyName string, paramRef *admissionregistrationv1.ParamRef, matchResources *admissionregistrationv1.MatchResources, bound func(*P) advice.BoundPolicy,
	lockout func(*P) []warning.Warning) []warning.Warning {
	if env.Client == nil || policyName == "" {
		return nil
	}
	p, err := policies.API.Objects(env.Client).Get(ctx, policyName)
	pp, ok := plannedPolicy[P](planned, env, policyName)
	if !ok && err == nil && p == nil {
		// Not in the cluster: the policy may be planned in this run, before or after the
		// binding (a literal policy_name orders nothing).
		var outcome plannedOutcome
		pp, outcome = awaitPlanned[P](ctx, planned, env, policyName)
		ok = outcome == plannedFound
		if outcome == plannedUnknown {
			return []warning.Warning{{
				Path:    field.NewPath("spec", "policyName"),
				Kind:    warning.Reference,
				Summary: summaryPolicyNotYet,
				Message: fmt.Sprintf("There is no %s named %q in the cluster, and its plan had not begun when this binding's plan "+
					"could wait no longer: all of Terraform's concurrent plans were bindings waiting for their policies. If the policy "+
					"is in this configuration, nothing is wrong; set policy_name to that resource's metadata[0].name so that Terraform "+
					"plans the policy first.", policies.API.Kind, policyName),
			}}
		}
	}
	if ok {
		if pp == nil {
			return nil // planned with a spec not known yet
		}
		p, err = pp, nil
	}
	if err != nil {
		tflog.Debug(ctx, "cannot read the bound policy; no advice on the binding", map[string]any{"policy": policyName, "error": err.Error()})
		return nil
	}
	kindName := policies.API.Kind
	if p == nil {
		return []warning.Warning{{
			Path:    field.NewPath("spec", "policyName"),
			Kind:    warning.Reference,
			Summary: summaryNoPolicy,
			Message: fmt.Sprintf("There is no %s named %q in the cluster, and none of that name is planned in this run, "+
				"so this binding does nothing until one is created. Check the name; a policy managed elsewhere (another configuration, "+
				"a chart) must be created there.", kindName, policyName),
		}}
	}
	// What the binding and its policy together intercept of what keeps the cluster alive
	// (advice.PolicyLockout, MutatingPolicyLockout).
	// The binding's selectors, param ref and actions decide what it intercepts:
	// while one is not known, an unknown value reads as empty (matching
	// everything), so the lockout check waits until they are known.
	var lockedOut []warning.Warning
	if !env.UnknownUnder("spec") {
		lockedOut = lockout(p)
	}
	bp := bound(p)
	if bp.ParamKind != nil && paramRef == nil {
		outcome := "rejected (its failure_policy is Fail)"
		if fp := bp.FailurePolicy; fp != nil && *fp == admissionregistrationv1.Ignore {
			outcome = "let through without what reads params (its failure_policy is Ignore)"
		}
		return append([]warning.Warning{{
			Path:    field.NewPath("spec", "paramRef"),
			Kind:    warning.Reference,
			Summary: summaryNoParamRef,
			Message: fmt.Sprintf("The %s %q has a param_kind, so it expects a parameter, but this binding has no param_ref: "+
				"the policy is evaluated with params null, each expression that reads params fails, and every request the binding matches "+
				"is then %s. Add a param_ref block.", kindName, policyName, outcome),
		}}, lockedOut...)
	}
	// The params the binding names, as the cluster has them (advice.ParamsWarnings); while
	// its param_ref is not known (a params object made in the same apply), no claim.
	if !env.UnknownUnder("spec.paramRef") {
		lockedOut = append(lockedOut, advice.ParamsWarnings(ctx, env.Live(), bp, paramRef, matchResources)...)
	}
	return lockedOut
}
