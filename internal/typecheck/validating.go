package typecheck

import (
	"encoding/json"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
)

// ValidatingPolicy type-checks every expression of a ValidatingAdmissionPolicy against each
// kind its matchConstraints select (at most ten, as the server): validations[].expression and
// messageExpression, as the server's TypeChecker.Check does, and also
// auditAnnotations[].valueExpression, matchConditions[].expression and variables[].expression.
// Every expression sees the variables; a variable sees those before it. params has the type
// of paramKind when that kind resolves, else dyn. A kind that does not resolve is skipped.
func (c *Checker) ValidatingPolicy(p *admissionregistrationv1.ValidatingAdmissionPolicy) []Warning {
	if p == nil || p.Spec.MatchConstraints == nil {
		return nil
	}
	spec := field.NewPath("spec")
	var out []Warning
	all := c.context(p)
	for i, v := range p.Spec.Validations {
		at := spec.Child("validations").Index(i)
		out = c.check(out, all, at.Child("expression"), v.Expression)
		out = c.check(out, all, at.Child("messageExpression"), v.MessageExpression)
	}
	for i, a := range p.Spec.AuditAnnotations {
		out = c.check(out, all, spec.Child("auditAnnotations").Index(i).Child("valueExpression"), a.ValueExpression)
	}
	return c.conditionsAndVariables(out, p)
}

// conditionsAndVariables type-checks the match conditions and the variables of a policy.
func (c *Checker) conditionsAndVariables(out []Warning, p *admissionregistrationv1.ValidatingAdmissionPolicy) []Warning {
	spec := field.NewPath("spec")
	all := c.context(p)
	for i, m := range p.Spec.MatchConditions {
		out = c.check(out, all, spec.Child("matchConditions").Index(i).Child("expression"), m.Expression)
	}
	for i, v := range p.Spec.Variables {
		out = c.check(out, c.context(withVariables(p, i)), spec.Child("variables").Index(i).Child("expression"), v.Expression)
	}
	return out
}

// withVariables is the policy with only its first n variables, for the context of variable n.
func withVariables(p *admissionregistrationv1.ValidatingAdmissionPolicy, n int) *admissionregistrationv1.ValidatingAdmissionPolicy {
	q := *p
	q.Spec.Variables = p.Spec.Variables[:n:n]
	return &q
}

// typedContext is a TypeCheckingContext and the key it is cached under.
type typedContext struct {
	key string
	ctx *validating.TypeCheckingContext
}

// context resolves the kinds and params of a policy and types them (TypeChecker.CreateContext),
// or finds them resolved for an earlier policy with the same rules, paramKind and variables;
// nil if that panicked.
func (c *Checker) context(p *admissionregistrationv1.ValidatingAdmissionPolicy) (tc *typedContext) {
	raw, err := json.Marshal(contextKey{p.Spec.MatchConstraints.ResourceRules, p.Spec.ParamKind, p.Spec.Variables})
	if err != nil {
		return nil
	}
	key := string(raw)
	if ctx, ok := c.contexts.get(key); ok {
		return &typedContext{key, ctx}
	}
	defer func() {
		if recover() != nil {
			tc = nil
		}
	}()
	ctx := c.types.CreateContext(p)
	c.contexts.put(key, ctx)
	return &typedContext{key, ctx}
}

// contextKey is what TypeChecker.CreateContext reads of a policy: the kinds come from the
// resource rules, the params from paramKind.
type contextKey struct {
	Rules     []admissionregistrationv1.NamedRuleWithOperations
	ParamKind *admissionregistrationv1.ParamKind
	Variables []admissionregistrationv1.Variable
}

// check type-checks one expression and appends the warning, if any, as the server words it
// (TypeCheckingResults.String, one part per kind).
func (c *Checker) check(out []Warning, ctx *typedContext, path *field.Path, expr string) []Warning {
	if ctx == nil || strings.TrimSpace(expr) == "" {
		return out
	}
	key := ctx.key + "\x00" + expr
	msg, ok := c.results.get(key)
	if !ok {
		msg = c.checkExpression(ctx.ctx, expr)
		c.results.put(key, msg)
	}
	if msg == "" {
		return out
	}
	return append(out, Warning{Field: path.String(), Message: msg})
}

// checkExpression runs TypeChecker.CheckExpression; no message if it panicked.
func (c *Checker) checkExpression(ctx *validating.TypeCheckingContext, expr string) (msg string) {
	defer func() {
		if recover() != nil {
			msg = ""
		}
	}()
	return c.types.CheckExpression(ctx, expr).String()
}
