package differential

import (
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding cases.

type (
	vap  = v1.ValidatingAdmissionPolicy
	vapb = v1.ValidatingAdmissionPolicyBinding
)

var (
	// validMessageExpressions compile to a string without the authorizer.
	validMessageExpressions = []string{
		"'denied'", "'name: ' + string(object.metadata.name)", "request.userInfo.username", "request.operation",
		"'x'.upperAscii()", "string(request.dryRun)", "  'padded'  ", "'line ' +\n'break'",
	}
	// validAuditValues compile to a string or null.
	validAuditValues = []string{
		"request.userInfo.username", "null", "'v1'", "string(size(request.userInfo.groups))", "request.namespace",
		"  'padded'  ",
	}
	validReasons = []metav1.StatusReason{metav1.StatusReasonForbidden, metav1.StatusReasonInvalid, metav1.StatusReasonRequestEntityTooLarge}
)

// validValidatingPolicy returns a random ValidatingAdmissionPolicy the server accepts.
func (g *gen) validValidatingPolicy() *vap {
	p := &vap{ObjectMeta: g.validMeta("vap")}
	s := &p.Spec
	if g.chance(0.5) {
		s.FailurePolicy = ptr(pick(g, v1.Fail, v1.Ignore))
	}
	params := g.chance(0.3)
	if params {
		pk := pick(g, validParamKinds...)
		s.ParamKind = &pk
	}
	s.MatchConstraints = g.validMatchResources(false)
	s.MatchConditions = g.validPolicyConditions(params)
	vars, uses, quotes := g.validVariables(params)
	s.Variables = vars
	bools := slices.Concat(validExpressions, uses)
	strs := slices.Concat(validMessageExpressions, quotes)
	if params {
		bools = append(bools, paramsExpressions...)
		strs = append(strs, "'limit ' + string(params.?data.?limit.orValue('none'))")
	}
	n := 1 + g.r.IntN(3)
	if g.chance(0.1) {
		n = 0 // audit annotations only
	}
	for range n {
		v := v1.Validation{Expression: pick(g, bools...)}
		switch g.r.IntN(4) {
		case 1:
			v.Message = pick(g, "not allowed", "  padded  ", "\ntrimmed line breaks\n", "ü")
		case 2:
			v.MessageExpression = pick(g, strs...)
		case 3:
			v.Message, v.MessageExpression = "fallback", pick(g, strs...)
		}
		if g.chance(0.3) {
			v.Reason = ptr(pick(g, validReasons...))
		}
		s.Validations = append(s.Validations, v)
	}
	k := g.r.IntN(3)
	if n == 0 {
		k = 1 + k
	}
	for j := range k {
		s.AuditAnnotations = append(s.AuditAnnotations, v1.AuditAnnotation{
			Key:             fmt.Sprintf("%s%d", pick(g, "key", "A_b.c-", "x"), j),
			ValueExpression: pick(g, validAuditValues...),
		})
	}
	return p
}

// validValidatingBinding returns a random ValidatingAdmissionPolicyBinding the server accepts.
func (g *gen) validValidatingBinding() *vapb {
	b := &vapb{ObjectMeta: g.validMeta("vapb")}
	b.Spec.PolicyName = pick(g, "policy.example.com", "p", fmt.Sprintf("vap%04d.differential.example.com", g.id))
	if g.chance(0.4) {
		b.Spec.ParamRef = g.validParamRef()
	}
	if g.chance(0.5) {
		b.Spec.MatchResources = g.validMatchResources(false)
		if g.chance(0.3) {
			b.Spec.MatchResources.ResourceRules = nil
		}
	}
	b.Spec.ValidationActions = slices.Clone(pick(g, validActionSets...))
	return b
}

var validActionSets = [][]v1.ValidationAction{
	{v1.Deny}, {v1.Warn}, {v1.Audit}, {v1.Deny, v1.Audit}, {v1.Audit, v1.Warn}, {v1.Warn, v1.Audit},
}

// validatingPolicyGenerator generates the ValidatingAdmissionPolicy cases.
func validatingPolicyGenerator() policyGenerator[vap] {
	m := &mutatorList[vap]{}
	metadataMutators(m, "vap", func(p *vap) *metav1.ObjectMeta { return &p.ObjectMeta })
	policyMutators(m, policyParts[vap]{
		prefix:           "vap",
		failurePolicy:    func(p *vap) **v1.FailurePolicyType { return &p.Spec.FailurePolicy },
		paramKind:        func(p *vap) **v1.ParamKind { return &p.Spec.ParamKind },
		matchConstraints: func(p *vap) **v1.MatchResources { return &p.Spec.MatchConstraints },
		matchConditions:  func(p *vap) *[]v1.MatchCondition { return &p.Spec.MatchConditions },
		variables:        func(p *vap) *[]v1.Variable { return &p.Spec.Variables },
		useExpression: func(g *gen, p *vap, expr string) string {
			k := g.r.IntN(len(p.Spec.Validations) + 1)
			p.Spec.Validations = slices.Insert(p.Spec.Validations, k, v1.Validation{Expression: expr})
			return fmt.Sprintf("spec.validations[%d].expression %q", k, shorten(expr))
		},
	})
	validationMutators(m)
	return policyGenerator[vap]{seed: seed + 1, valid: (*gen).validValidatingPolicy, mutators: m.ms, valids: 500, combined: 200}
}

// validation returns a random validation of p, adding one if there is none.
func (g *gen) validation(p *vap) (*v1.Validation, string) {
	if len(p.Spec.Validations) == 0 {
		p.Spec.Validations = append(p.Spec.Validations, v1.Validation{Expression: "true"})
	}
	k := g.r.IntN(len(p.Spec.Validations))
	return &p.Spec.Validations[k], fmt.Sprintf("spec.validations[%d]", k)
}

// auditAnnotation returns a random audit annotation of p, adding one if there is none.
func (g *gen) auditAnnotation(p *vap) (*v1.AuditAnnotation, string) {
	if len(p.Spec.AuditAnnotations) == 0 {
		p.Spec.AuditAnnotations = append(p.Spec.AuditAnnotations, v1.AuditAnnotation{Key: "added", ValueExpression: "'v'"})
	}
	k := g.r.IntN(len(p.Spec.AuditAnnotations))
	return &p.Spec.AuditAnnotations[k], fmt.Sprintf("spec.auditAnnotations[%d]", k)
}

// validationMutators: validations and audit annotations (validateValidation,
// validateAuditAnnotation, validateValidatingAdmissionPolicySpec).
func validationMutators(m *mutatorList[vap]) {
	m.alone(4, "validations and auditAnnotations: both empty", reject, func(g *gen, p *vap) string {
		p.Spec.Validations, p.Spec.AuditAnnotations = nil, pick(g, nil, []v1.AuditAnnotation{})
		return "no validations, no audit annotations"
	})
	m.add("validations: none, audit annotations only", accept, func(g *gen, p *vap) string {
		p.Spec.Validations = nil
		g.auditAnnotation(p)
		return "no validations"
	})
	expr := func(rule string, want verdict, exprs ...string) {
		m.add(rule, want, func(g *gen, p *vap) string {
			v, where := g.validation(p)
			v.Expression = pick(g, exprs...)
			return fmt.Sprintf("%s.expression %q", where, shorten(v.Expression))
		})
	}
	expr("validation expression: valid, as written (untrimmed)", accept, "\n  true\n", "\tobject.metadata.name == 'x'  ", "  // a comment\n  true")
	expr("validation expression: empty or blank", reject, "", "   ", "\n")
	expr("validation expression: not bool", reject, "object.spec.enabled", "1", "'s'", "null", "request.userInfo", "[true]", "optional.of(true)")
	expr("validation expression: syntax error", reject, "object.metadata.name ==", "size(", "a b", "\n\n  )")
	expr("validation expression: undeclared reference", reject, "foo", "request.foo == 'x'", "variables.x == 1")
	expr("validation expression: type error", reject, "1 + 'a' == 2", "[1, 'a'].size() == 2", "duration('1x') > duration('1s')", "'a'.matches('[')")
	expr("validation expression: includes (not in the 1.36 environment)", reject, "[1, 2].includes(1)")
	expr("validation expression: the authorizer", accept, "authorizer.requestResource.check('get').allowed()",
		"authorizer.group('apps').resource('deployments').namespace('ns').check('get').allowed()")
	expr("validation expression: cost far beyond the runtime limit (not checked on create)", accept,
		"lists.range(1000000).all(i, lists.range(1000000).all(j, i != j || i == j))",
		"request.userInfo.groups.all(a, request.userInfo.groups.all(b, request.userInfo.groups.all(c, a + b + c != '')))",
		"object.spec.containers.all(c, object.spec.containers.all(d, c.image.matches(d.image)))")
	m.some(2, "validation expression: 100,000 characters", accept, func(g *gen, p *vap) string {
		v, where := g.validation(p)
		v.Expression = "'" + strings.Repeat("a", 100000-8) + "' != ''"
		return where + ".expression of 100,000 characters"
	})
	m.alone(2, "validation expression: 100,001 characters", reject, func(g *gen, p *vap) string {
		v, where := g.validation(p)
		v.Expression = "'" + strings.Repeat("a", 100001-8) + "' != ''"
		return where + ".expression of 100,001 characters"
	})

	msgExpr := func(rule string, want verdict, exprs ...string) {
		m.add(rule, want, func(g *gen, p *vap) string {
			v, where := g.validation(p)
			v.MessageExpression = pick(g, exprs...)
			return fmt.Sprintf("%s.messageExpression %q", where, shorten(v.MessageExpression))
		})
	}
	msgExpr("messageExpression: valid", accept, validMessageExpressions...)
	msgExpr("messageExpression: blank", reject, " ", "\n", "\t ")
	msgExpr("messageExpression: not a string", reject, "1", "true", "object.metadata.name", "null", "['a']", "optional.of('a')")
	msgExpr("messageExpression: syntax error or undeclared", reject, "'a' +", "foo", "request.foo")
	msgExpr("messageExpression: no authorizer there", reject, "authorizer.requestResource.check('get').reason()", "string(authorizer.requestResource.check('get').allowed())")
	m.add("messageExpression: params with paramKind", accept, func(g *gen, p *vap) string {
		if p.Spec.ParamKind == nil {
			p.Spec.ParamKind = &v1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
		}
		v, where := g.validation(p)
		v.MessageExpression = "'limit: ' + string(params.?data.?limit.orValue('none'))"
		return where + ".messageExpression with params"
	})
	m.add("messageExpression: params without paramKind", reject, func(g *gen, p *vap) string {
		p.Spec.ParamKind = nil
		v, where := g.validation(p)
		v.MessageExpression = "string(params)"
		return where + ".messageExpression string(params) without paramKind"
	})
	m.add("messageExpression: variables", accept, func(g *gen, p *vap) string {
		p.Spec.Variables = append(p.Spec.Variables, v1.Variable{Name: "who", Expression: "request.userInfo.username"})
		v, where := g.validation(p)
		v.MessageExpression = "'by ' + variables.who"
		return where + ".messageExpression 'by ' + variables.who"
	})

	msg := func(rule string, want verdict, msgs ...string) {
		m.add(rule, want, func(g *gen, p *vap) string {
			v, where := g.validation(p)
			v.Message = pick(g, msgs...)
			return fmt.Sprintf("%s.message %q", where, shorten(v.Message))
		})
	}
	msg("message: blank", reject, " ", "\n", "\t")
	msg("message: line breaks", reject, "two\nlines", "cr\rhere", " a\r\nb ")
	msg("message: line breaks at the ends only (trimmed)", accept, "\nok\n", "\r\nok", "ok\n\n")
	msg("message: anything on one line", accept, "ü \t tab", strings.Repeat("m", 5000), "'quoted' \"text\"")

	reason := func(rule string, want verdict, reasons ...string) {
		m.add(rule, want, func(g *gen, p *vap) string {
			v, where := g.validation(p)
			v.Reason = ptr(metav1.StatusReason(pick(g, reasons...)))
			return fmt.Sprintf("%s.reason %q", where, *v.Reason)
		})
	}
	reason("reason: unsupported", reject, "", "forbidden", "NotFound", "Unauthorized", "Conflict")
	reason("reason: Forbidden, Invalid or RequestEntityTooLarge", accept, "Forbidden", "Invalid", "RequestEntityTooLarge")

	key := func(rule string, want verdict, keys ...string) {
		m.add(rule, want, func(g *gen, p *vap) string {
			a, where := g.auditAnnotation(p)
			a.Key = pick(g, keys...)
			return fmt.Sprintf("%s.key %q", where, shorten(a.Key))
		})
	}
	key("auditAnnotation key: not a qualified name with the policy name", reject, "", "a b", "-x", "x-", "a/b", strings.Repeat("k", 64), "ü")
	key("auditAnnotation key: valid", accept, "k", "A_b.c-D", strings.Repeat("k", 63), "0")
	m.add("auditAnnotation key: duplicate", reject, func(g *gen, p *vap) string {
		p.Spec.AuditAnnotations = append(p.Spec.AuditAnnotations, v1.AuditAnnotation{Key: "same", ValueExpression: "'a'"}, v1.AuditAnnotation{Key: "same", ValueExpression: "'b'"})
		return "two audit annotations with key same"
	})
	m.some(4, "auditAnnotation key: with a policy name of 253 characters", accept, func(g *gen, p *vap) string {
		p.Name = g.policyNameOfLength("vap", 253)
		a, where := g.auditAnnotation(p)
		a.Key = "k"
		return fmt.Sprintf("name of 253 characters, %s.key k", where)
	})
	m.some(3, "auditAnnotation key: no name (a generated one is used)", accept, func(g *gen, p *vap) string {
		p.Name, p.GenerateName = "", fmt.Sprintf("vap%04d-", g.id)
		g.auditAnnotation(p)
		return "generateName " + p.GenerateName
	})
	m.alone(2, "auditAnnotation key: no name at all", reject, func(g *gen, p *vap) string {
		p.Name = ""
		g.auditAnnotation(p)
		return "no name, no generateName"
	})
	value := func(rule string, want verdict, exprs ...string) {
		m.add(rule, want, func(g *gen, p *vap) string {
			a, where := g.auditAnnotation(p)
			a.ValueExpression = pick(g, exprs...)
			return fmt.Sprintf("%s.valueExpression %q", where, shorten(a.ValueExpression))
		})
	}
	value("auditAnnotation valueExpression: valid", accept, validAuditValues...)
	value("auditAnnotation valueExpression: blank", reject, "", " ", "\n")
	value("auditAnnotation valueExpression: not a string or null", reject, "1", "true", "object.metadata.name", "['a']", "{'a': 'b'}")
	value("auditAnnotation valueExpression: syntax error or undeclared", reject, "'a' +", "foo", "params.x")
	value("auditAnnotation valueExpression: the authorizer", accept, "authorizer.requestResource.check('get').reason()")
	value("auditAnnotation valueExpression: 5120 bytes once trimmed", accept, "  '"+strings.Repeat("v", 5118)+"'  ", "'"+strings.Repeat("é", 2559)+"'")
	value("auditAnnotation valueExpression: 5121 bytes once trimmed", reject, "'"+strings.Repeat("v", 5119)+"'", "'"+strings.Repeat("é", 2559)+"v'")
	value("auditAnnotation valueExpression: over 5120 bytes and not compiling", reject, "'"+strings.Repeat("v", 6000))
	annotations := func(n int) func(g *gen, p *vap) string {
		return func(g *gen, p *vap) string {
			p.Spec.AuditAnnotations = nil
			for k := range n {
				p.Spec.AuditAnnotations = append(p.Spec.AuditAnnotations, v1.AuditAnnotation{Key: fmt.Sprintf("k%d", k), ValueExpression: pick(g, validAuditValues...)})
			}
			return fmt.Sprintf("%d audit annotations", n)
		}
	}
	m.some(3, "auditAnnotations: 20 (the maximum)", accept, annotations(20))
	m.some(3, "auditAnnotations: 21", reject, annotations(21))
	m.some(3, "auditAnnotations: 21, one of them a duplicate and one not compiling", reject, func(g *gen, p *vap) string {
		annotations(21)(g, p)
		p.Spec.AuditAnnotations[20].Key = "k3"
		p.Spec.AuditAnnotations[7].ValueExpression = "1"
		return "21 audit annotations, [20] repeats [3]'s key, [7] not a string"
	})
	m.some(3, "status: set by the client (cleared by the server)", accept, func(g *gen, p *vap) string {
		p.Status = v1.ValidatingAdmissionPolicyStatus{ObservedGeneration: -5, TypeChecking: &v1.TypeChecking{
			ExpressionWarnings: []v1.ExpressionWarning{{FieldRef: "", Warning: ""}}}}
		return "status with an invalid expression warning"
	})
}

// validatingBindingGenerator generates the ValidatingAdmissionPolicyBinding cases.
func validatingBindingGenerator() policyGenerator[vapb] {
	m := &mutatorList[vapb]{}
	metadataMutators(m, "vapb", func(b *vapb) *metav1.ObjectMeta { return &b.ObjectMeta })
	bindingMutators(m, bindingParts[vapb]{
		policyName:     func(b *vapb) *string { return &b.Spec.PolicyName },
		paramRef:       func(b *vapb) **v1.ParamRef { return &b.Spec.ParamRef },
		matchResources: func(b *vapb) **v1.MatchResources { return &b.Spec.MatchResources },
	})
	actions := func(rule string, want verdict, sets ...[]v1.ValidationAction) {
		m.add(rule, want, func(g *gen, b *vapb) string {
			b.Spec.ValidationActions = slices.Clone(pick(g, sets...))
			return fmt.Sprintf("spec.validationActions %q", b.Spec.ValidationActions)
		})
	}
	type va = v1.ValidationAction
	actions("validationActions: empty", reject, nil, []va{})
	actions("validationActions: valid", accept, validActionSets...)
	actions("validationActions: unsupported", reject, []va{"deny"}, []va{"Deny", "Block"}, []va{""}, []va{"Audit", "Log", "Warn"})
	actions("validationActions: duplicate", reject, []va{"Deny", "Deny"}, []va{"Audit", "Warn", "Audit"}, []va{"x", "x"})
	actions("validationActions: Deny and Warn", reject, []va{"Deny", "Warn"}, []va{"Warn", "Audit", "Deny"}, []va{"Deny", "Warn", "Deny", "Warn"})
	m.add("policyName and validationActions: both missing", reject, func(g *gen, b *vapb) string {
		b.Spec.PolicyName, b.Spec.ValidationActions = "", nil
		return "no policyName, no validationActions"
	})
	return policyGenerator[vapb]{seed: seed + 2, valid: (*gen).validValidatingBinding, mutators: m.ms, valids: 300, combined: 150}
}
