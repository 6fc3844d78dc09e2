package webhook

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/core"
)

// These tests hold convert.go to its promise: model → API → model is the
// identity for every value the server can store, and so is API → model → API.
// They need no cluster.

type mwc = admissionregistrationv1.MutatingWebhookConfiguration

// testPEM is a real self-signed certificate; conversion does not parse it,
// but the bytes are those a user keeps in a file.
const testPEM = `-----BEGIN CERTIFICATE-----
MIIBlTCCATugAwIBAgIUNqSHV8COP/chIB9ZsMytDdI97B8wCgYIKoZIzj0EAwIw
IDEeMBwGA1UEAwwVaW5qZWN0b3Iud2ViaG9va3Muc3ZjMB4XDTI2MTEyOTEyMTI1
MVoXDTM2MTEyNjEyMTI1MVowIDEeMBwGA1UEAwwVaW5qZWN0b3Iud2ViaG9va3Mu
c3ZjMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEWRptUrq9gMl6MCjJlCaDUWpQ
V2vaLAK4oyZu+qa/WZ/T7t2gQ3UUM3gvWJPA1JfJLLhEhZYDEikofD8euwksoKNT
MFEwHQYDVR0OBBYEFOr6lnMVmwEWWj8x0hbwZ0/3HtljMB8GA1UdIwQYMBaAFOr6
lnMVmwEWWj8x0hbwZ0/3HtljMA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwID
SAAwRQIhAJR7chUj9SywZhd8/0JJvB2TNDZKhYrxTxepi3vtzrEDAiBXbVPafidH
5lsWKcti3MEh/ZNHihy+BTI6da/f4XcXNw==
-----END CERTIFICATE-----
`

func ptr[T any](v T) *T { return &v }

// ---------------------------------------------------------------------------
// Comparison

var (
	attrValueType = reflect.TypeFor[attr.Value]()
	metaTimeType  = reflect.TypeFor[metav1.Time]()
)

// differ compares two values of the same type field by field and records
// every difference with its path: API paths (json names) for API objects,
// attribute paths (tfsdk names) for models. Terraform values are compared
// with their own Equal, so null, unknown and empty are all told apart.
type differ struct {
	// blocksNilIsEmpty makes a nil slice equal to an empty one. In a model
	// the only Go slices are blocks, and Terraform has no null block list:
	// no block and zero blocks are the same configuration and state.
	blocksNilIsEmpty bool
	out              []string
}

func (d *differ) add(p, want, got string) {
	if p == "" {
		p = "(root)"
	}
	d.out = append(d.out, fmt.Sprintf("%s: want %s, got %s", p, want, got))
}

func joinPath(p, name string) string {
	switch {
	case name == "":
		return p
	case p == "":
		return name
	}
	return p + "." + name
}

func fieldName(f reflect.StructField) string {
	if n, _, _ := strings.Cut(f.Tag.Get("tfsdk"), ","); n != "" {
		return n
	}
	n, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if n == "" && !f.Anonymous {
		return f.Name
	}
	return n // "" for an inlined struct such as TypeMeta
}

func show(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return "nil"
		}
		return "&" + show(v.Elem())
	case reflect.Slice, reflect.Map:
		if v.IsNil() {
			return "nil"
		}
	}
	if v.Type().Implements(attrValueType) {
		av, _ := v.Interface().(attr.Value) // its type implements it
		return av.String()
	}
	if b, ok := v.Interface().([]byte); ok {
		return strconv.Quote(string(b))
	}
	if s, err := json.Marshal(v.Interface()); err == nil {
		return string(s)
	}
	return fmt.Sprintf("%+v", v.Interface())
}

func (d *differ) walk(p string, want, got reflect.Value) {
	t := want.Type()
	if t.Implements(attrValueType) {
		w, _ := want.Interface().(attr.Value) // t implements it
		g, _ := got.Interface().(attr.Value)
		if !w.Equal(g) {
			d.add(p, w.String(), g.String())
		}
		return
	}
	if t == metaTimeType {
		w, _ := want.Interface().(metav1.Time) // t is metav1.Time
		g, _ := got.Interface().(metav1.Time)
		if !w.Equal(&g) {
			d.add(p, show(want), show(got))
		}
		return
	}
	switch want.Kind() {
	case reflect.Pointer:
		if want.IsNil() || got.IsNil() {
			if want.IsNil() != got.IsNil() {
				d.add(p, show(want), show(got))
			}
			return
		}
		d.walk(p, want.Elem(), got.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			d.walk(joinPath(p, fieldName(t.Field(i))), want.Field(i), got.Field(i))
		}
	case reflect.Slice:
		if d.blocksNilIsEmpty && want.Len() == 0 && got.Len() == 0 {
			return
		}
		if want.IsNil() != got.IsNil() || want.Len() != got.Len() {
			d.add(p, show(want), show(got))
			return
		}
		for i := range want.Len() {
			d.walk(fmt.Sprintf("%s[%d]", p, i), want.Index(i), got.Index(i))
		}
	case reflect.Map:
		if want.IsNil() != got.IsNil() {
			d.add(p, show(want), show(got))
			return
		}
		keys := map[string]reflect.Value{}
		for _, k := range append(want.MapKeys(), got.MapKeys()...) {
			keys[fmt.Sprint(k.Interface())] = k
		}
		names := make([]string, 0, len(keys))
		for n := range keys {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			w, g := want.MapIndex(keys[n]), got.MapIndex(keys[n])
			kp := fmt.Sprintf("%s[%s]", p, n)
			switch {
			case !w.IsValid():
				d.add(kp, "no entry", show(g))
			case !g.IsValid():
				d.add(kp, show(w), "no entry")
			default:
				d.walk(kp, w, g)
			}
		}
	default:
		if !reflect.DeepEqual(want.Interface(), got.Interface()) {
			d.add(p, show(want), show(got))
		}
	}
}

// diffObjects lists the differences between two API objects, strictly: a
// nil and an empty slice differ. Normalise both sides first.
func diffObjects(want, got *mwc) []string {
	if reflect.DeepEqual(want, got) { // the common case, fast
		return nil
	}
	d := &differ{}
	d.walk("", reflect.ValueOf(want).Elem(), reflect.ValueOf(got).Elem())
	return d.out
}

// diffModels lists the differences between two models.
func diffModels(want, got resourceModel) []string {
	if reflect.DeepEqual(want, got) { // the common case, fast; equal values are Equal
		return nil
	}
	d := &differ{blocksNilIsEmpty: true}
	d.walk("", reflect.ValueOf(want), reflect.ValueOf(got))
	return d.out
}

func reportDiff(t testing.TB, what string, diffs []string) {
	t.Helper()
	if len(diffs) > 0 {
		t.Errorf("%s differs (%d):\n  %s", what, len(diffs), strings.Join(diffs, "\n  "))
	}
}

// ---------------------------------------------------------------------------
// Normalisation of API objects before comparison

func nilIfEmpty[S ~[]E, E any](s S) S {
	if len(s) == 0 {
		return nil
	}
	return s
}

func nilIfEmptyMap[M ~map[K]V, K comparable, V any](m M) M {
	if len(m) == 0 {
		return nil
	}
	return m
}

// normalize returns a copy of obj without what the round trip may rightly
// change:
//
//   - TypeMeta: it is the envelope, not stored data. Typed clients clear it
//     on the objects they read, and expand always sets it.
//   - uid, resourceVersion, generation and creationTimestamp: the server sets
//     them, the model carries them only as computed attributes, and expand
//     never sends them. (The tests check separately that flatten puts them
//     in the model.)
//   - A selector that selects everything ({} or no matchLabels and no
//     matchExpressions) becomes nil. The server defaults a nil
//     namespaceSelector and objectSelector to {}, so {} is the only form it
//     stores; flatten without prior shows {} as no block (that is what a
//     configuration that leaves the block out reads back as, so it does not
//     diff), and expand of no block gives nil, which the server turns back
//     into {}. Both mean "match everything".
//
// With emptyAsNil it also turns every empty slice, map and caBundle into nil.
// Every list and map in these types is `omitempty` in JSON and protobuf has
// no absent-versus-empty for repeated and map fields, so the server cannot
// store the difference, and objects it returns never hold an empty one. (The
// only list without omitempty, admissionReviewVersions, must not be empty,
// so the server never stores it empty either.) Objects made by hand or by the
// fuzzer can hold empty ones, and flatten rightly reads them as null.
func normalize(in *mwc, emptyAsNil bool) *mwc {
	o := in.DeepCopy()
	o.TypeMeta = metav1.TypeMeta{}
	o.UID, o.ResourceVersion, o.Generation, o.CreationTimestamp = "", "", 0, metav1.Time{}
	if emptyAsNil {
		o.Labels = nilIfEmptyMap(o.Labels)
		o.Annotations = nilIfEmptyMap(o.Annotations)
		o.Finalizers = nilIfEmpty(o.Finalizers)
		o.OwnerReferences = nilIfEmpty(o.OwnerReferences)
		o.Webhooks = nilIfEmpty(o.Webhooks)
	}
	for i := range o.Webhooks {
		w := &o.Webhooks[i]
		w.NamespaceSelector = normalizeSelector(w.NamespaceSelector, emptyAsNil)
		w.ObjectSelector = normalizeSelector(w.ObjectSelector, emptyAsNil)
		if !emptyAsNil {
			continue
		}
		w.AdmissionReviewVersions = nilIfEmpty(w.AdmissionReviewVersions)
		w.ClientConfig.CABundle = nilIfEmpty(w.ClientConfig.CABundle)
		w.Rules = nilIfEmpty(w.Rules)
		for j := range w.Rules {
			r := &w.Rules[j]
			r.Operations = nilIfEmpty(r.Operations)
			r.APIGroups = nilIfEmpty(r.APIGroups)
			r.APIVersions = nilIfEmpty(r.APIVersions)
			r.Resources = nilIfEmpty(r.Resources)
		}
		w.MatchConditions = nilIfEmpty(w.MatchConditions)
	}
	return o
}

func normalizeSelector(s *metav1.LabelSelector, emptyAsNil bool) *metav1.LabelSelector {
	if s == nil || (len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0) {
		return nil
	}
	if emptyAsNil {
		s.MatchLabels = nilIfEmptyMap(s.MatchLabels)
		s.MatchExpressions = nilIfEmpty(s.MatchExpressions)
		for k := range s.MatchExpressions {
			s.MatchExpressions[k].Values = nilIfEmpty(s.MatchExpressions[k].Values)
		}
	}
	return s
}

// checkComputedMetadata checks that the read-only metadata of obj is in the
// model's computed attributes.
func checkComputedMetadata(t testing.TB, obj *mwc, m resourceModel) {
	t.Helper()
	if len(m.Metadata) != 1 {
		t.Fatalf("metadata blocks: want 1, got %d", len(m.Metadata))
	}
	md := m.Metadata[0]
	wantTS := types.StringNull()
	if !obj.CreationTimestamp.IsZero() {
		wantTS = types.StringValue(obj.CreationTimestamp.UTC().Format(time.RFC3339))
	}
	for _, c := range []struct {
		name      string
		want, got attr.Value
	}{
		{"id", types.StringValue(obj.Name), m.ID},
		{"metadata[0].uid", types.StringValue(string(obj.UID)), md.UID},
		{"metadata[0].resource_version", types.StringValue(obj.ResourceVersion), md.ResourceVersion},
		{"metadata[0].generation", types.Int64Value(obj.Generation), md.Generation},
		{"metadata[0].creation_timestamp", wantTS, md.CreationTimestamp},
	} {
		if !c.want.Equal(c.got) {
			t.Errorf("%s: want %s, got %s", c.name, c.want, c.got)
		}
	}
}

// ---------------------------------------------------------------------------
// 1. API → model → API, for objects as the server stores them

// storedWebhook is a webhook as the server stores a minimal one: every
// default applied.
func storedWebhook(name string) admissionregistrationv1.MutatingWebhook {
	return admissionregistrationv1.MutatingWebhook{
		Name: name,
		ClientConfig: admissionregistrationv1.WebhookClientConfig{
			Service: &admissionregistrationv1.ServiceReference{Namespace: "webhooks", Name: "injector", Port: ptr(int32(443))},
		},
		FailurePolicy:           ptr(admissionregistrationv1.Fail),
		MatchPolicy:             ptr(admissionregistrationv1.Equivalent),
		NamespaceSelector:       &metav1.LabelSelector{},
		ObjectSelector:          &metav1.LabelSelector{},
		SideEffects:             ptr(admissionregistrationv1.SideEffectClassNone),
		TimeoutSeconds:          ptr(int32(10)),
		AdmissionReviewVersions: []string{"v1"},
		ReinvocationPolicy:      ptr(admissionregistrationv1.NeverReinvocationPolicy),
	}
}

func storedMeta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name:              name,
		UID:               "0b5c8d1e-7a7f-4f3e-9d55-1f0a3c2b7e11",
		ResourceVersion:   "48213",
		Generation:        1,
		CreationTimestamp: metav1.NewTime(time.Date(2024, 5, 6, 9, 8, 7, 0, time.FixedZone("CEST", 2*3600))),
	}
}

func fullStoredObject() *mwc {
	pods := storedWebhook("pods.injector.example.com")
	pods.ClientConfig = admissionregistrationv1.WebhookClientConfig{
		Service: &admissionregistrationv1.ServiceReference{
			Namespace: "injector-system", Name: "injector", Path: ptr("/mutate-pods"), Port: ptr(int32(8443)),
		},
		CABundle: []byte(testPEM + testPEM),
	}
	pods.Rules = []admissionregistrationv1.RuleWithOperations{
		{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
			Rule: admissionregistrationv1.Rule{
				APIGroups: []string{""}, APIVersions: []string{"v1"},
				Resources: []string{"pods", "pods/ephemeralcontainers"}, Scope: ptr(admissionregistrationv1.NamespacedScope),
			},
		},
		{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
			Rule: admissionregistrationv1.Rule{
				APIGroups: []string{"apps", "batch"}, APIVersions: []string{"*"},
				Resources: []string{"*/*"}, Scope: ptr(admissionregistrationv1.AllScopes),
			},
		},
		{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Delete, admissionregistrationv1.Connect},
			Rule: admissionregistrationv1.Rule{
				APIGroups: []string{"*"}, APIVersions: []string{"v1", "v1beta1"},
				Resources: []string{"pods/*", "deployments/scale", "*"}, Scope: ptr(admissionregistrationv1.ClusterScope),
			},
		},
	}
	pods.FailurePolicy = ptr(admissionregistrationv1.Ignore)
	pods.MatchPolicy = ptr(admissionregistrationv1.Exact)
	pods.NamespaceSelector = &metav1.LabelSelector{
		MatchLabels: map[string]string{"injection": "enabled", "empty-value": ""},
		MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"kube-system", "kube-public"}},
			{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"web"}},
			{Key: "injectable", Operator: metav1.LabelSelectorOpExists},
			{Key: "legacy", Operator: metav1.LabelSelectorOpDoesNotExist},
		},
	}
	pods.ObjectSelector = &metav1.LabelSelector{
		MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "sidecar.example.com/inject", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"false", "disabled"}},
		},
	}
	pods.SideEffects = ptr(admissionregistrationv1.SideEffectClassNoneOnDryRun)
	pods.TimeoutSeconds = ptr(int32(30))
	pods.AdmissionReviewVersions = []string{"v1", "v1beta1"}
	pods.ReinvocationPolicy = ptr(admissionregistrationv1.IfNeededReinvocationPolicy)
	pods.MatchConditions = []admissionregistrationv1.MatchCondition{
		{Name: "exclude-leases", Expression: "!(request.resource.group == 'coordination.k8s.io' && request.resource.resource == 'leases')"},
		{Name: "not-kubelet", Expression: "!('system:nodes' in request.userInfo.groups)"},
	}

	deployments := storedWebhook("deployments.injector.example.com")
	deployments.ClientConfig = admissionregistrationv1.WebhookClientConfig{
		URL:      ptr("https://injector.example.com:9443/mutate/deployments"),
		CABundle: []byte(testPEM),
	}
	deployments.Rules = []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule: admissionregistrationv1.Rule{
			APIGroups: []string{"apps"}, APIVersions: []string{"v1"},
			Resources: []string{"deployments"}, Scope: ptr(admissionregistrationv1.AllScopes),
		},
	}}
	deployments.ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/part-of": "shop"}}

	// A third webhook with only defaults and a url: no caBundle, no rules.
	bare := storedWebhook("bare.injector.example.com")
	bare.ClientConfig = admissionregistrationv1.WebhookClientConfig{URL: ptr("https://bare.example.com/")}

	meta := storedMeta("injector.example.com")
	meta.Generation = 3
	meta.Labels = map[string]string{"app.kubernetes.io/name": "injector", "team": "platform", "empty": ""}
	meta.Annotations = map[string]string{
		"cert-manager.io/inject-ca-from": "injector-system/serving-cert",
		"example.com/note":               "multi\nline, ünïcode",
	}
	meta.Finalizers = []string{"example.com/cleanup", "example.com/audit"}
	meta.OwnerReferences = []metav1.OwnerReference{
		{APIVersion: "apps/v1", Kind: "Deployment", Name: "injector", UID: "5e1f0c7a-3a0b-4a43-b1c1-6b7a0c1f2d3e", BlockOwnerDeletion: ptr(true), Controller: ptr(true)},
		{APIVersion: "v1", Kind: "ConfigMap", Name: "injector-config", UID: "9a8b7c6d-0000-4000-8000-000000000001", BlockOwnerDeletion: ptr(false)},
		{APIVersion: "example.com/v1alpha1", Kind: "Injector", Name: "default", UID: "9a8b7c6d-0000-4000-8000-000000000002", Controller: ptr(false)},
		{APIVersion: "v1", Kind: "Namespace", Name: "injector-system", UID: "9a8b7c6d-0000-4000-8000-000000000003"},
	}
	return &mwc{ObjectMeta: meta, Webhooks: []admissionregistrationv1.MutatingWebhook{pods, deployments, bare}}
}

func TestRoundTripAPIModelAPI(t *testing.T) {
	withURL := storedWebhook("url.example.com")
	withURL.ClientConfig = admissionregistrationv1.WebhookClientConfig{URL: ptr("https://hooks.example.com:8443/mutate")}
	withURL.Rules = []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule: admissionregistrationv1.Rule{
			APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}, Scope: ptr(admissionregistrationv1.AllScopes),
		},
	}}
	withURL.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "always", Expression: "true"}}

	onlyExpressions := storedWebhook("expr.example.com")
	onlyExpressions.NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "env", Operator: metav1.LabelSelectorOpExists},
	}}
	onlyExpressions.ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"inject": "true"}}

	emptyPath := storedWebhook("path.example.com")
	emptyPath.ClientConfig.Service.Path = ptr("/")
	emptyPath.ClientConfig.Service.Port = ptr(int32(1))

	withoutReadOnly := &mwc{
		ObjectMeta: metav1.ObjectMeta{Name: "no-read-only"},
		Webhooks:   []admissionregistrationv1.MutatingWebhook{storedWebhook("a.example.com")},
	}

	tests := map[string]*mwc{
		"minimal service webhook": {ObjectMeta: storedMeta("minimal"), Webhooks: []admissionregistrationv1.MutatingWebhook{storedWebhook("a.example.com")}},
		"url webhook with a rule and a match condition": {
			ObjectMeta: storedMeta("url"), Webhooks: []admissionregistrationv1.MutatingWebhook{withURL},
		},
		"selectors with only expressions or only labels": {
			ObjectMeta: storedMeta("selectors"), Webhooks: []admissionregistrationv1.MutatingWebhook{onlyExpressions},
		},
		"service path and port at their limits": {
			ObjectMeta: storedMeta("path"), Webhooks: []admissionregistrationv1.MutatingWebhook{emptyPath},
		},
		"no webhooks":                     {ObjectMeta: storedMeta("empty")},
		"without read-only metadata":      withoutReadOnly,
		"fully populated, three webhooks": fullStoredObject(),
	}
	for name, obj := range tests {
		t.Run(name, func(t *testing.T) {
			before := obj.DeepCopy()
			m := mutating.FlattenObject(obj, nil)
			exp := expand(m)
			if len(exp.Unknown) != 0 {
				t.Errorf("unknown paths in a flattened model: %v", exp.Unknown)
			}
			reportDiff(t, "expand(mutating.FlattenObject(obj, nil)).Object", diffObjects(normalize(obj, false), normalize(exp.Object, false)))
			checkComputedMetadata(t, obj, m)
			reportDiff(t, "the input object (flatten must not change it)", diffObjects(before, obj))
		})
	}
}

// The PEM text is the model's value, unchanged: no base64 in the model.
func TestFlattenFullObjectValues(t *testing.T) {
	m := mutating.FlattenObject(fullStoredObject(), nil)
	if got := m.Webhook[0].ClientConfig[0].CABundle; !got.Equal(types.StringValue(testPEM + testPEM)) {
		t.Errorf("ca_bundle: got %s", got)
	}
	if got := m.Webhook[2].ClientConfig[0].CABundle; !got.IsNull() {
		t.Errorf("ca_bundle of a webhook without one: want null, got %s", got)
	}
	if got := m.Webhook[2].NamespaceSelector; len(got) != 0 {
		t.Errorf("namespace_selector {} without prior: want no block, got %d", len(got))
	}
	if got := m.Metadata[0].CreationTimestamp; !got.Equal(types.StringValue("2024-05-06T07:08:07Z")) {
		t.Errorf("creation_timestamp: want RFC 3339 in UTC, got %s", got)
	}
	or := m.Metadata[0].OwnerReferences
	for i, want := range [][2]types.Bool{
		{types.BoolValue(true), types.BoolValue(true)},
		{types.BoolValue(false), types.BoolNull()},
		{types.BoolNull(), types.BoolValue(false)},
		{types.BoolNull(), types.BoolNull()},
	} {
		if !or[i].BlockOwnerDeletion.Equal(want[0]) || !or[i].Controller.Equal(want[1]) {
			t.Errorf("owner_references[%d]: want block_owner_deletion %s, controller %s; got %s, %s",
				i, want[0], want[1], or[i].BlockOwnerDeletion, or[i].Controller)
		}
	}
}

// ---------------------------------------------------------------------------
// 2. model → API → model, with the model itself as prior (as after apply)

func sv(s string) types.String { return types.StringValue(s) }

func list(vs ...string) types.List {
	elems := make([]attr.Value, 0, len(vs))
	for _, v := range vs {
		elems = append(elems, types.StringValue(v))
	}
	return types.ListValueMust(types.StringType, elems)
}

func nullList() types.List { return types.ListNull(types.StringType) }

func smap(kv ...string) types.Map {
	elems := make(map[string]attr.Value, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		elems[kv[i]] = types.StringValue(kv[i+1])
	}
	return types.MapValueMust(types.StringType, elems)
}

func nullMap() types.Map { return types.MapNull(types.StringType) }

// webhookState is a webhook as it is in state after a minimal configuration:
// defaults filled in, a service, no ca_bundle.
func webhookState(name string) mutatingHook {
	return mutatingHook{webhookModel: webhookModel{
		Name:                    sv(name),
		AdmissionReviewVersions: list("v1"),
		SideEffects:             sv("None"),
		FailurePolicy:           sv(defaultFailurePolicy),
		MatchPolicy:             sv(defaultMatchPolicy),
		TimeoutSeconds:          types.Int64Value(defaultTimeoutSeconds),
		ClientConfig: []clientConfigModel{{
			URL:      types.StringNull(),
			CABundle: types.StringNull(),
			Service:  []serviceModel{{Namespace: sv("webhooks"), Name: sv("injector"), Path: types.StringNull(), Port: types.Int64Value(defaultServicePort)}},
		}},
	}, ReinvocationPolicy: sv(defaultReinvocationPolicy)}
}

func modelState(name string, hooks ...mutatingHook) resourceModel {
	return resourceModel{
		Header: header(sv(name), metadataModel{
			Name:              sv(name),
			Labels:            nullMap(),
			Annotations:       nullMap(),
			Finalizers:        nullList(),
			UID:               sv("3f0e4c52-8a41-4c8e-a7a5-0d9f3b2e1c44"),
			ResourceVersion:   sv("917"),
			Generation:        types.Int64Value(2),
			CreationTimestamp: sv("2025-01-02T03:04:05Z"),
		}),
		Webhook: hooks,
	}
}

// asPlan is the plan that leads to state m: the server-set attributes are
// unknown until the apply.
func asPlan(m resourceModel) resourceModel {
	p := m
	p.ID = types.StringUnknown()
	p.Metadata = slices.Clone(m.Metadata)
	for i := range p.Metadata {
		p.Metadata[i].UID = types.StringUnknown()
		p.Metadata[i].ResourceVersion = types.StringUnknown()
		p.Metadata[i].Generation = types.Int64Unknown()
		p.Metadata[i].CreationTimestamp = types.StringUnknown()
	}
	return p
}

// serverStore returns obj as the server would store and return it, as far as
// conversion can tell: it goes through JSON (so empty lists and maps come
// back absent), nil selectors are defaulted to {}, and the read-only metadata
// of state is set.
func serverStore(t testing.TB, obj *mwc, state resourceModel) *mwc {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	out := &mwc{}
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatal(err)
	}
	for i := range out.Webhooks {
		w := &out.Webhooks[i]
		if w.NamespaceSelector == nil {
			w.NamespaceSelector = &metav1.LabelSelector{}
		}
		if w.ObjectSelector == nil {
			w.ObjectSelector = &metav1.LabelSelector{}
		}
	}
	if len(state.Metadata) > 0 {
		md := state.Metadata[0]
		out.UID = k8stypes.UID(md.UID.ValueString())
		out.ResourceVersion = md.ResourceVersion.ValueString()
		out.Generation = md.Generation.ValueInt64()
		if !md.CreationTimestamp.IsNull() {
			ts, err := time.Parse(time.RFC3339, md.CreationTimestamp.ValueString())
			if err != nil {
				t.Fatal(err)
			}
			out.CreationTimestamp = metav1.NewTime(ts)
		}
	}
	return out
}

// checkModelRoundTrip checks that the state after applying plan is want, both
// straight from expand's object and from the object as the server returns it.
func checkModelRoundTrip(t testing.TB, want, plan resourceModel) {
	t.Helper()
	exp := expand(plan)
	stored := serverStore(t, exp.Object, want)
	reportDiff(t, "mutating.FlattenObject(stored(expand(plan)), &plan)", diffModels(want, mutating.FlattenObject(stored, &plan)))

	direct := exp.Object.DeepCopy()
	direct.ObjectMeta = stored.ObjectMeta
	reportDiff(t, "mutating.FlattenObject(expand(plan).Object, &plan)", diffModels(want, mutating.FlattenObject(direct, &plan)))
}

func TestRoundTripModelAPIModel(t *testing.T) {
	withSelectors := func(ns, obj []selectorModel) mutatingHook {
		w := webhookState("sel.example.com")
		w.NamespaceSelector, w.ObjectSelector = ns, obj
		return w
	}
	rules := webhookState("rules.example.com")
	rules.Rule = []ruleModel{
		{Operations: list("CREATE", "UPDATE"), APIGroups: list(""), APIVersions: list("v1"), Resources: list("pods", "pods/status"), Scope: sv("Namespaced")},
		{Operations: list(), APIGroups: list(), APIVersions: nullList(), Resources: list(), Scope: sv(defaultScope)},
		{Operations: nullList(), APIGroups: nullList(), APIVersions: list(), Resources: nullList(), Scope: types.StringNull()},
		{Operations: list("*"), APIGroups: list("*"), APIVersions: list("*"), Resources: list("*/*"), Scope: sv("*")},
	}

	url := webhookState("url.example.com")
	url.ClientConfig = []clientConfigModel{{URL: sv("https://hooks.example.com/mutate"), CABundle: sv(testPEM)}}

	emptyCA := webhookState("empty-ca.example.com")
	emptyCA.ClientConfig[0].CABundle = sv("")

	pathNoPort := webhookState("path.example.com")
	pathNoPort.ClientConfig[0].Service[0].Path = sv("/mutate")
	pathNoPort.ClientConfig[0].Service[0].Port = types.Int64Null()
	pathNoPort.ClientConfig[0].CABundle = sv(testPEM)

	nulls := webhookState("nulls.example.com")
	nulls.AdmissionReviewVersions = nullList()
	nulls.FailurePolicy, nulls.MatchPolicy, nulls.ReinvocationPolicy = types.StringNull(), types.StringNull(), types.StringNull()
	nulls.TimeoutSeconds = types.Int64Null()

	full := modelState("full.example.com", func() mutatingHook {
		w := webhookState("pods.example.com")
		w.AdmissionReviewVersions = list("v1", "v1beta1")
		w.SideEffects, w.FailurePolicy, w.MatchPolicy, w.ReinvocationPolicy = sv("NoneOnDryRun"), sv("Ignore"), sv("Exact"), sv("IfNeeded")
		w.TimeoutSeconds = types.Int64Value(30)
		w.ClientConfig[0].CABundle = sv(testPEM)
		w.ClientConfig[0].Service[0].Path = sv("/mutate-pods")
		w.ClientConfig[0].Service[0].Port = types.Int64Value(8443)
		w.Rule = rules.Rule
		w.NamespaceSelector = []selectorModel{{
			MatchLabels: smap("injection", "enabled"),
			MatchExpressions: []matchExpressionModel{
				{Key: sv("kubernetes.io/metadata.name"), Operator: sv("NotIn"), Values: list("kube-system")},
				{Key: sv("a"), Operator: sv("Exists"), Values: nullList()},
				{Key: sv("b"), Operator: sv("DoesNotExist"), Values: list()},
			},
		}}
		w.ObjectSelector = []selectorModel{{MatchLabels: smap("inject", "true")}}
		w.MatchConditions = []matchConditionModel{{Name: sv("c1"), Expression: sv("true")}, {Name: sv("c2"), Expression: sv("object != null")}}
		return w
	}(), url)
	full.Metadata[0].Labels = smap("team", "platform", "empty", "")
	full.Metadata[0].Annotations = smap("example.com/note", "x")
	full.Metadata[0].Finalizers = list("example.com/a", "example.com/b")
	full.Metadata[0].OwnerReferences = []ownerReferenceModel{
		{APIVersion: sv("apps/v1"), Kind: sv("Deployment"), Name: sv("d"), UID: sv("u1"), BlockOwnerDeletion: types.BoolValue(true), Controller: types.BoolValue(false)},
		{APIVersion: sv("v1"), Kind: sv("ConfigMap"), Name: sv("c"), UID: sv("u2"), BlockOwnerDeletion: types.BoolNull(), Controller: types.BoolNull()},
	}

	emptyMeta := modelState("empty-meta")
	emptyMeta.Metadata[0].Labels = smap()
	emptyMeta.Metadata[0].Annotations = smap()
	emptyMeta.Metadata[0].Finalizers = list()

	tests := map[string]resourceModel{
		"minimal with service, url null, ca_bundle null": modelState("minimal", webhookState("a.example.com")),
		"no webhooks": modelState("none"),
		"empty selector blocks kept": modelState("s1", withSelectors(
			[]selectorModel{{MatchLabels: nullMap()}},
			[]selectorModel{{MatchLabels: nullMap(), MatchExpressions: []matchExpressionModel{}}})),
		"match_labels = {} kept, alone and with expressions": modelState("s2", withSelectors(
			[]selectorModel{{MatchLabels: smap()}},
			[]selectorModel{{MatchLabels: smap(), MatchExpressions: []matchExpressionModel{{Key: sv("k"), Operator: sv("Exists"), Values: nullList()}}}})),
		"values = [] and values null kept": modelState("s3", withSelectors(
			[]selectorModel{{MatchLabels: nullMap(), MatchExpressions: []matchExpressionModel{
				{Key: sv("a"), Operator: sv("Exists"), Values: list()},
				{Key: sv("b"), Operator: sv("DoesNotExist"), Values: nullList()},
				{Key: sv("c"), Operator: sv("In"), Values: list("x", "", "y")},
			}}},
			nil)),
		"only one selector block, with labels":                modelState("s4", withSelectors(nil, []selectorModel{{MatchLabels: smap("a", "b")}})),
		"finalizers = [], labels = {}, annotations = {} kept": emptyMeta,
		"null and empty lists in rules":                       modelState("rules", rules),
		"url without service, ca_bundle PEM":                  modelState("url", url),
		`ca_bundle = "" kept`:                                 modelState("empty-ca", emptyCA),
		"service path set, port null":                         modelState("path", pathNoPort),
		"optional attributes null":                            modelState("nulls", nulls),
		"fully populated":                                     full,
	}
	for name, m := range tests {
		t.Run(name, func(t *testing.T) {
			checkModelRoundTrip(t, m, asPlan(m))
			// A refresh with the state as prior must not change it either.
			checkModelRoundTrip(t, m, m)
		})
	}
}

// A ca_bundle left out of the configuration is Optional+Computed, so the plan
// holds it unknown (and caBundlePlanModifier keeps it unknown when Terraform
// stops setting it). When nobody injects a bundle, the server stores none,
// and the state must say null, as flatten without prior and the data source
// do; TestAccMinimalShowsServerDefaults expects null too. (flatten once read
// the unknown prior as "", the empty bundle of a configuration.)
func TestFlattenCABundleUnknownInPlan(t *testing.T) {
	want := modelState("minimal", webhookState("a.example.com"))
	checkModelRoundTrip(t, want, withUnknownCABundles(asPlan(want)))

	// A bundle another controller injected is read.
	plan := withUnknownCABundles(asPlan(want))
	stored := serverStore(t, expand(plan).Object, want)
	stored.Webhooks[0].ClientConfig.CABundle = []byte(testPEM)
	if got := mutating.FlattenObject(stored, &plan).Webhook[0].ClientConfig[0].CABundle; !got.Equal(sv(testPEM)) {
		t.Errorf("injected ca_bundle: want the PEM, got %s", got)
	}
}

// ---------------------------------------------------------------------------
// 3. flatten limited to what the prior manages

func TestFlattenLimitedToPrior(t *testing.T) {
	foreign := storedWebhook("foreign.other.example.com")
	mine1, mine2 := storedWebhook("one.example.com"), storedWebhook("two.example.com")
	mine2.ClientConfig.CABundle = []byte(testPEM) // injected by someone else
	obj := &mwc{
		ObjectMeta: storedMeta("shared"),
		Webhooks:   []admissionregistrationv1.MutatingWebhook{mine1, foreign, mine2},
	}
	obj.Labels = map[string]string{"team": "platform", "added-by-others": "x", "changed": "theirs"}
	obj.Annotations = map[string]string{"cert-manager.io/inject-ca-from": "ns/cert", "kubectl.kubernetes.io/last-applied-configuration": "{}"}

	prior := modelState("shared", webhookState("one.example.com"), webhookState("two.example.com"), webhookState("gone.example.com"))
	prior.Metadata[0].Labels = smap("team", "platform", "changed", "ours", "removed-by-others", "y")
	prior.Metadata[0].Annotations = nullMap()

	t.Run("prior", func(t *testing.T) {
		got := mutating.FlattenObject(obj, &prior)
		want := modelState("shared", webhookState("one.example.com"), webhookState("two.example.com"))
		want.Metadata[0].UID = sv(string(obj.UID))
		want.Metadata[0].ResourceVersion = sv(obj.ResourceVersion)
		want.Metadata[0].Generation = types.Int64Value(obj.Generation)
		want.Metadata[0].CreationTimestamp = sv("2024-05-06T07:08:07Z")
		want.ID = sv("shared")
		// Labels of others dropped; a managed label changed or removed by
		// others shows as it is on the server, so the plan puts it back.
		want.Metadata[0].Labels = smap("team", "platform", "changed", "theirs")
		// No managed annotation: all belong to others.
		want.Metadata[0].Annotations = nullMap()
		// The bundle another controller injected is read.
		want.Webhook[1].ClientConfig[0].CABundle = sv(testPEM)
		reportDiff(t, "mutating.FlattenObject(obj, &prior)", diffModels(want, got))
	})

	t.Run("prior with empty maps", func(t *testing.T) {
		p := prior
		p.Metadata = slices.Clone(prior.Metadata)
		p.Metadata[0].Labels, p.Metadata[0].Annotations = smap(), smap()
		got := mutating.FlattenObject(obj, &p)
		for name, v := range map[string]types.Map{"labels": got.Metadata[0].Labels, "annotations": got.Metadata[0].Annotations} {
			if !v.Equal(smap()) {
				t.Errorf("%s: want {} (only others' keys on the server), got %s", name, v)
			}
		}
	})

	t.Run("no prior", func(t *testing.T) {
		got := mutating.FlattenObject(obj, nil)
		var names []string
		for _, w := range got.Webhook {
			names = append(names, w.Name.ValueString())
		}
		if want := []string{"one.example.com", "foreign.other.example.com", "two.example.com"}; !slices.Equal(names, want) {
			t.Errorf("webhooks: want %q, got %q", want, names)
		}
		if want := smap("team", "platform", "added-by-others", "x", "changed", "theirs"); !got.Metadata[0].Labels.Equal(want) {
			t.Errorf("labels: want %s, got %s", want, got.Metadata[0].Labels)
		}
		// kubectl's bookkeeping is not read without a prior (metadata.Own).
		if want := smap("cert-manager.io/inject-ca-from", "ns/cert"); !got.Metadata[0].Annotations.Equal(want) {
			t.Errorf("annotations: want %s, got %s", want, got.Metadata[0].Annotations)
		}
	})

	// After `terraform import` the state holds only the id: everything is
	// shown, so that the import records the whole object.
	t.Run("prior with only an id, as after import", func(t *testing.T) {
		got := mutating.FlattenObject(obj, &resourceModel{Header: header(sv("shared"))})
		reportDiff(t, "mutating.FlattenObject(obj, &{id})", diffModels(mutating.FlattenObject(obj, nil), got))
	})
}

// ---------------------------------------------------------------------------
// 4. expand with unknown values

func TestExpandUnknown(t *testing.T) {
	w0 := webhookState("zero.example.com")
	w0.TimeoutSeconds = types.Int64Unknown()
	w0.ClientConfig = []clientConfigModel{{URL: types.StringUnknown(), CABundle: types.StringUnknown()}}
	w0.Rule = []ruleModel{{
		Operations: list("CREATE"), APIGroups: list(""), APIVersions: list("v1"),
		Resources: types.ListValueMust(types.StringType, []attr.Value{sv("pods"), types.StringUnknown()}),
		Scope:     sv("*"),
	}}
	w0.NamespaceSelector = []selectorModel{{
		MatchLabels: types.MapValueMust(types.StringType, map[string]attr.Value{"env": types.StringUnknown(), "team": sv("a")}),
		MatchExpressions: []matchExpressionModel{{
			Key: sv("k"), Operator: sv("In"),
			Values: types.ListValueMust(types.StringType, []attr.Value{types.StringUnknown(), sv("b")}),
		}},
	}}
	w0.MatchConditions = []matchConditionModel{{Name: sv("c"), Expression: types.StringUnknown()}}

	w1 := webhookState("")
	w1.Name = types.StringUnknown()
	w1.AdmissionReviewVersions = types.ListUnknown(types.StringType)
	w1.FailurePolicy = types.StringUnknown()
	w1.ClientConfig[0].Service[0].Port = types.Int64Unknown()

	m := modelState("unknowns", w0, w1)
	m.Metadata[0].Labels = types.MapUnknown(types.StringType)
	m.Metadata[0].Annotations = types.MapValueMust(types.StringType, map[string]attr.Value{"owner": types.StringUnknown(), "fixed": sv("x")})
	m.Metadata[0].OwnerReferences = []ownerReferenceModel{{
		APIVersion: sv("v1"), Kind: sv("ConfigMap"), Name: sv("c"), UID: sv("u"),
		BlockOwnerDeletion: types.BoolValue(true), Controller: types.BoolUnknown(),
	}}
	// Computed attributes are unknown in a plan, but expand does not send
	// them, so they are not unknown API paths.
	m = asPlan(m)

	exp := expand(m)
	var got []string
	for _, p := range exp.Unknown {
		got = append(got, p.String())
	}
	sort.Strings(got)
	want := []string{
		"metadata.annotations[owner]",
		"metadata.labels",
		"metadata.ownerReferences[0].controller",
		"webhooks[0].clientConfig.caBundle",
		"webhooks[0].clientConfig.url",
		"webhooks[0].matchConditions[0].expression",
		"webhooks[0].namespaceSelector.matchExpressions[0].values[0]",
		"webhooks[0].namespaceSelector.matchLabels[env]",
		"webhooks[0].rules[0].resources[1]",
		"webhooks[0].timeoutSeconds",
		"webhooks[1].admissionReviewVersions",
		"webhooks[1].clientConfig.service.port",
		"webhooks[1].failurePolicy",
		"webhooks[1].name",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Unknown:\n  want %q\n  got  %q", want, got)
	}

	// The object holds zero values where the model is unknown, and the known
	// values around them.
	o := exp.Object
	w := o.Webhooks
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"metadata.labels nil", o.Labels == nil},
		{"metadata.annotations", reflect.DeepEqual(o.Annotations, map[string]string{"owner": "", "fixed": "x"})},
		{"ownerReferences[0]", o.OwnerReferences[0].Controller == nil && *o.OwnerReferences[0].BlockOwnerDeletion},
		{"webhooks[0].timeoutSeconds nil", w[0].TimeoutSeconds == nil},
		{"webhooks[0].clientConfig zero", w[0].ClientConfig.URL == nil && w[0].ClientConfig.CABundle == nil && w[0].ClientConfig.Service == nil},
		{"webhooks[0].rules[0].resources", slices.Equal(w[0].Rules[0].Resources, []string{"pods", ""})},
		{"webhooks[0].namespaceSelector", reflect.DeepEqual(w[0].NamespaceSelector.MatchLabels, map[string]string{"env": "", "team": "a"}) &&
			slices.Equal(w[0].NamespaceSelector.MatchExpressions[0].Values, []string{"", "b"})},
		{"webhooks[0].matchConditions[0]", w[0].MatchConditions[0] == admissionregistrationv1.MatchCondition{Name: "c"}},
		{"webhooks[1].name empty", w[1].Name == ""},
		{"webhooks[1].admissionReviewVersions nil", w[1].AdmissionReviewVersions == nil},
		{"webhooks[1].failurePolicy nil", w[1].FailurePolicy == nil},
		{"webhooks[1].clientConfig.service", w[1].ClientConfig.Service != nil && w[1].ClientConfig.Service.Port == nil && w[1].ClientConfig.Service.Name == "injector"},
	} {
		if !c.ok {
			t.Errorf("object: %s does not hold", c.name)
		}
	}

	t.Run("known model", func(t *testing.T) {
		if exp := expand(modelState("known", webhookState("a.example.com"))); len(exp.Unknown) != 0 {
			t.Errorf("Unknown: want none, got %v", exp.Unknown)
		}
	})

	t.Run("unknownAt", func(t *testing.T) {
		for _, c := range []struct {
			path string
			want bool
		}{
			// the path itself
			{"webhooks[0].rules[0].resources[1]", true},
			{"metadata.labels", true},
			{"webhooks[1].name", true},
			// children of an unknown path
			{"metadata.labels[team]", true},
			{"metadata.labels[app.kubernetes.io/name]", true},
			{"webhooks[0].clientConfig.url.host", true},
			// ancestors of an unknown path
			{"webhooks[0].rules[0].resources", true},
			{"webhooks[0].rules[0]", true},
			{"webhooks[0].rules", true},
			{"webhooks[0]", true},
			{"webhooks", true},
			{"metadata", true},
			{"webhooks[1]", true},
			{"webhooks[0].clientConfig", true},
			// siblings and look-alikes
			{"webhooks[0].rulesX", false},
			{"webhooks[0].rules[0].resourcesX", false},
			{"webhooks[0].rules[0].resources[0]", false},
			{"webhooks[0].rules[0].resources[10]", false},
			{"webhooks[0].rules[0].operations", false},
			{"webhooks[0].rules[1]", false},
			{"webhooks[0].rules[10]", false},
			{"webhooks[10]", false},
			{"webhooks[10].name", false},
			{"webhooks[1].sideEffects", false},
			{"webhooks[1].nameX", false},
			{"webhooks[0].clientConfig.urlX", false},
			{"webhooks[0].clientConfig.service", false},
			{"webhooks[0].namespaceSelector.matchLabels[team]", false},
			{"webhooks[0].namespaceSelector.matchLabels[env]", true},
			{"webhooks[0].namespaceSelector.matchLabels[envX]", false},
			{"webhooks[0].namespaceSelector.matchExpressions[0].values[1]", false},
			{"webhooks[0].namespaceSelector.matchExpressions[0].key", false},
			{"webhooks[0].objectSelector", false},
			{"metadata.labelsX", false},
			{"metadata.name", false},
			{"metadata.annotations[fixed]", false},
			{"metadata.annotations[owner]", true},
			{"metadata.annotations", true},
			{"webhooks[2]", false},
			{"webhook", false},
			{"meta", false},
		} {
			if got := exp.UnknownAt(c.path); got != c.want {
				t.Errorf("unknownAt(%q): want %v, got %v", c.path, c.want, got)
			}
		}
	})

	t.Run("unknownAt single path", func(t *testing.T) {
		e := &core.Expansion[configuration]{Unknown: []*field.Path{field.NewPath("webhooks").Index(1).Child("rules")}}
		for _, c := range []struct {
			path string
			want bool
		}{
			{"webhooks[1].rules", true},
			{"webhooks[1].rules[0].scope", true},
			{"webhooks[1]", true},
			{"webhooks", true},
			{"webhooks[1].rulesX", false},
			{"webhooks[1].rule", false},
			{"webhooks[10].rules", false},
			{"webhooks[10]", false},
			{"webhooks[0].rules", false},
		} {
			if got := e.UnknownAt(c.path); got != c.want {
				t.Errorf("unknownAt(%q): want %v, got %v", c.path, c.want, got)
			}
		}
		if (&core.Expansion[configuration]{}).UnknownAt("webhooks") {
			t.Error("unknownAt with no unknown path: want false")
		}
	})
}

// The read after an import reads as "" the ca_bundle of a webhook without
// one whose caBundle the configuration kubectl apply last applied spells as
// "", and no other: not one the server stores, not one the manifest leaves
// out, not without the annotation (a create, Helm, a data source).
func TestImportedEmptyCABundles(t *testing.T) {
	spelled, left, injected := storedWebhook("spelled.example.com"), storedWebhook("left.example.com"), storedWebhook("injected.example.com")
	injected.ClientConfig.CABundle = []byte(testPEM)
	obj := &mwc{ObjectMeta: storedMeta("adopted"), Webhooks: []admissionregistrationv1.MutatingWebhook{spelled, left, injected}}
	obj.Annotations = map[string]string{"kubectl.kubernetes.io/last-applied-configuration": `{"apiVersion":"admissionregistration.k8s.io/v1",` +
		`"kind":"MutatingWebhookConfiguration","webhooks":[{"name":"spelled.example.com","clientConfig":{"caBundle":""}},` +
		`{"name":"left.example.com","clientConfig":{}},{"name":"injected.example.com","clientConfig":{"caBundle":""}}]}` + "\n"}

	m := mutating.FlattenObject(obj, nil)
	mutating.Imported(obj, &m)
	for i, want := range []types.String{types.StringValue(""), types.StringNull(), types.StringValue(testPEM)} {
		if got := m.Webhook[i].ClientConfig[0].CABundle; !got.Equal(want) {
			t.Errorf("%s: ca_bundle %s, want %s", m.Webhook[i].Name.ValueString(), got, want)
		}
	}
	// FlattenObject alone (a data source, a list result) reads none.
	if again := mutating.FlattenObject(obj, nil); !again.Webhook[0].ClientConfig[0].CABundle.IsNull() {
		t.Errorf("FlattenObject reads the empty bundle as %s without the import", again.Webhook[0].ClientConfig[0].CABundle)
	}
	for name, ann := range map[string]map[string]string{
		"no annotation":      nil,
		"not JSON":           {"kubectl.kubernetes.io/last-applied-configuration": "{"},
		"another webhook's":  {"kubectl.kubernetes.io/last-applied-configuration": `{"webhooks":[{"name":"other","clientConfig":{"caBundle":""}}]}`},
		"a caBundle of null": {"kubectl.kubernetes.io/last-applied-configuration": `{"webhooks":[{"name":"spelled.example.com","clientConfig":{"caBundle":null}}]}`},
	} {
		o := obj.DeepCopy()
		o.Annotations = ann
		m := mutating.FlattenObject(o, nil)
		mutating.Imported(o, &m)
		if got := m.Webhook[0].ClientConfig[0].CABundle; !got.IsNull() {
			t.Errorf("%s: ca_bundle %s, want null", name, got)
		}
	}
}
