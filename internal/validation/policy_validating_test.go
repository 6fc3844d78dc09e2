package validation

import (
	"fmt"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

type (
	vap  = admissionregistrationv1.ValidatingAdmissionPolicy
	vapb = admissionregistrationv1.ValidatingAdmissionPolicyBinding
)

// validPolicy returns a defaulted ValidatingAdmissionPolicy the server accepts.
func validPolicy() *vap {
	return DefaultValidatingPolicy(&vap{
		ObjectMeta: metav1.ObjectMeta{Name: "policy.example.com"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: ops("CREATE", "UPDATE"),
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
				},
			}}},
			Validations: []admissionregistrationv1.Validation{{Expression: "object.spec.replicas <= 5"}},
		},
	})
}

// validBinding returns a defaulted ValidatingAdmissionPolicyBinding the server accepts.
func validBinding() *vapb {
	return DefaultValidatingPolicyBinding(&vapb{
		ObjectMeta: metav1.ObjectMeta{Name: "binding.example.com"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        "policy.example.com",
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	})
}

func withParams(p *vap) {
	p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
}

func validation0(p *vap) *admissionregistrationv1.Validation { return &p.Spec.Validations[0] }

func namedRule0(mr *admissionregistrationv1.MatchResources) *admissionregistrationv1.NamedRuleWithOperations {
	return &mr.ResourceRules[0]
}

type policyCase struct {
	name   string
	mutate func(p *vap)
	want   []cause
}

func runPolicyCases(t *testing.T, cases []policyCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := validPolicy()
			tc.mutate(p)
			checkCauses(t, ValidateValidatingPolicy(p), tc.want)
		})
	}
}

type bindingCase struct {
	name   string
	mutate func(b *vapb)
	want   []cause
}

func runBindingCases(t *testing.T, cases []bindingCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := validBinding()
			tc.mutate(b)
			checkCauses(t, ValidateValidatingPolicyBinding(DefaultValidatingPolicyBinding(b)), tc.want)
		})
	}
}

func TestValidPolicyAndBinding(t *testing.T) {
	checkCauses(t, ValidateValidatingPolicy(validPolicy()), nil)
	checkCauses(t, ValidateValidatingPolicyBinding(validBinding()), nil)
	if ValidateValidatingPolicy(nil) != nil || ValidateValidatingPolicyBinding(nil) != nil {
		t.Error("nil object")
	}
}

// ValidateObjectMeta and the registry strategy's ValidateStaticSuffix
func TestPolicyMetadata(t *testing.T) {
	const suffixMsg = `names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API`
	runPolicyCases(t, []policyCase{
		{"name empty", func(p *vap) { p.Name = "" }, []cause{req("metadata.name", "name or generateName is required")}},
		{"name not a subdomain", func(p *vap) { p.Name = "Policy" }, []cause{inv("metadata.name", subdomainMsg)}},
		{"generateName", func(p *vap) { p.Name, p.GenerateName = "", "policy-" }, nil},
		{"reserved suffix, after the spec's errors", func(p *vap) {
			p.Name = "x.static.k8s.io"
			p.Spec.FailurePolicy = nil
		}, []cause{req("spec.failurePolicy"), inv("metadata.name", suffixMsg)}},
		{"reserved suffix of a generateName is not the name's", func(p *vap) { p.Name, p.GenerateName = "", "x.static.k8s.io" }, nil},
		{"labels", func(p *vap) { p.Labels = map[string]string{"a": "-x"} }, []cause{inv("metadata.labels", labelValueMsg)}},
		{"status is cleared, not validated", func(p *vap) {
			p.Status.TypeChecking = &admissionregistrationv1.TypeChecking{ExpressionWarnings: []admissionregistrationv1.ExpressionWarning{{}}}
		}, nil},
	})
	runBindingCases(t, []bindingCase{
		{"binding name not a subdomain", func(b *vapb) { b.Name = "a_b" }, []cause{inv("metadata.name", subdomainMsg)}},
		{"binding reserved suffix", func(b *vapb) { b.Name = "b.static.k8s.io" }, []cause{inv("metadata.name", suffixMsg)}},
	})
}

// validateValidatingAdmissionPolicySpec: failurePolicy
func TestPolicyFailurePolicy(t *testing.T) {
	runPolicyCases(t, []policyCase{
		{"null (not defaulted)", func(p *vap) { p.Spec.FailurePolicy = nil }, []cause{req("spec.failurePolicy", "")}},
		{"unsupported", func(p *vap) { p.Spec.FailurePolicy = ptr(admissionregistrationv1.FailurePolicyType("fail")) },
			[]cause{unsup("spec.failurePolicy", `supported values: "Fail", "Ignore"`)}},
		{"Ignore", func(p *vap) { p.Spec.FailurePolicy = ptr(admissionregistrationv1.Ignore) }, nil},
	})
}

// validateParamKind
func TestPolicyParamKind(t *testing.T) {
	pk := func(apiVersion, kind string) func(p *vap) {
		return func(p *vap) {
			p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: apiVersion, Kind: kind}
		}
	}
	runPolicyCases(t, []policyCase{
		{"core group", pk("v1", "ConfigMap"), nil},
		{"named group, mixed-case kind", pk("example.com/v1beta1", "PolicyParams"), nil},
		{"apiVersion empty", pk("", "K"), []cause{req("spec.paramKind.apiVersion", "")}},
		{"two slashes", pk("a/b/c", "K"), []cause{inv("spec.paramKind.apiVersion", "unexpected GroupVersion string: a/b/c")}},
		{"group not a subdomain", pk("Example.com/v1", "K"), []cause{inv("spec.paramKind.apiVersion", subdomainMsg)}},
		{"version missing", pk("apps/", "K"), []cause{inv("spec.paramKind.apiVersion", "version must be specified")}},
		{"slash alone", pk("/", "K"), []cause{inv("spec.paramKind.apiVersion", "version must be specified")}},
		{"version not a DNS-1035 label", pk("apps/V1", "K"), []cause{inv("spec.paramKind.apiVersion", dns1035Msg)}},
		{"group and version bad", pk("A/1", "K"), []cause{inv("spec.paramKind.apiVersion"), inv("spec.paramKind.apiVersion")}},
		{"kind empty", pk("v1", ""), []cause{req("spec.paramKind.kind", "")}},
		{"kind bad", pk("v1", "Config_Map"), []cause{inv("spec.paramKind.kind", "may have mixed case, but should otherwise match: "+dns1035Msg)}},
		{"both empty", pk("", ""), []cause{req("spec.paramKind.apiVersion"), req("spec.paramKind.kind")}},
	})
}

// validateMatchResources, validateNamedRuleWithOperations
func TestPolicyMatchConstraints(t *testing.T) {
	mc := func(p *vap) *admissionregistrationv1.MatchResources { return p.Spec.MatchConstraints }
	runPolicyCases(t, []policyCase{
		{"null", func(p *vap) { p.Spec.MatchConstraints = nil }, []cause{req("spec.matchConstraints", "")}},
		{"no resource rules", func(p *vap) { mc(p).ResourceRules = nil }, []cause{req("spec.matchConstraints.resourceRules", "")}},
		{"matchPolicy null (not defaulted)", func(p *vap) { mc(p).MatchPolicy = nil }, []cause{req("spec.matchConstraints.matchPolicy")}},
		{"matchPolicy unsupported", func(p *vap) { mc(p).MatchPolicy = ptr(admissionregistrationv1.MatchPolicyType("exact")) },
			[]cause{unsup("spec.matchConstraints.matchPolicy", `supported values: "Equivalent", "Exact"`)}},
		{"selectors null (not defaulted)", func(p *vap) { mc(p).NamespaceSelector, mc(p).ObjectSelector = nil, nil },
			[]cause{req("spec.matchConstraints.namespaceSelector"), req("spec.matchConstraints.objectSelector")}},
		{"selector label values checked strictly", func(p *vap) {
			mc(p).ObjectSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "In", Values: []string{"-x"}}}}
		}, []cause{inv("spec.matchConstraints.objectSelector.matchExpressions[0].values[0]")}},
		{"namespace selector bad key", func(p *vap) {
			mc(p).NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"a/b/c": "x"}}
		}, []cause{inv("spec.matchConstraints.namespaceSelector.matchLabels", multiSlashMsg)}},
		{"rule fields inline at the rule's path", func(p *vap) { namedRule0(mc(p)).Operations = nil },
			[]cause{req("spec.matchConstraints.resourceRules[0].operations")}},
		{"rule resources", func(p *vap) { namedRule0(mc(p)).Resources = []string{"*/*", "pods"} },
			[]cause{inv("spec.matchConstraints.resourceRules[0].resources", "if '*/*' is present, must not specify other resources")}},
		{"rule scope", func(p *vap) { namedRule0(mc(p)).Scope = ptr(admissionregistrationv1.ScopeType("All")) },
			[]cause{unsup("spec.matchConstraints.resourceRules[0].scope")}},
		{"resourceNames not path segment names", func(p *vap) { namedRule0(mc(p)).ResourceNames = []string{"a/b", "..", "ok", "%"} },
			[]cause{
				inv("spec.matchConstraints.resourceRules[0].resourceNames[0]", "may not contain '/'"),
				inv("spec.matchConstraints.resourceRules[0].resourceNames[1]", "may not be '..'"),
				inv("spec.matchConstraints.resourceRules[0].resourceNames[3]", "may not contain '%'"),
			}},
		{"resourceNames duplicate, after its own errors", func(p *vap) { namedRule0(mc(p)).ResourceNames = []string{"a/b", "a/b"} },
			[]cause{
				inv("spec.matchConstraints.resourceRules[0].resourceNames[0]"),
				inv("spec.matchConstraints.resourceRules[0].resourceNames[1]"),
				dup("spec.matchConstraints.resourceRules[0].resourceNames[1]"),
			}},
		{"resourceNames otherwise free", func(p *vap) { namedRule0(mc(p)).ResourceNames = []string{"", "A B", "..."} }, nil},
		{"excludeResourceRules", func(p *vap) {
			mc(p).ExcludeResourceRules = []admissionregistrationv1.NamedRuleWithOperations{{ResourceNames: []string{"x", "x"}}}
		}, []cause{
			dup("spec.matchConstraints.excludeResourceRules[0].resourceNames[1]"),
			req("spec.matchConstraints.excludeResourceRules[0].operations"),
			req("spec.matchConstraints.excludeResourceRules[0].apiGroups"),
			req("spec.matchConstraints.excludeResourceRules[0].apiVersions"),
			req("spec.matchConstraints.excludeResourceRules[0].resources"),
		}},
		{"DELETE is fine for a validating policy", func(p *vap) { namedRule0(mc(p)).Operations = ops("DELETE") }, nil},
	})
}

// validateMatchConditions with params declared when paramKind is set
func TestPolicyMatchConditions(t *testing.T) {
	cond := func(name, expr string) func(p *vap) {
		return func(p *vap) {
			p.Spec.MatchConditions = append(p.Spec.MatchConditions, admissionregistrationv1.MatchCondition{Name: name, Expression: expr})
		}
	}
	both := func(fs ...func(p *vap)) func(p *vap) {
		return func(p *vap) {
			for _, f := range fs {
				f(p)
			}
		}
	}
	runPolicyCases(t, []policyCase{
		{"valid", cond("a", "request.namespace != 'kube-system'"), nil},
		{"not bool", cond("a", "1"), []cause{inv("spec.matchConditions[0].expression", "must evaluate to bool but got int")}},
		{"params without paramKind", cond("a", "params != null"), []cause{inv("spec.matchConditions[0].expression")}},
		{"params with paramKind", both(withParams, cond("a", "params != null")), nil},
		{"no variables in match conditions", both(func(p *vap) {
			p.Spec.Variables = []admissionregistrationv1.Variable{{Name: "x", Expression: "true"}}
		}, cond("a", "variables.x")), []cause{inv("spec.matchConditions[0].expression")}},
		{"blank", cond("a", " "), []cause{req("spec.matchConditions[0].expression", "")}},
		{"bad name", cond("a b", "true"), []cause{inv("spec.matchConditions[0].name")}},
		{"duplicate name", both(cond("a", "true"), cond("a", "false")), []cause{dup("spec.matchConditions[1].name")}},
		{"65", func(p *vap) { p.Spec.MatchConditions = conditions(65) }, []cause{tooMany("spec.matchConditions", "must have at most 64 items")}},
		{"64", func(p *vap) { p.Spec.MatchConditions = conditions(64) }, nil},
	})
}

// validateVariable, with the composited compiler
func TestPolicyVariables(t *testing.T) {
	vars := func(vs ...string) func(p *vap) {
		return func(p *vap) {
			for i := 0; i < len(vs); i += 2 {
				p.Spec.Variables = append(p.Spec.Variables, admissionregistrationv1.Variable{Name: vs[i], Expression: vs[i+1]})
			}
		}
	}
	validate := func(expr string) func(p *vap) { return func(p *vap) { validation0(p).Expression = expr } }
	both := func(fs ...func(p *vap)) func(p *vap) {
		return func(p *vap) {
			for _, f := range fs {
				f(p)
			}
		}
	}
	runPolicyCases(t, []policyCase{
		{"used by a validation", both(vars("n", "1"), validate("variables.n == 1")), nil},
		{"typed", both(vars("s", "'x'"), validate("variables.s == 1")),
			[]cause{inv("spec.validations[0].expression")}},
		{"undefined", both(vars("n", "1"), validate("variables.m == 1")),
			[]cause{inv("spec.validations[0].expression")}},
		{"no variables at all: undeclared", validate("variables.m == 1"), []cause{inv("spec.validations[0].expression")}},
		{"earlier ones only", vars("a", "variables.b", "b", "1"), []cause{inv("spec.variables[0].expression")}},
		{"itself", vars("a", "variables.a"), []cause{inv("spec.variables[0].expression")}},
		{"chain", both(vars("a", "[1, 2]", "b", "variables.a.size()", "c", "variables.b + 1"), validate("variables.c == 3")), nil},
		{"a broken one is dyn to the rest", both(vars("a", "1 +", "b", "variables.a.x.y"), validate("variables.b == 1")),
			[]cause{inv("spec.variables[0].expression")}},
		{"the later of two with one name wins", both(vars("d", "1", "d", "'x'"), validate("variables.d == 'x'")), nil},
		{"any type", vars("a", "null", "b", "request", "c", "optional.none()", "d", "type(1)"), nil},
		{"params without paramKind", vars("p", "params"), []cause{inv("spec.variables[0].expression")}},
		{"params with paramKind", both(withParams, vars("p", "params")), nil},
		{"authorizer", vars("a", "authorizer.requestResource.check('get')"), nil},
		{"name empty", vars("", "1"), []cause{req("spec.variables[0].name", "name is not specified")}},
		{"name blank", vars("  ", "1"), []cause{req("spec.variables[0].name", "name is not specified")}},
		{"name not an identifier", vars("a-b", "1"), []cause{inv("spec.variables[0].name", "must be a valid CEL identifier")}},
		{"name reserved", vars("while", "1"), []cause{inv("spec.variables[0].name", "must be a valid CEL identifier")}},
		{"name a declared variable is fine", vars("object", "1"), nil},
		{"expression blank", vars("a", " "), []cause{req("spec.variables[0].expression", "expression is not specified")}},
		{"name and expression", vars("1a", ""), []cause{inv("spec.variables[0].name"), req("spec.variables[0].expression")}},
		{"compiled as written", vars("a", "\n\n  1 +"), []cause{inv("spec.variables[0].expression")}},
	})
	p := validPolicy()
	vars("a", "\n 1 +")(p)
	errs := ValidateValidatingPolicy(p)
	if len(errs) != 1 || errs[0].BadValue != "\n 1 +" || !strings.Contains(errs[0].Detail, "<input>:2:5:") {
		t.Errorf("the error quotes the expression as written with its own columns: %v", errs)
	}
}

// validateValidation
func TestPolicyValidations(t *testing.T) {
	v := func(f func(v *admissionregistrationv1.Validation)) func(p *vap) {
		return func(p *vap) { f(validation0(p)) }
	}
	runPolicyCases(t, []policyCase{
		{"none, audit annotations only", func(p *vap) {
			p.Spec.Validations = nil
			p.Spec.AuditAnnotations = []admissionregistrationv1.AuditAnnotation{{Key: "k", ValueExpression: "'v'"}}
		}, nil},
		{"neither", func(p *vap) { p.Spec.Validations = nil }, []cause{
			req("spec.validations", "validations or auditAnnotations must contain at least one item"),
			req("spec.auditAnnotations", "validations or auditAnnotations must contain at least one item"),
		}},
		{"expression blank", v(func(v *admissionregistrationv1.Validation) { v.Expression = " \n" }),
			[]cause{req("spec.validations[0].expression", "expression is not specified")}},
		{"expression not bool", v(func(v *admissionregistrationv1.Validation) { v.Expression = "object.spec" }),
			[]cause{inv("spec.validations[0].expression", "must evaluate to bool but got dyn")}},
		{"expression syntax", v(func(v *admissionregistrationv1.Validation) { v.Expression = "a b" }),
			[]cause{inv("spec.validations[0].expression")}},
		{"expression includes (1.37 only)", v(func(v *admissionregistrationv1.Validation) { v.Expression = "[1].includes(1)" }),
			[]cause{inv("spec.validations[0].expression")}},
		{"expression cost is not checked", v(func(v *admissionregistrationv1.Validation) {
			v.Expression = "lists.range(1000000).all(i, lists.range(1000000).all(j, i != j || i == j))"
		}), nil},
		{"messageExpression", v(func(v *admissionregistrationv1.Validation) {
			v.MessageExpression = "'replicas: ' + string(object.spec.replicas)"
		}), nil},
		{"messageExpression blank", v(func(v *admissionregistrationv1.Validation) { v.MessageExpression = "  " }),
			[]cause{inv("spec.validations[0].messageExpression", "must be non-empty if specified")}},
		{"messageExpression not a string", v(func(v *admissionregistrationv1.Validation) { v.MessageExpression = "object.metadata.name" }),
			[]cause{inv("spec.validations[0].messageExpression", "must evaluate to string but got dyn")}},
		{"messageExpression without the authorizer", v(func(v *admissionregistrationv1.Validation) {
			v.MessageExpression = "authorizer.requestResource.check('get').reason()"
		}), []cause{inv("spec.validations[0].messageExpression")}},
		{"message blank", v(func(v *admissionregistrationv1.Validation) { v.Message = " " }),
			[]cause{inv("spec.validations[0].message", "must be non-empty if specified")}},
		{"message line break", v(func(v *admissionregistrationv1.Validation) { v.Message = "a\nb" }),
			[]cause{inv("spec.validations[0].message", "must not contain line breaks")}},
		{"message line breaks trimmed", v(func(v *admissionregistrationv1.Validation) { v.Message = "\r\nok\n" }), nil},
		{"reason", v(func(v *admissionregistrationv1.Validation) { v.Reason = ptr(metav1.StatusReasonRequestEntityTooLarge) }), nil},
		{"reason unsupported", v(func(v *admissionregistrationv1.Validation) { v.Reason = ptr(metav1.StatusReasonNotFound) }),
			[]cause{unsup("spec.validations[0].reason", `supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"`)}},
		{"every field wrong", v(func(v *admissionregistrationv1.Validation) {
			v.Expression, v.MessageExpression, v.Message, v.Reason = "", "\t", "\n", ptr(metav1.StatusReason(""))
		}), []cause{
			req("spec.validations[0].expression"), inv("spec.validations[0].messageExpression"),
			inv("spec.validations[0].message"), unsup("spec.validations[0].reason"),
		}},
	})
}

// validateAuditAnnotation and the limits of validateValidatingAdmissionPolicySpec
func TestPolicyAuditAnnotations(t *testing.T) {
	ann := func(kv ...string) func(p *vap) {
		return func(p *vap) {
			for i := 0; i < len(kv); i += 2 {
				p.Spec.AuditAnnotations = append(p.Spec.AuditAnnotations, admissionregistrationv1.AuditAnnotation{Key: kv[i], ValueExpression: kv[i+1]})
			}
		}
	}
	many := func(n int) func(p *vap) {
		return func(p *vap) {
			for i := range n {
				ann(fmt.Sprintf("k%d", i), "'v'")(p)
			}
		}
	}
	runPolicyCases(t, []policyCase{
		{"valid", ann("k", "request.userInfo.username", "n", "null"), nil},
		{"key checked with the policy name", ann("a b", "'v'"), []cause{inv("spec.auditAnnotations[0].key", nameRegexMsg)}},
		{"key with a slash", ann("a/b", "'v'"), []cause{inv("spec.auditAnnotations[0].key", multiSlashMsg)}},
		{"key empty", ann("", "'v'"), []cause{inv("spec.auditAnnotations[0].key"), inv("spec.auditAnnotations[0].key")}},
		{"key too long", ann(strings.Repeat("k", 64), "'v'"), []cause{inv("spec.auditAnnotations[0].key", "name part must be no more than 63 bytes")}},
		{"no name", func(p *vap) { p.Name = ""; ann("k", "'v'")(p) },
			[]cause{req("metadata.name"), inv("spec.auditAnnotations[0].key", "requires metadata.name be non-empty")}},
		{"generated name", func(p *vap) { p.Name, p.GenerateName = "", "p-"; ann("k", "'v'")(p) }, nil},
		{"key duplicate", ann("k", "'a'", "k", "'b'"), []cause{dup("spec.auditAnnotations[1].key")}},
		{"value blank", ann("k", " "), []cause{req("spec.auditAnnotations[0].valueExpression", "valueExpression is not specified")}},
		{"value not a string", ann("k", "1"),
			[]cause{inv("spec.auditAnnotations[0].valueExpression", "must evaluate to one of [string null_type] but got int")}},
		{"value 5120 bytes", ann("k", " '"+strings.Repeat("v", 5118)+"' "), nil},
		{"value 5121 bytes", ann("k", "'"+strings.Repeat("v", 5119)+"'"),
			[]cause{req("spec.auditAnnotations[0].valueExpression", "must not exceed 5120 bytes in length")}},
		{"20", many(20), nil},
		{"21", many(21), []cause{inv("spec.auditAnnotations", "must not have more than 20 auditAnnotations")}},
	})
	p := validPolicy()
	ann("k", "  1  ")(p)
	if errs := ValidateValidatingPolicy(p); len(errs) != 1 || errs[0].BadValue != "  1  " {
		t.Errorf("compiled trimmed, quoted as written: %v", errs)
	}
	p = validPolicy()
	many(21)(p)
	want := `Invalid value: [{"Key":"k0","ValueExpression":"'v'"},`
	if errs := ValidateValidatingPolicy(p); len(errs) != 1 || !strings.HasPrefix(Message(errs[0]), want) {
		t.Errorf("the server quotes its internal form: %v", errs)
	}
}

// validateValidatingAdmissionPolicyBindingSpec, validateParamRef, validateValidationActions and
// the declarative Required checks
func TestBinding(t *testing.T) {
	ref := func(f func(r *admissionregistrationv1.ParamRef)) func(b *vapb) {
		return func(b *vapb) {
			b.Spec.ParamRef = &admissionregistrationv1.ParamRef{Name: "params", ParameterNotFoundAction: ptr(admissionregistrationv1.DenyAction)}
			f(b.Spec.ParamRef)
		}
	}
	actions := func(as ...string) func(b *vapb) {
		return func(b *vapb) {
			b.Spec.ValidationActions = nil
			for _, a := range as {
				b.Spec.ValidationActions = append(b.Spec.ValidationActions, admissionregistrationv1.ValidationAction(a))
			}
		}
	}
	const mutex = "name and selector are mutually exclusive"
	runBindingCases(t, []bindingCase{
		{"policyName empty: required, last", func(b *vapb) {
			b.Spec.PolicyName = ""
			b.Name = "x.static.k8s.io"
		}, []cause{inv("metadata.name"), req("spec.policyName", "")}},
		{"policyName not a subdomain", func(b *vapb) { b.Spec.PolicyName = "Policy" }, []cause{inv("spec.policyName", subdomainMsg)}},
		{"paramRef by name", ref(func(r *admissionregistrationv1.ParamRef) {}), nil},
		{"paramRef by selector", ref(func(r *admissionregistrationv1.ParamRef) { r.Name, r.Selector = "", &metav1.LabelSelector{} }), nil},
		{"paramRef namespace unchecked", ref(func(r *admissionregistrationv1.ParamRef) { r.Namespace = "Not A Namespace" }), nil},
		{"paramRef name bad", ref(func(r *admissionregistrationv1.ParamRef) { r.Name = ".." }),
			[]cause{inv("spec.paramRef.name", "may not be '..'")}},
		{"paramRef name and selector", ref(func(r *admissionregistrationv1.ParamRef) { r.Selector = &metav1.LabelSelector{} }),
			[]cause{forb("spec.paramRef.name", mutex), forb("spec.paramRef.selector", mutex)}},
		{"paramRef neither", ref(func(r *admissionregistrationv1.ParamRef) { r.Name = "" }),
			[]cause{req("spec.paramRef", "one of name or selector must be specified")}},
		{"paramRef selector bad", ref(func(r *admissionregistrationv1.ParamRef) {
			r.Name, r.Selector = "", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: "In"}}}
		}), []cause{req("spec.paramRef.selector.matchExpressions[0].values")}},
		{"paramRef action missing", ref(func(r *admissionregistrationv1.ParamRef) { r.ParameterNotFoundAction = nil }),
			[]cause{req("spec.paramRef.parameterNotFoundAction", "")}},
		{"paramRef action empty", ref(func(r *admissionregistrationv1.ParamRef) {
			r.ParameterNotFoundAction = ptr(admissionregistrationv1.ParameterNotFoundActionType(""))
		}),
			[]cause{req("spec.paramRef.parameterNotFoundAction", "")}},
		{"paramRef action unsupported", ref(func(r *admissionregistrationv1.ParamRef) {
			r.ParameterNotFoundAction = ptr(admissionregistrationv1.ParameterNotFoundActionType("deny"))
		}),
			[]cause{unsup("spec.paramRef.parameterNotFoundAction", `supported values: "Deny", "Allow"`)}},
		{"matchResources without rules", func(b *vapb) { b.Spec.MatchResources = &admissionregistrationv1.MatchResources{} },
			nil},
		{"matchResources rule", func(b *vapb) {
			b.Spec.MatchResources = &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{}}}
		}, []cause{
			req("spec.matchResources.resourceRules[0].operations"), req("spec.matchResources.resourceRules[0].apiGroups"),
			req("spec.matchResources.resourceRules[0].apiVersions"), req("spec.matchResources.resourceRules[0].resources"),
		}},
		{"actions empty: required, last", func(b *vapb) {
			actions()(b)
			b.Spec.PolicyName = ""
		}, []cause{req("spec.policyName", ""), req("spec.validationActions", "")}},
		{"actions Audit and Warn", actions("Audit", "Warn"), nil},
		{"actions unsupported", actions("deny"), []cause{unsup("spec.validationActions[0]", `supported values: "Audit", "Deny", "Warn"`)}},
		{"actions duplicate", actions("Deny", "Deny"), []cause{dup("spec.validationActions[1]")}},
		{"actions Deny and Warn", actions("Warn", "Deny"), []cause{inv("spec.validationActions",
			"must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)")}},
		{"actions unsupported twice", actions("x", "x"), []cause{unsup("spec.validationActions[0]"), unsup("spec.validationActions[1]"), dup("spec.validationActions[1]")}},
	})
}

func TestPolicyDefaults(t *testing.T) {
	p := DefaultValidatingPolicy(&vap{Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
		MatchConstraints: &admissionregistrationv1.MatchResources{
			ResourceRules:        []admissionregistrationv1.NamedRuleWithOperations{{}},
			ExcludeResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{Rule: admissionregistrationv1.Rule{Scope: ptr(admissionregistrationv1.ClusterScope)}}}},
		},
	}})
	s := p.Spec
	if *s.FailurePolicy != admissionregistrationv1.Fail || *s.MatchConstraints.MatchPolicy != admissionregistrationv1.Equivalent ||
		s.MatchConstraints.NamespaceSelector == nil || s.MatchConstraints.ObjectSelector == nil ||
		*s.MatchConstraints.ResourceRules[0].Scope != admissionregistrationv1.AllScopes ||
		*s.MatchConstraints.ExcludeResourceRules[0].Scope != admissionregistrationv1.ClusterScope {
		t.Errorf("defaults: %+v", s)
	}
	if p := DefaultValidatingPolicy(&vap{}); p.Spec.MatchConstraints != nil || p.Spec.FailurePolicy == nil {
		t.Errorf("no matchConstraints made: %+v", p.Spec)
	}
	in := &vap{}
	DefaultValidatingPolicy(in)
	if in.Spec.FailurePolicy != nil {
		t.Error("the argument was changed")
	}
	b := DefaultValidatingPolicyBinding(&vapb{Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
		MatchResources: &admissionregistrationv1.MatchResources{},
		ParamRef:       &admissionregistrationv1.ParamRef{Name: "x"},
	}})
	if *b.Spec.MatchResources.MatchPolicy != admissionregistrationv1.Equivalent || b.Spec.ParamRef.ParameterNotFoundAction != nil || b.Spec.ValidationActions != nil {
		t.Errorf("binding defaults: %+v", b.Spec)
	}
	if DefaultValidatingPolicyBinding(&vapb{}).Spec.MatchResources != nil || DefaultValidatingPolicy(nil) != nil || DefaultValidatingPolicyBinding(nil) != nil {
		t.Error("nothing to default")
	}
}

func TestPolicyCreateOnly(t *testing.T) {
	cases := []struct {
		name string
		edit func(p *vap)
		want bool
	}{
		{"reserved suffix", func(p *vap) { p.Name = "p.static.k8s.io" }, true},
		{"name", func(p *vap) { p.Name = "P" }, false},
		{"match condition name", func(p *vap) {
			p.Spec.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "a b", Expression: "true"}}
		}, true},
		{"match condition expression", func(p *vap) {
			p.Spec.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "a", Expression: "1"}}
		}, true},
		{"validation includes (servers from 1.38 accept it)", func(p *vap) { validation0(p).Expression = "[1].includes(1)" }, false},
		{"validation not bool", func(p *vap) { validation0(p).Expression = "1" }, false},
		{"validation syntax", func(p *vap) { validation0(p).Expression = "a b" }, false},
		{"validation params undeclared", func(p *vap) { validation0(p).Expression = "params.x == 1" }, false},
		{"messageExpression includes", func(p *vap) { validation0(p).MessageExpression = "string([1].includes(1))" }, false},
		{"variable includes", func(p *vap) {
			p.Spec.Variables = []admissionregistrationv1.Variable{{Name: "v", Expression: "[1].includes(1)"}}
		}, false},
		{"audit value includes", func(p *vap) {
			p.Spec.AuditAnnotations = []admissionregistrationv1.AuditAnnotation{{Key: "k", ValueExpression: " string([1].includes(1)) "}}
		}, false},
		{"selector value", func(p *vap) {
			p.Spec.MatchConstraints.ObjectSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: "In", Values: []string{"-x"}}}}
		}, false},
		{"failurePolicy", func(p *vap) { p.Spec.FailurePolicy = ptr(admissionregistrationv1.FailurePolicyType("x")) }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := validPolicy()
			c.edit(p)
			errs := ValidateValidatingPolicy(p)
			if len(errs) != 1 {
				t.Fatalf("want one error, got %s", dump(errs))
			}
			if got := CreateOnly(errs[0]); got != c.want {
				t.Errorf("CreateOnly(%v) = %v, want %v", errs[0], got, c.want)
			}
		})
	}
	b := validBinding()
	b.Name = "b.static.k8s.io"
	b.Spec.ValidationActions = []admissionregistrationv1.ValidationAction{"Deny", "Deny"}
	for _, e := range ValidateValidatingPolicyBinding(b) {
		if want := e.Field == "metadata.name"; CreateOnly(e) != want {
			t.Errorf("CreateOnly(%v) = %v", e, !want)
		}
	}
	if CreateOnly(field.Invalid(field.NewPath("spec", "validations").Index(0).Child("expression"), 1, "x")) {
		t.Error("an error that quotes no expression")
	}
}

func TestPolicyMessages(t *testing.T) {
	p := validPolicy()
	validation0(p).Expression = "1"
	p.Spec.Validations = append(p.Spec.Validations, admissionregistrationv1.Validation{Expression: "true", Reason: ptr(metav1.StatusReason("Gone"))})
	want := []string{
		`Invalid value: "1": must evaluate to bool but got int`,
		`Unsupported value: "Gone": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"`,
	}
	errs := ValidateValidatingPolicy(p)
	if len(errs) != len(want) {
		t.Fatalf("got %s", dump(errs))
	}
	for i, w := range want {
		if got := Message(errs[i]); got != w {
			t.Errorf("Message = %q, want %q", got, w)
		}
	}
	b := validBinding()
	b.Spec.ParamRef = &admissionregistrationv1.ParamRef{Name: "x", ParameterNotFoundAction: ptr(admissionregistrationv1.ParameterNotFoundActionType("Skip"))}
	if errs := ValidateValidatingPolicyBinding(b); len(errs) != 1 || Message(errs[0]) != `Unsupported value: "Skip": supported values: "Deny", "Allow"` {
		t.Errorf("got %s", dump(errs))
	}
}
