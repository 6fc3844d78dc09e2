package webhook

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
)

// fuzzInput turns the fuzzer's bytes into choices. Once the bytes run out
// every choice is zero, so any input gives a finite object.
type fuzzInput struct{ data []byte }

func (in *fuzzInput) byte() byte {
	if len(in.data) == 0 {
		return 0
	}
	b := in.data[0]
	in.data = in.data[1:]
	return b
}

// n is a number in [0, max).
func (in *fuzzInput) n(max int) int { return int(in.byte()) % max }

func (in *fuzzInput) flag() bool { return in.byte()&1 == 1 }

func (in *fuzzInput) int32() int32 {
	var v uint32
	for range 4 {
		v = v<<8 | uint32(in.byte())
	}
	return int32(v)
}

// words are values that mean something to the API, so that the fuzzer meets
// them often; other strings are raw bytes.
var words = []string{
	"", "*", "*/*", "v1", "v1beta1", "pods", "pods/status", "apps", "CREATE", "UPDATE", "In", "NotIn", "Exists",
	"DoesNotExist", "Fail", "Ignore", "Equivalent", "Exact", "Never", "IfNeeded", "None", "NoneOnDryRun",
	"Namespaced", "Cluster", "kube-system", "a.example.com", "https://h.example.com/p", "/mutate", testPEM,
	"app.kubernetes.io/name", " ", "\n", "é", "e\u0301", "\x00", "[0]", "a.b", "a]b",
}

// str is a string the server can store: valid UTF-8 (JSON cannot carry
// anything else), otherwise anything.
func (in *fuzzInput) str() string {
	if b := in.byte(); b < 160 {
		return words[int(b)%len(words)]
	}
	n := in.n(24)
	if n > len(in.data) {
		n = len(in.data)
	}
	s := string(in.data[:n])
	in.data = in.data[n:]
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return s
}

func (in *fuzzInput) optStr() *string {
	if in.flag() {
		return nil
	}
	s := in.str()
	return &s
}

func (in *fuzzInput) optInt32() *int32 {
	if in.flag() {
		return nil
	}
	v := in.int32()
	return &v
}

func (in *fuzzInput) optBool() *bool {
	switch in.n(3) {
	case 0:
		return nil
	case 1:
		return ptr(false)
	}
	return ptr(true)
}

// count is 0 to max-1. Each list is nil or made with make, so empty lists
// are tried too.
func (in *fuzzInput) count(max int) (n int, isNil bool) {
	b := in.byte()
	return int(b>>1) % max, b&1 == 0
}

func fuzzSlice[T any](in *fuzzInput, max int, gen func(i int) T) []T {
	n, isNil := in.count(max)
	if n == 0 && isNil {
		return nil
	}
	out := make([]T, 0, n)
	for i := range n {
		out = append(out, gen(i))
	}
	return out
}

func (in *fuzzInput) strs(max int) []string {
	return fuzzSlice(in, max, func(int) string { return in.str() })
}

func (in *fuzzInput) strMap(max int) map[string]string {
	n, isNil := in.count(max)
	if n == 0 && isNil {
		return nil
	}
	m := make(map[string]string, n)
	for range n {
		m[in.str()] = in.str()
	}
	return m
}

func fuzzStrPtr[T ~string](in *fuzzInput) *T {
	if s := in.optStr(); s != nil {
		v := T(*s)
		return &v
	}
	return nil
}

func (in *fuzzInput) selector() *metav1.LabelSelector {
	if in.n(4) == 0 {
		return nil
	}
	return &metav1.LabelSelector{
		MatchLabels: in.strMap(4),
		MatchExpressions: fuzzSlice(in, 4, func(int) metav1.LabelSelectorRequirement {
			return metav1.LabelSelectorRequirement{Key: in.str(), Operator: metav1.LabelSelectorOperator(in.str()), Values: in.strs(4)}
		}),
	}
}

// object builds a MutatingWebhookConfiguration of the API's shape: any
// values, any counts, set and unset optional fields. Webhook names are made
// unique, as the server requires.
func (in *fuzzInput) object() *mwc {
	o := &mwc{ObjectMeta: metav1.ObjectMeta{
		Name:            in.str(),
		Labels:          in.strMap(5),
		Annotations:     in.strMap(5),
		Finalizers:      in.strs(4),
		UID:             k8stypes.UID(in.str()),
		ResourceVersion: in.str(),
		Generation:      int64(in.int32()),
	}}
	if in.flag() {
		// Seconds, as the server stores them, from 1970 to 2106.
		o.CreationTimestamp = metav1.NewTime(time.Unix(int64(uint32(in.int32())), 0))
	}
	o.OwnerReferences = fuzzSlice(in, 4, func(int) metav1.OwnerReference {
		return metav1.OwnerReference{
			APIVersion: in.str(), Kind: in.str(), Name: in.str(), UID: k8stypes.UID(in.str()),
			BlockOwnerDeletion: in.optBool(), Controller: in.optBool(),
		}
	})
	seen := map[string]bool{}
	o.Webhooks = fuzzSlice(in, 5, func(i int) admissionregistrationv1.MutatingWebhook {
		w := admissionregistrationv1.MutatingWebhook{Name: in.str()}
		if seen[w.Name] {
			w.Name += "-" + strconv.Itoa(i)
		}
		seen[w.Name] = true
		w.ClientConfig.URL = in.optStr()
		if in.flag() {
			w.ClientConfig.Service = &admissionregistrationv1.ServiceReference{
				Namespace: in.str(), Name: in.str(), Path: in.optStr(), Port: in.optInt32(),
			}
		}
		switch in.n(3) {
		case 1:
			w.ClientConfig.CABundle = []byte{}
		case 2:
			w.ClientConfig.CABundle = []byte(in.str())
		}
		w.Rules = fuzzSlice(in, 4, func(int) admissionregistrationv1.RuleWithOperations {
			r := admissionregistrationv1.RuleWithOperations{Rule: admissionregistrationv1.Rule{
				APIGroups: in.strs(3), APIVersions: in.strs(3), Resources: in.strs(4),
				Scope: fuzzStrPtr[admissionregistrationv1.ScopeType](in),
			}}
			r.Operations = fuzzSlice(in, 4, func(int) admissionregistrationv1.OperationType {
				return admissionregistrationv1.OperationType(in.str())
			})
			return r
		})
		w.FailurePolicy = fuzzStrPtr[admissionregistrationv1.FailurePolicyType](in)
		w.MatchPolicy = fuzzStrPtr[admissionregistrationv1.MatchPolicyType](in)
		w.NamespaceSelector = in.selector()
		w.ObjectSelector = in.selector()
		w.SideEffects = fuzzStrPtr[admissionregistrationv1.SideEffectClass](in)
		w.TimeoutSeconds = in.optInt32()
		w.AdmissionReviewVersions = in.strs(4)
		w.ReinvocationPolicy = fuzzStrPtr[admissionregistrationv1.ReinvocationPolicyType](in)
		w.MatchConditions = fuzzSlice(in, 4, func(int) admissionregistrationv1.MatchCondition {
			return admissionregistrationv1.MatchCondition{Name: in.str(), Expression: in.str()}
		})
		return w
	})
	return o
}

func fuzzSeeds(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0})
	f.Add([]byte("\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19"))
	f.Add([]byte(strings.Repeat("\xff", 64)))
	f.Add([]byte(strings.Repeat("\x03\x07\x0b", 100)))
	f.Add([]byte(strings.Repeat("\xa5\x5a\x33\xcc\x0f\xf0\x99", 80)))
	f.Add([]byte(strings.Repeat("\x09\xc8ab\xe2\x82\xac\x01\x07\x02", 60)))
	f.Add([]byte(testPEM + testPEM))
	// Long inputs make large objects: many webhooks, rules and selectors.
	for i := range uint64(4) {
		r := rand.New(rand.NewPCG(i, 0x5eed))
		b := make([]byte, 4096)
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		f.Add(b)
	}
}

// FuzzRoundTrip checks API → model → API on objects of any shape: flatten and
// expand do not panic, and expand(mutating.FlattenObject(obj, nil)).Object is obj, up to
// what the server cannot store (see normalize: TypeMeta, read-only metadata,
// {} and nil selectors, empty and nil lists and maps). It also checks that the
// read-only metadata is in the model, that a flattened model has no unknown
// value, and that refreshing with the model as prior changes nothing.
func FuzzRoundTrip(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		obj := (&fuzzInput{data: data}).object()
		before := obj.DeepCopy()

		m := mutating.FlattenObject(obj, nil)
		exp := expand(m)
		if len(exp.Unknown) != 0 {
			t.Errorf("unknown paths in a flattened model: %v", exp.Unknown)
		}
		reportDiff(t, "expand(mutating.FlattenObject(obj, nil)).Object", diffObjects(normalize(obj, true), normalize(exp.Object, true)))
		checkComputedMetadata(t, obj, m)

		// A refresh whose prior is that model (every label, annotation and
		// webhook managed) reads the same model back.
		reportDiff(t, "mutating.FlattenObject(obj, &mutating.FlattenObject(obj, nil))", diffModels(m, mutating.FlattenObject(obj, &m)))

		reportDiff(t, "the input object (conversion must not change it)", diffObjects(before, obj))
	})
}

// Model side: a plan-shaped model of any shape, including the forms the API
// cannot tell apart (null and empty lists and maps, an empty selector block
// and none, ca_bundle "" and null).

func (in *fuzzInput) tfString() types.String {
	if s := in.optStr(); s != nil {
		return types.StringValue(*s)
	}
	return types.StringNull()
}

func (in *fuzzInput) tfInt() types.Int64 {
	if v := in.optInt32(); v != nil {
		return types.Int64Value(int64(*v))
	}
	return types.Int64Null()
}

func (in *fuzzInput) tfBool() types.Bool { return types.BoolPointerValue(in.optBool()) }

func (in *fuzzInput) tfList(max int) types.List {
	switch in.n(3) {
	case 0:
		return types.ListNull(types.StringType)
	case 1:
		return list()
	}
	n := 1 + in.n(max)
	elems := make([]attr.Value, n)
	for i := range elems {
		elems[i] = types.StringValue(in.str())
	}
	return types.ListValueMust(types.StringType, elems)
}

func (in *fuzzInput) tfMap(max int) types.Map {
	switch in.n(3) {
	case 0:
		return types.MapNull(types.StringType)
	case 1:
		return smap()
	}
	elems := map[string]attr.Value{}
	for range 1 + in.n(max) {
		elems[in.str()] = types.StringValue(in.str())
	}
	return types.MapValueMust(types.StringType, elems)
}

func (in *fuzzInput) selectorBlock() []selectorModel {
	if in.flag() {
		return nil
	}
	return []selectorModel{{
		MatchLabels: in.tfMap(3),
		MatchExpressions: fuzzSlice(in, 4, func(int) matchExpressionModel {
			return matchExpressionModel{Key: types.StringValue(in.str()), Operator: types.StringValue(in.str()), Values: in.tfList(3)}
		}),
	}}
}

// model builds a state-shaped model: every block that must occur once does,
// webhook names are unique, numbers fit in int32 (the API's type), and the
// server-set attributes are known.
func (in *fuzzInput) model() resourceModel {
	name := in.str()
	md := metadataModel{
		Name:              types.StringValue(name),
		Labels:            in.tfMap(4),
		Annotations:       in.tfMap(4),
		Finalizers:        in.tfList(3),
		UID:               types.StringValue(in.str()),
		ResourceVersion:   types.StringValue(in.str()),
		Generation:        types.Int64Value(int64(in.int32())),
		CreationTimestamp: types.StringValue(time.Unix(int64(uint32(in.int32())), 0).UTC().Format(time.RFC3339)),
	}
	md.OwnerReferences = fuzzSlice(in, 3, func(int) ownerReferenceModel {
		return ownerReferenceModel{
			APIVersion: types.StringValue(in.str()), Kind: types.StringValue(in.str()), Name: types.StringValue(in.str()),
			UID: types.StringValue(in.str()), BlockOwnerDeletion: in.tfBool(), Controller: in.tfBool(),
		}
	})
	seen := map[string]bool{}
	hooks := fuzzSlice(in, 4, func(i int) mutatingHook {
		n := in.str()
		if seen[n] {
			n += "-" + strconv.Itoa(i)
		}
		seen[n] = true
		cc := clientConfigModel{URL: in.tfString()}
		switch in.n(3) {
		case 0:
			cc.CABundle = types.StringNull()
		case 1:
			cc.CABundle = types.StringValue("")
		default:
			cc.CABundle = types.StringValue(in.str())
		}
		if in.flag() {
			cc.Service = []serviceModel{{
				Namespace: types.StringValue(in.str()), Name: types.StringValue(in.str()), Path: in.tfString(), Port: in.tfInt(),
			}}
		}
		return mutatingHook{ReinvocationPolicy: in.tfString(), webhookModel: webhookModel{
			Name:                    types.StringValue(n),
			AdmissionReviewVersions: in.tfList(3),
			SideEffects:             in.tfString(),
			FailurePolicy:           in.tfString(),
			MatchPolicy:             in.tfString(),
			TimeoutSeconds:          in.tfInt(),
			ClientConfig:            []clientConfigModel{cc},
			Rule: fuzzSlice(in, 4, func(int) ruleModel {
				return ruleModel{
					Operations: in.tfList(3), APIGroups: in.tfList(3), APIVersions: in.tfList(3), Resources: in.tfList(3), Scope: in.tfString(),
				}
			}),
			NamespaceSelector: in.selectorBlock(),
			ObjectSelector:    in.selectorBlock(),
			MatchConditions: fuzzSlice(in, 3, func(int) matchConditionModel {
				return matchConditionModel{Name: types.StringValue(in.str()), Expression: types.StringValue(in.str())}
			}),
		}}
	})
	return resourceModel{Header: header(types.StringValue(name), md), Webhook: hooks}
}

// FuzzModelRoundTrip checks model → API → model as after an apply: the state
// read back with the plan as prior, from the object as the server returns it
// (through JSON, selectors defaulted), is the model; so it is when every
// ca_bundle the state holds null was planned unknown (left out of the
// configuration); and so is a refresh with the state as prior.
func FuzzModelRoundTrip(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		m := (&fuzzInput{data: data}).model()
		checkModelRoundTrip(t, m, asPlan(m))
		checkModelRoundTrip(t, m, withUnknownCABundles(asPlan(m)))
		checkModelRoundTrip(t, m, m)
	})
}

// withUnknownCABundles returns plan with every null ca_bundle unknown, as
// Terraform plans an Optional+Computed attribute the configuration leaves out.
func withUnknownCABundles(plan resourceModel) resourceModel {
	plan.Webhook = slices.Clone(plan.Webhook)
	for i := range plan.Webhook {
		w := &plan.Webhook[i]
		w.ClientConfig = slices.Clone(w.ClientConfig)
		for j := range w.ClientConfig {
			if w.ClientConfig[j].CABundle.IsNull() {
				w.ClientConfig[j].CABundle = types.StringUnknown()
			}
		}
	}
	return plan
}
