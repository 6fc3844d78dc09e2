package parity

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	v1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authentication/user"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage/names"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/admissionregistration"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingadmissionpolicy"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingadmissionpolicybinding"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/resolver"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingadmissionpolicy"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingadmissionpolicybinding"

	ours "github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// The policy kinds, compared with what kube-apiserver runs on a create of each: v1 defaulting,
// conversion, name generation, the registry strategy's PrepareForCreate, and
// rest.ValidateCreate (the strategy's Validate, then the declarative validation of the release,
// with its default feature gates). The user is a superuser (no authorization of paramKind or
// paramRef). Errors are compared in order, with type, path and full message, after the
// server's de-duplication of identical errors.
//
//	cd internal/validation/parity && go test -run 'Policy|Binding' -parity.policies 5000

// noResolver resolves nothing; the strategies of the bindings need one, and a superuser never
// reaches it.
var noResolver = resolver.ResourceResolverFunc(func(gvk schema.GroupVersionKind) (schema.GroupVersionResource, error) {
	return schema.GroupVersionResource{}, fmt.Errorf("no resolver")
})

// serverErrors runs the server's create path on versioned, already defaulted, as internal.
func serverErrors(versioned, internal runtime.Object, resource string, strategy rest.RESTCreateStrategy) field.ErrorList {
	if err := legacyscheme.Scheme.Convert(versioned, internal, nil); err != nil {
		panic(err)
	}
	m, err := meta.Accessor(internal)
	if err != nil {
		panic(err)
	}
	if m.GetName() == "" && m.GetGenerateName() != "" {
		m.SetName(names.SimpleNameGenerator.GenerateName(m.GetGenerateName()))
	}
	m.SetNamespace("")
	ctx := genericapirequest.WithRequestInfo(context.Background(), &genericapirequest.RequestInfo{
		IsResourceRequest: true, Verb: "create", APIGroup: "admissionregistration.k8s.io", APIVersion: "v1", Resource: resource,
	})
	ctx = genericapirequest.WithUser(ctx, &user.DefaultInfo{Name: "admin", Groups: []string{user.SystemPrivilegedGroup}})
	strategy.PrepareForCreate(ctx, internal)
	return rest.ValidateCreate(ctx, internal, strategy)
}

// dedup drops the errors identical to an earlier one, as the server's declarative validation
// step does (field.ErrorList.Filter).
func dedup(errs field.ErrorList) field.ErrorList {
	var out field.ErrorList
	seen := map[string]bool{}
	for _, e := range errs {
		if !seen[e.Error()] {
			seen[e.Error()] = true
			out = append(out, e)
		}
	}
	return out
}

var (
	pkVersionPool   = []string{"v1", "", "a/b/c", "Example.com/v1", "apps/", "/", "apps/V1", "example.com/v1", "/v1"}
	pkKindPool      = []string{"ConfigMap", "", "Config_Map", "K", "1K"}
	resNamePool     = []string{"a", "a/b", "..", "", "a", "%"}
	mcExprPool      = append([]string{"true", "params != null", "variables.a == 1", "Object{} != null"}, exprPool...)
	varNamePool     = []string{"a", "b", "", " ", "a-b", "in", "object", "a"}
	varExprPool     = []string{"1", "'s'", "variables.a", "variables.b + 1", "[1,2]", "variables.a.size()", "", "1 +", "params", "Object{}", "[1].includes(1)"}
	msgExprPool     = []string{"", " ", "'m'", "1", "object.metadata.name", "authorizer.requestResource.check('get').reason()", "string(params)", "'by ' + variables.a", "variables.b"}
	msgPool         = []string{"", " ", "a\nb", "ok", "\nok\n"}
	reasonPool      = []string{"Invalid", "NotFound", "", "Forbidden"}
	auditKeyPool    = []string{"k", "", "a b", "a/b", strings.Repeat("k", 64), "k"}
	auditValuePool  = []string{"'v'", "", " ", "1", "null", "'" + strings.Repeat("v", 5200) + "'", "variables.a", "string(params)"}
	policyNamePool  = []string{"p", "", "P", "a.b", strings.Repeat("p", 254)}
	refNamePool     = []string{"p", "", "..", "a/b"}
	actionPool      = []string{"Deny", "Allow", "deny", ""}
	vaPool          = []string{"Deny", "Warn", "Audit", "x", "Deny"}
	patchTypePool   = []string{"JSONPatch", "ApplyConfiguration", "", "Merge"}
	jsonPatchPool   = []string{"[JSONPatch{op: 'add', path: '/a', value: 1}]", "[]", "", " 1 ", "[JSONPatch{op: 'add', path: '/a', value: variables.a}]", "[JSONPatch{pth: '/a'}]", "params.x"}
	applyConfigPool = []string{"Object{}", "Object.metadata{}", "", "1", "Object{metadata: Object.metadata{labels: {'a': string(variables.a)}}}", "[1].includes(1) ? Object{} : Object{}"}
)

func ptrOf[T ~string](r *rand.Rand, pool ...string) *T {
	s := maybe(r, pick(r, pool...))
	if s == nil {
		return nil
	}
	v := T(*s)
	return &v
}

// atLeastOne is a random count below n, at least one with little noise.
func atLeastOne(r *rand.Rand, n int) int {
	k := r.Intn(n)
	if k == 0 && noise < 1 {
		k = 1
	}
	return k
}

func randomMeta(r *rand.Rand) metav1.ObjectMeta {
	m := metav1.ObjectMeta{Name: pick(r, namePool...), Labels: oneMap(r)}
	if r.Intn(4) == 0 {
		m.GenerateName = pick(r, genNamePool...)
	}
	return m
}

func randomMatchResources(r *rand.Rand) *v1.MatchResources {
	if r.Intn(5) == 0 {
		return nil
	}
	mr := &v1.MatchResources{NamespaceSelector: selector(r), ObjectSelector: selector(r), MatchPolicy: ptrOf[v1.MatchPolicyType](r, mpPool...)}
	rules := func() []v1.NamedRuleWithOperations {
		var out []v1.NamedRuleWithOperations
		for range r.Intn(3) {
			var rule v1.NamedRuleWithOperations
			for _, op := range strs(r, opPool, 3) {
				rule.Operations = append(rule.Operations, v1.OperationType(op))
			}
			rule.APIGroups = strs(r, groupPool, 2)
			rule.APIVersions = strs(r, versionPool, 2)
			rule.Resources = strs(r, resPool, 3)
			rule.Scope = ptrOf[v1.ScopeType](r, scopePool...)
			if r.Intn(3) == 0 {
				rule.ResourceNames = strs(r, resNamePool, 3)
			}
			out = append(out, rule)
		}
		return out
	}
	mr.ResourceRules = rules()
	mr.ExcludeResourceRules = rules()
	return mr
}

func randomPolicyParts(r *rand.Rand) (*v1.ParamKind, *v1.MatchResources, []v1.MatchCondition, []v1.Variable) {
	var pk *v1.ParamKind
	if r.Intn(3) == 0 {
		pk = &v1.ParamKind{APIVersion: pick(r, pkVersionPool...), Kind: pick(r, pkKindPool...)}
	}
	var mcs []v1.MatchCondition
	for range r.Intn(3) {
		mcs = append(mcs, v1.MatchCondition{Name: pick(r, mcNamePool...), Expression: pick(r, mcExprPool...)})
	}
	var vars []v1.Variable
	for range r.Intn(4) {
		vars = append(vars, v1.Variable{Name: pick(r, varNamePool...), Expression: pick(r, varExprPool...)})
	}
	return pk, randomMatchResources(r), mcs, vars
}

func randomValidatingPolicy(r *rand.Rand) *v1.ValidatingAdmissionPolicy {
	p := &v1.ValidatingAdmissionPolicy{ObjectMeta: randomMeta(r)}
	s := &p.Spec
	s.ParamKind, s.MatchConstraints, s.MatchConditions, s.Variables = randomPolicyParts(r)
	s.FailurePolicy = ptrOf[v1.FailurePolicyType](r, fpPool...)
	for range atLeastOne(r, 3) {
		s.Validations = append(s.Validations, v1.Validation{
			Expression: pick(r, exprPool...), MessageExpression: pick(r, msgExprPool...), Message: pick(r, msgPool...),
			Reason: ptrOf[metav1.StatusReason](r, reasonPool...),
		})
	}
	n := r.Intn(3)
	if r.Intn(15) == 0 {
		n = 21
	}
	for range n {
		s.AuditAnnotations = append(s.AuditAnnotations, v1.AuditAnnotation{Key: pick(r, auditKeyPool...), ValueExpression: pick(r, auditValuePool...)})
	}
	return p
}

func randomValidatingBinding(r *rand.Rand) *v1.ValidatingAdmissionPolicyBinding {
	b := &v1.ValidatingAdmissionPolicyBinding{ObjectMeta: randomMeta(r)}
	b.Spec.PolicyName = pick(r, policyNamePool...)
	b.Spec.ParamRef = randomParamRef(r)
	b.Spec.MatchResources = randomMatchResources(r)
	actions := strs(r, vaPool, 3)
	if noise < 1 {
		actions = actions[:min(len(actions), 1)]
	}
	for _, a := range actions {
		b.Spec.ValidationActions = append(b.Spec.ValidationActions, v1.ValidationAction(a))
	}
	return b
}

func randomParamRef(r *rand.Rand) *v1.ParamRef {
	if r.Intn(3) == 0 {
		return nil
	}
	pr := &v1.ParamRef{Name: pick(r, refNamePool...), Namespace: pick(r, "", "Any Thing"), ParameterNotFoundAction: ptrOf[v1.ParameterNotFoundActionType](r, actionPool...)}
	if r.Intn(2) == 0 {
		pr.Selector = selector(r)
	}
	return pr
}

func randomMutatingPolicy(r *rand.Rand) *v1.MutatingAdmissionPolicy {
	p := &v1.MutatingAdmissionPolicy{ObjectMeta: randomMeta(r)}
	s := &p.Spec
	s.ParamKind, s.MatchConstraints, s.MatchConditions, s.Variables = randomPolicyParts(r)
	s.FailurePolicy = ptrOf[v1.FailurePolicyType](r, fpPool...)
	for range atLeastOne(r, 3) {
		m := v1.Mutation{PatchType: v1.PatchType(pick(r, patchTypePool...))}
		// With little noise, only the patch of the patch type.
		if e := maybe(r, pick(r, jsonPatchPool...)); e != nil && (noise == 1 || m.PatchType == v1.PatchTypeJSONPatch) {
			m.JSONPatch = &v1.JSONPatch{Expression: *e}
		}
		if e := maybe(r, pick(r, applyConfigPool...)); e != nil && (noise == 1 || m.PatchType == v1.PatchTypeApplyConfiguration) {
			m.ApplyConfiguration = &v1.ApplyConfiguration{Expression: *e}
		}
		s.Mutations = append(s.Mutations, m)
	}
	s.ReinvocationPolicy = v1.ReinvocationPolicyType(pick(r, "Never", "IfNeeded", "", "x"))
	return p
}

func randomMutatingBinding(r *rand.Rand) *v1.MutatingAdmissionPolicyBinding {
	b := &v1.MutatingAdmissionPolicyBinding{ObjectMeta: randomMeta(r)}
	b.Spec.PolicyName = pick(r, policyNamePool...)
	b.Spec.ParamRef = randomParamRef(r)
	b.Spec.MatchResources = randomMatchResources(r)
	return b
}

// policyParity compares one kind: random objects, the server's defaults and errors, ours.
func policyParity[T any, PT interface {
	*T
	runtime.Object
}](t *testing.T, random func(*rand.Rand) PT, internal func() runtime.Object, resource string, strategy rest.RESTCreateStrategy,
	defaults func(PT) PT, validate func(PT) field.ErrorList) {
	r := rand.New(rand.NewSource(*seed))
	n, withErrs, fails := *policyCount, 0, 0
	for i := 0; i < n && fails < 10; i++ {
		noise = 1.0
		if i%2 == 1 {
			noise = 0.05
		}
		o := random(r)
		sdef := o.DeepCopyObject().(PT)
		legacyscheme.Scheme.Default(sdef)
		def := defaults(o)
		if !reflect.DeepEqual(def, sdef) {
			fails++
			t.Errorf("case %d: defaults differ:\nserver: %+v\nours:   %+v", i, sdef, def)
		}
		serrs := serverErrors(sdef.DeepCopyObject(), internal(), resource, strategy)
		oerrs := dedup(validate(def))
		if len(serrs) > 0 {
			withErrs++
		}
		m, _ := meta.Accessor(o)
		withValue := m.GetName() != "" || m.GetGenerateName() == ""
		var sk, ok []string
		for _, e := range serrs {
			sk = append(sk, key(e, withValue))
		}
		for _, e := range oerrs {
			ok = append(ok, key(e, withValue))
		}
		if !reflect.DeepEqual(sk, ok) {
			fails++
			t.Errorf("case %d differs:\nserver:\n  %s\nours:\n  %s", i, strings.Join(sk, "\n  "), strings.Join(ok, "\n  "))
		}
	}
	t.Logf("%d random %s objects, %d with errors", n, resource, withErrs)
}

// policyCount is the number of random objects of each policy kind (more than a few thousand
// add little: the differential test covers the valid objects).
var policyCount = flag.Int("parity.policies", 1000, "number of random objects of each policy kind")

func TestValidatingPolicyParity(t *testing.T) {
	policyParity(t, randomValidatingPolicy, func() runtime.Object { return &admissionregistration.ValidatingAdmissionPolicy{} },
		"validatingadmissionpolicies", validatingadmissionpolicy.NewStrategy(nil, noResolver),
		ours.DefaultValidatingPolicy, ours.ValidateValidatingPolicy)
}

func TestValidatingBindingParity(t *testing.T) {
	policyParity(t, randomValidatingBinding, func() runtime.Object { return &admissionregistration.ValidatingAdmissionPolicyBinding{} },
		"validatingadmissionpolicybindings", validatingadmissionpolicybinding.NewStrategy(nil, nil, noResolver),
		ours.DefaultValidatingPolicyBinding, ours.ValidateValidatingPolicyBinding)
}

func TestMutatingPolicyParity(t *testing.T) {
	policyParity(t, randomMutatingPolicy, func() runtime.Object { return &admissionregistration.MutatingAdmissionPolicy{} },
		"mutatingadmissionpolicies", mutatingadmissionpolicy.NewStrategy(nil, noResolver),
		ours.DefaultMutatingPolicy, ours.ValidateMutatingPolicy)
}

func TestMutatingBindingParity(t *testing.T) {
	policyParity(t, randomMutatingBinding, func() runtime.Object { return &admissionregistration.MutatingAdmissionPolicyBinding{} },
		"mutatingadmissionpolicybindings", mutatingadmissionpolicybinding.NewStrategy(nil, nil, noResolver),
		ours.DefaultMutatingPolicyBinding, ours.ValidateMutatingPolicyBinding)
}
