package core

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	admissionregistrationv1ac "k8s.io/client-go/applyconfigurations/admissionregistration/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/metadata"
)

type testPolicy = admissionregistrationv1.ValidatingAdmissionPolicy

// testKind is a description with what the pure steps need.
var testKind = &Description[Header, testPolicy]{
	TypeName: "validating_admission_policy",
	API:      API[testPolicy]{Kind: "ValidatingAdmissionPolicy", Resource: "validatingadmissionpolicies"},
	Meta:     func(p *testPolicy) *metav1.ObjectMeta { return &p.ObjectMeta },
}

func policiesNamed(names ...string) []testPolicy {
	out := make([]testPolicy, 0, len(names))
	for _, n := range names {
		out = append(out, testPolicy{ObjectMeta: metav1.ObjectMeta{Name: n}})
	}
	return out
}

func names(ps []testPolicy) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

// List results are sorted by name, filtered by an exact name, and cut at
// the limit Terraform asks for.
func TestPick(t *testing.T) {
	for _, tc := range []struct {
		name  types.String
		limit int64
		want  []string
	}{
		{types.StringNull(), 0, []string{"a", "a.b", "b", "c"}},
		{types.StringNull(), 2, []string{"a", "a.b"}},
		{types.StringNull(), 10, []string{"a", "a.b", "b", "c"}},
		{types.StringNull(), -1, []string{"a", "a.b", "b", "c"}},
		{types.StringValue("b"), 0, []string{"b"}},
		{types.StringValue("a"), 0, []string{"a"}}, // a name, not a prefix
		{types.StringValue("d"), 0, []string{}},
		{types.StringValue(""), 0, []string{}},
	} {
		got := names(Pick(testKind, policiesNamed("c", "a.b", "b", "a"), tc.name, tc.limit))
		if !slices.Equal(got, tc.want) {
			t.Errorf("Pick(name %s, limit %d) = %v, want %v", tc.name, tc.limit, got, tc.want)
		}
	}
}

// A value not known yet hides the checks on it, on what holds it and on
// what lies under it, and on nothing else.
func TestUnknownAt(t *testing.T) {
	e := &Expansion[testPolicy]{Unknown: []*field.Path{
		field.NewPath("spec", "validations").Index(1).Child("expression"),
		field.NewPath("metadata", "labels"),
	}}
	for p, want := range map[string]bool{
		"spec.validations[1].expression":  true,
		"spec.validations[1]":             true,
		"spec.validations":                true,
		"spec":                            true,
		"spec.validations[1].expressionX": false,
		"spec.validations[10].expression": false,
		"spec.validations[0].expression":  false,
		"metadata.labels[team]":           true,
		"metadata.labelsX":                false,
		"metadata.name":                   false,
		"":                                false,
	} {
		if got := e.UnknownAt(p); got != want {
			t.Errorf("UnknownAt(%q) = %v, want %v", p, got, want)
		}
	}
	if (&Expansion[testPolicy]{}).UnknownAt("spec") {
		t.Error("UnknownAt with nothing unknown: want false")
	}
}

func TestHeaderName(t *testing.T) {
	meta := []metadata.Model{{Name: types.StringValue("from-metadata")}}
	for _, tc := range []struct {
		h    Header
		want string
	}{
		{Header{ID: types.StringValue("from-id"), Metadata: meta}, "from-id"},
		{Header{ID: types.StringUnknown(), Metadata: meta}, "from-metadata"},
		{Header{ID: types.StringNull()}, ""},
	} {
		if got := tc.h.Name(); got != tc.want {
			t.Errorf("%+v: Name() = %q, want %q", tc.h, got, tc.want)
		}
	}
}

func identity(t *testing.T, name *string) *tfsdk.ResourceIdentity {
	t.Helper()
	ctx := context.Background()
	s := identityschema.Schema{Attributes: map[string]identityschema.Attribute{"name": identityschema.StringAttribute{RequiredForImport: true}}}
	typ := s.Type().TerraformType(ctx)
	id := &tfsdk.ResourceIdentity{Schema: s, Raw: tftypes.NewValue(typ, nil)}
	if name != nil {
		var diags diag.Diagnostics
		SetIdentity(ctx, id, *name, &diags)
		if diags.HasError() {
			t.Fatal(diags)
		}
	}
	return id
}

// A create reads the cluster first unless its plan found no object of
// that name: a planned generation or a planned identity that names the
// object.
func TestPlannedAbsent(t *testing.T) {
	ctx := context.Background()
	name := "p.example.com"
	other := "other.example.com"
	header := func(generation types.Int64, name string) Header {
		return Header{ID: types.StringUnknown(), Metadata: []metadata.Model{{Name: types.StringValue(name), Generation: generation}}}
	}
	unknown := header(types.Int64Unknown(), name)
	for _, c := range []struct {
		what     string
		planned  Header
		identity *tfsdk.ResourceIdentity
		want     bool
	}{
		{"no generation, no identity (Terraform before 1.12, the plan could not reach the server)", unknown, nil, false},
		{"a null planned identity", unknown, identity(t, nil), false},
		{"a planned identity that names the object", unknown, identity(t, &name), true},
		{"a planned identity of another name (renamed since the plan)", unknown, identity(t, &other), false},
		{"a planned generation (any Terraform)", header(types.Int64Value(1), name), nil, true},
		{"a null planned generation", header(types.Int64Null(), name), nil, false},
		{"a planned generation of 0", header(types.Int64Value(0), name), nil, false},
		{"no name", header(types.Int64Value(1), ""), nil, false},
		{"no metadata block", Header{ID: types.StringValue(name)}, identity(t, &name), false},
	} {
		if got := plannedAbsent(ctx, c.planned, c.identity); got != c.want {
			t.Errorf("%s: plannedAbsent = %v, want %v", c.what, got, c.want)
		}
	}
	id := identity(t, &name)
	clearPlannedIdentity(ctx, id)
	if !id.Raw.IsNull() {
		t.Errorf("clearPlannedIdentity left %v", id.Raw)
	}
}

func TestPlural(t *testing.T) {
	for in, want := range map[string]string{
		"ValidatingAdmissionPolicy":         "ValidatingAdmissionPolicies",
		"MutatingWebhookConfiguration":      "MutatingWebhookConfigurations",
		"validating_admission_policy":       "validating_admission_policies",
		"mutating_admission_policy_binding": "mutating_admission_policy_bindings",
	} {
		if got := Plural(in); got != want {
			t.Errorf("Plural(%q) = %q, want %q", in, got, want)
		}
	}
}

// A failed list names the kind in the plural and the label selector as a
// selector; a selector the server rejects is an error on label_selector.
func TestListErrors(t *testing.T) {
	var diags diag.Diagnostics
	for _, tc := range []struct {
		selector, want string
	}{
		{"app.kubernetes.io/managed-by=terraform,environment!=test", `Cannot list ValidatingAdmissionPolicies with label selector "app.kubernetes.io/managed-by=terraform,environment!=test"`},
		{"", "Cannot list ValidatingAdmissionPolicies"},
	} {
		diags = nil
		testKind.listError(tc.selector, errors.New("connection refused"), &diags)
		if len(diags) != 1 || diags[0].Summary() != tc.want || !strings.Contains(diags[0].Detail(), "connection refused") {
			t.Errorf("selector %q: %v, want %q", tc.selector, diags, tc.want)
		}
	}
	diags = nil
	testKind.listError("app in (a", apierrors.NewBadRequest("unable to parse requirement"), &diags)
	if len(diags) != 1 || diags[0].Summary() != "Invalid label selector" {
		t.Errorf("a selector the server rejects: %v", diags)
	}
}

// The apply configuration of an object carries its kind and API version
// and every field set; As converts between forms with the same JSON, and
// leaves an object already in the form asked for as it is.
func TestApplyConfigurationAndAs(t *testing.T) {
	fail := admissionregistrationv1.Fail
	p := &testPolicy{ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: map[string]string{"team": "a"}},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{FailurePolicy: &fail}}
	ac, err := ApplyConfiguration[admissionregistrationv1ac.ValidatingAdmissionPolicyApplyConfiguration](p, "ValidatingAdmissionPolicy")
	if err != nil {
		t.Fatal(err)
	}
	if *ac.Kind != "ValidatingAdmissionPolicy" || *ac.APIVersion != "admissionregistration.k8s.io/v1" || *ac.Name != "p" ||
		ac.Labels["team"] != "a" || *ac.Spec.FailurePolicy != fail {
		t.Errorf("apply configuration %+v", ac)
	}
	empty, err := ApplyConfiguration[admissionregistrationv1ac.ValidatingAdmissionPolicyApplyConfiguration](&testPolicy{}, "ValidatingAdmissionPolicy")
	if err != nil || *empty.Kind != "ValidatingAdmissionPolicy" || empty.Name != nil {
		t.Errorf("apply configuration of an empty object: %+v, %v", empty, err)
	}
	if same, _ := As[testPolicy](p); same != p {
		t.Error("As copied an object already in the form asked for")
	}
	b, err := As[admissionregistrationv1.MutatingAdmissionPolicy](p)
	if err != nil || b.Name != "p" || *b.Spec.FailurePolicy != fail {
		t.Errorf("As: %+v, %v", b, err)
	}
}

// UnknownUnder finds unknown values at or under a path, but not beside it
// ("webhooks[1]" is not under "webhooks[10]"), and leaves out the paths
// that end as told.
func TestUnknownUnder(t *testing.T) {
	env := PlanEnv{Unknown: []*field.Path{
		field.NewPath("webhooks").Index(10).Child("clientConfig", "caBundle"),
		field.NewPath("spec", "paramRef", "name"),
	}}
	for _, tc := range []struct {
		prefix string
		ignore []string
		want   bool
	}{
		{"webhooks", nil, true},
		{"webhooks[10]", nil, true},
		{"webhooks[1]", nil, false},
		{"webhooks", []string{".clientConfig.caBundle"}, false},
		{"spec", nil, true},
		{"spec.paramRef.name", nil, true},
		{"spec.matchResources", nil, false},
		{"metadata", nil, false},
	} {
		if got := env.UnknownUnder(tc.prefix, tc.ignore...); got != tc.want {
			t.Errorf("UnknownUnder(%q, %q) = %v, want %v", tc.prefix, tc.ignore, got, tc.want)
		}
	}
}
