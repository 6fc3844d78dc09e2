package policy

import (
	"context"
	"fmt"
	"sync"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/typecheck"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// planEnv is what the advice at plan may use: the provider's client when the
// cluster can be reached (nil otherwise).
type planEnv struct {
	client *kube.Client
}

// checkers are the type checkers of the provider's clients (each keeps the
// schemas it resolved, and fetches its cluster's API at most once), and
// offlineChecker the one for plans without a cluster, built-in kinds only.
var (
	checkers       sync.Map // *kube.Client → *typecheck.Checker
	offlineChecker = sync.OnceValue(func() *typecheck.Checker { return typecheck.New(nil) })
)

func (e *planEnv) checker() *typecheck.Checker {
	if e.client == nil {
		return offlineChecker()
	}
	if c, ok := checkers.Load(e.client); ok {
		return c.(*typecheck.Checker)
	}
	c, _ := checkers.LoadOrStore(e.client, typecheck.New(e.client.Discovery))
	return c.(*typecheck.Checker)
}

// typeChecked turns the type checker's findings into advice on the
// expressions they are about; afterwards says what else is to know.
func typeChecked(found []typecheck.Warning, afterwards string) []validation.Warning {
	var out []validation.Warning
	for _, w := range found {
		out = append(out, validation.Warning{
			Path:    field.NewPath(w.Field), // the whole API path, as one segment
			Summary: summaryTypeChecking,
			Message: w.Message + "\n\nThe API server accepts the policy, but an expression that does not type-check fails when it is evaluated, " +
				"and then the policy's failure_policy decides." + afterwards,
		})
	}
	return out
}

func (e *planEnv) typeCheck(p *validatingPolicy) []validation.Warning {
	return typeChecked(e.checker().ValidatingPolicy(p), " The server reports the same in status.type_checking once the policy is stored.")
}

func (e *planEnv) typeCheckMutating(p *mutatingPolicy) []validation.Warning {
	return typeChecked(e.checker().MutatingPolicy(p), "")
}

// Summaries of the advice at plan.
const (
	summaryNoPolicy     = "Binding to a policy that does not exist"
	summaryNoParamRef   = "Binding without param_ref to a policy with param_kind"
	summaryTypeChecking = "Expression does not type-check"
)

// adviseBinding is the advice on a binding of the policy named policyName,
// of the policy kind policies, when the cluster can be reached: the policy
// does not exist, or it takes parameters that the binding does not give.
// The server accepts both; the first binds nothing, and with the second every
// request the binding matches fails the policy (then failure_policy decides).
// It reads the policy once.
func adviseBinding[S, P any](ctx context.Context, env *planEnv, policies *kind[S, P], policyName string, hasParamRef bool,
	hasParamKind func(*P) bool, failurePolicy func(*P) *admissionregistrationv1.FailurePolicyType,
	lockout func(*P) []validation.Warning) []validation.Warning {
	if env.client == nil || policyName == "" {
		return nil
	}
	p, err := policies.object.API(env.client).Get(ctx, policyName)
	if err != nil {
		tflog.Debug(ctx, "cannot read the bound policy; no advice on the binding", map[string]any{"policy": policyName, "error": err.Error()})
		return nil
	}
	kindName := policies.api.name
	if p == nil {
		return []validation.Warning{{
			Path:    field.NewPath("spec", "policyName"),
			Summary: summaryNoPolicy,
			Message: fmt.Sprintf("There is no %s named %q in the cluster, so this binding does nothing until one is created. "+
				"If the policy is created in the same apply, set policy_name to that resource's id (admission_%s.<name>.id): "+
				"Terraform then creates the policy first, and this check waits for it.", kindName, policyName, policies.typeName),
		}}
	}
	// What the binding and its policy together intercept of what keeps the cluster alive
	// (validation.PolicyLockout, MutatingPolicyLockout).
	lockedOut := lockout(p)
	if hasParamKind(p) && !hasParamRef {
		outcome := "rejected (its failure_policy is Fail)"
		if fp := failurePolicy(p); fp != nil && *fp == admissionregistrationv1.Ignore {
			outcome = "let through without what reads params (its failure_policy is Ignore)"
		}
		return append([]validation.Warning{{
			Path:    field.NewPath("spec", "paramRef"),
			Summary: summaryNoParamRef,
			Message: fmt.Sprintf("The %s %q has a param_kind, so it expects a parameter, but this binding has no param_ref: "+
				"the policy is evaluated with params null, each expression that reads params fails, and every request the binding matches "+
				"is then %s. Add a param_ref block.", kindName, policyName, outcome),
		}}, lockedOut...)
	}
	return lockedOut
}
