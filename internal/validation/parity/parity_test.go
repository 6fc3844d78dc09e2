// Package parity compares internal/validation with the validation code of kube-apiserver itself
// (k8s.io/kubernetes v1.37.2, linked in-process): v1 defaulting, conversion to the internal type,
// name generation, the registry strategy's PrepareForCreate, Validate and WarningsOnCreate, with
// the release's default feature gates. It lives in its own module because the main module cannot
// import k8s.io/kubernetes.
//
//	cd internal/validation/parity && go test -parity.n 40000
//
// Every random object must give the same defaults, the same errors in the same order (type,
// path and full message, values included) and the same virtual-resource warnings.
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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/storage/names"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/admissionregistration"
	_ "k8s.io/kubernetes/pkg/apis/admissionregistration/install"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingwebhookconfiguration"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/advice"
	ours "github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// server runs what kube-apiserver runs on a create, up to and including the strategy's checks.
func server(in *v1.MutatingWebhookConfiguration) (field.ErrorList, []string, *v1.MutatingWebhookConfiguration) {
	obj := in.DeepCopy()
	legacyscheme.Scheme.Default(obj)
	defaulted := obj.DeepCopy()
	internal := &admissionregistration.MutatingWebhookConfiguration{}
	if err := legacyscheme.Scheme.Convert(obj, internal, nil); err != nil {
		panic(err)
	}
	if internal.Name == "" && internal.GenerateName != "" {
		internal.Name = names.SimpleNameGenerator.GenerateName(internal.GenerateName)
	}
	internal.Namespace = ""
	ctx := context.Background()
	mutatingwebhookconfiguration.Strategy.PrepareForCreate(ctx, internal)
	errs := mutatingwebhookconfiguration.Strategy.Validate(ctx, internal)
	warns := mutatingwebhookconfiguration.Strategy.WarningsOnCreate(ctx, internal)
	return errs, warns, defaulted
}

func key(e *field.Error, withValue bool) string {
	s := string(e.Type) + " | " + e.Field + " | " + e.Detail
	if withValue {
		s = e.Type.String() + " | " + e.Field + " | " + e.ErrorBody()
	}
	return s
}

var noise = 1.0

// pick returns a random element, or, with probability 1-noise, the first (valid) one.
func pick[T any](r *rand.Rand, xs ...T) T {
	if r.Float64() >= noise {
		return xs[0]
	}
	return xs[r.Intn(len(xs))]
}

func maybe[T any](r *rand.Rand, v T) *T {
	if r.Float64() < noise && r.Intn(3) == 0 {
		return nil
	}
	return &v
}

func strs(r *rand.Rand, pool []string, max int) []string {
	n := r.Intn(max + 1)
	if n == 0 && noise < 1 {
		n = 1
	}
	if n == 0 && r.Intn(2) == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = pick(r, pool...)
	}
	return out
}

var (
	namePool      = []string{"a.b.c", "", "a", "a.b", "A.b.c", "a.b.c.", "a..b.c", "x.static.k8s.io", "hook.example.com", strings.Repeat("a", 254), strings.Repeat("a", 100) + ".b.c", "a_b.c.d"}
	genNamePool   = []string{"", "ab-", "Bad-", "x", strings.Repeat("a", 300), "-"}
	keyPool       = []string{"a", "a/b/c", "example.com/", "/a", "-a", "Ex.com/K", "a b", strings.Repeat("k", 64), "kubernetes.io/metadata.name", ""}
	valPool       = []string{"", "x", "-x", "x y", strings.Repeat("v", 64), "kube-system", "webhooks"}
	opPool        = []string{"*", "CREATE", "UPDATE", "DELETE", "CONNECT", "create", "", "PATCH"}
	groupPool     = []string{"", "*", "apps", "authentication.k8s.io", "authorization.k8s.io", "Weird!"}
	versionPool   = []string{"v1", "", "*", "V2"}
	resPool       = []string{"pods", "", "*", "*/*", "pods", "pods/*", "pods/log", "*/log", "*/scale", "pods/a/b", "tokenreviews", "subjectaccessreviews", "selfsubjectreviews", "nodes", "deployments/scale"}
	scopePool     = []string{"*", "Cluster", "Namespaced", "cluster", ""}
	urlPool       = []string{"https://h", "", "HTTPS://h", "https:///p", "https:h", "http://h", "example.com/x", "https://u:p@h", "https://h/#", "https://h/#f", "https://h/?", "https://h/?a=b", "https://h:abc", " https://h", "https://h/%zz", "https://:443", "https://h:99999"}
	pathPool      = []string{"", "/", "//", "///", "/a//b", "/a//", "/a/", "/Validate", "/mutate_pods", "mutate", "xValidate", "a", "/apis/foo.bar/v1", "/" + strings.Repeat("a", 254)}
	exprPool      = []string{"true", "", "  ", " true ", "1", "'a'", "null", "object.spec.enabled", "object.spec.enabled == true", "params.x == 1", "request.namespace == 'a'", "[1,2].includes(1)", "[3,1].sort() == [1,3]", "1 +", "object.?spec", "request.uid == ''", "duration('1x') > duration('1s')", "'x'.matches('[')", "[1,'a'] == []", "authorizer.requestResource.check('get').allowed()", "namespaceObject.metadata.name == ''", "variables.x", "{'a':1}.all(k, v, v > 0)", "[1].isSorted()"}
	mcNamePool    = []string{"a", "", "b", "a/b/c", "not ok", "example.com/ok"}
	arvPool       = []string{"v1", "v1beta1", "v2", "V1", "", "1v", strings.Repeat("a", 64)}
	sePool        = []string{"None", "NoneOnDryRun", "Some", "Unknown", ""}
	fpPool        = []string{"Fail", "Ignore", "fail", ""}
	mpPool        = []string{"Equivalent", "Exact", "x"}
	rpPool        = []string{"Never", "IfNeeded", "x"}
	selOpPool     = []string{"In", "NotIn", "Exists", "DoesNotExist", "in", ""}
	finalizerPool = []string{"orphan", "foregroundDeletion", "a b", "example.com/f"}
)

func oneMap(r *rand.Rand) map[string]string {
	switch r.Intn(3) {
	case 0:
		return nil
	case 1:
		return map[string]string{}
	}
	return map[string]string{pick(r, keyPool...): pick(r, valPool...)}
}

func selector(r *rand.Rand) *metav1.LabelSelector {
	if r.Intn(3) == 0 {
		return nil
	}
	s := &metav1.LabelSelector{MatchLabels: oneMap(r)}
	for range r.Intn(3) {
		s.MatchExpressions = append(s.MatchExpressions, metav1.LabelSelectorRequirement{
			Key: pick(r, keyPool...), Operator: metav1.LabelSelectorOperator(pick(r, selOpPool...)), Values: strs(r, valPool, 2),
		})
	}
	return s
}

// gen makes a random object from pools of valid and invalid values taken from the server's rules.
func gen(r *rand.Rand) *v1.MutatingWebhookConfiguration {
	o := &v1.MutatingWebhookConfiguration{}
	o.Name = pick(r, namePool...)
	if r.Intn(4) == 0 {
		o.GenerateName = pick(r, genNamePool...)
	}
	if r.Float64() < noise && r.Intn(4) == 0 {
		o.Namespace = "ns"
	}
	o.Labels = oneMap(r)
	o.Annotations = oneMap(r)
	if r.Intn(4) == 0 {
		o.Finalizers = strs(r, finalizerPool, 3)
	}
	if r.Intn(5) == 0 {
		tr := true
		o.OwnerReferences = []metav1.OwnerReference{{APIVersion: pick(r, "", "v1", "a/b/c"), Kind: pick(r, "", "K"), Name: pick(r, "", "n"), UID: "u", Controller: &tr}, {APIVersion: "v1", Kind: "K", Name: "m", UID: "u2", Controller: maybe(r, true)}}
	}
	for range r.Intn(4) {
		h := v1.MutatingWebhook{Name: pick(r, namePool...)}
		useURL := r.Intn(2) == 0
		if (noise < 1 && useURL) || (noise == 1 && r.Intn(2) == 0) {
			h.ClientConfig.URL = maybe(r, pick(r, urlPool...))
		}
		if (noise < 1 && !useURL) || (noise == 1 && r.Intn(2) == 0) {
			h.ClientConfig.Service = &v1.ServiceReference{Name: pick(r, "svc", ""), Namespace: pick(r, "webhooks", "", "kube-system"), Path: maybe(r, pick(r, pathPool...)), Port: maybe(r, pick(r, int32(443), 0, 65535, 65536, -1))}
		}
		if r.Intn(3) == 0 {
			h.ClientConfig.CABundle = []byte(pick(r, "", "junk"))
		}
		for range r.Intn(3) {
			var rule v1.RuleWithOperations
			for _, op := range strs(r, opPool, 3) {
				rule.Operations = append(rule.Operations, v1.OperationType(op))
			}
			rule.APIGroups = strs(r, groupPool, 3)
			rule.APIVersions = strs(r, versionPool, 3)
			rule.Resources = strs(r, resPool, 4)
			if s := maybe(r, pick(r, scopePool...)); s != nil {
				sc := v1.ScopeType(*s)
				rule.Scope = &sc
			}
			h.Rules = append(h.Rules, rule)
		}
		if s := maybe(r, pick(r, fpPool...)); s != nil {
			v := v1.FailurePolicyType(*s)
			h.FailurePolicy = &v
		}
		if s := maybe(r, pick(r, mpPool...)); s != nil {
			v := v1.MatchPolicyType(*s)
			h.MatchPolicy = &v
		}
		if s := maybe(r, pick(r, sePool...)); s != nil {
			v := v1.SideEffectClass(*s)
			h.SideEffects = &v
		}
		if s := maybe(r, pick(r, rpPool...)); s != nil {
			v := v1.ReinvocationPolicyType(*s)
			h.ReinvocationPolicy = &v
		}
		h.TimeoutSeconds = maybe(r, pick(r, int32(10), 0, 1, 30, 31, -5))
		h.NamespaceSelector = selector(r)
		h.ObjectSelector = selector(r)
		h.AdmissionReviewVersions = strs(r, arvPool, 3)
		n := r.Intn(4)
		if r.Intn(20) == 0 {
			n = 65
		}
		for j := range n {
			name := pick(r, mcNamePool...)
			if n == 65 {
				name = fmt.Sprintf("c%d", j)
			}
			h.MatchConditions = append(h.MatchConditions, v1.MatchCondition{Name: name, Expression: pick(r, exprPool...)})
		}
		o.Webhooks = append(o.Webhooks, h)
	}
	if r.Float64() < noise && r.Intn(5) == 0 && len(o.Webhooks) > 0 {
		o.Webhooks = append(o.Webhooks, o.Webhooks[0])
	}
	return o
}

var (
	count = flag.Int("parity.n", 3000, "number of random objects")
	seed  = flag.Int64("parity.seed", 1, "random seed")
)

func TestParity(t *testing.T) {
	r := rand.New(rand.NewSource(*seed))
	n, withErrs := *count, 0
	fails := 0
	for i := 0; i < n && fails < 10; i++ {
		noise = 1.0
		if i%2 == 1 {
			noise = 0.05
		}
		o := gen(r)
		serrs, swarns, sdef := server(o)
		def := ours.Default(o)
		if !reflect.DeepEqual(def, sdef) {
			t.Errorf("default differs for %d", i)
			fails++
		}
		oerrs := ours.Validate(def)
		if len(serrs) > 0 {
			withErrs++
		}
		var sk, ok []string
		// generated names differ in their random part: compare values only when no generateName is in play
		withValue := o.Name != "" || o.GenerateName == ""
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
		var ow []string
		for _, w := range append(advice.Advice(def, nil, true), ours.ServerWarnings(ours.Assumed, def, false)...) {
			if strings.Contains(w.Message, "is excluded from admission webhooks") {
				ow = append(ow, w.String())
			}
		}
		var sw []string
		for _, w := range swarns {
			sw = append(sw, w)
		}
		if !reflect.DeepEqual(sw, ow) {
			fails++
			t.Errorf("case %d warnings differ:\nserver: %q\nours:   %q", i, sw, ow)
		}
	}
	t.Logf("%d objects, %d with errors", n, withErrs)
}
