package policy

import (
	"context"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/core"
)

// The kinds of this family are read and written with the same codec as the
// webhooks (object's codec.go): what it stores and reads back must be what
// the framework's State.Set and State.Get do, for each kind, the
// ValidatingAdmissionPolicy's status included.

type validatingPolicyState struct {
	validatingPolicyModel
	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

type validatingBindingState struct {
	validatingBindingModel
	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

type policyState[S any] struct {
	policyModel[S]
	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

func checkCodec[M core.Model, T, St any](t *testing.T, k *core.Description[M, T], obj *T, whole func(M, timeouts.Value) St, part func(St) M) {
	t.Helper()
	ctx := context.Background()
	r, ok := core.NewResource(k)().(*core.Resource[M, T])
	if !ok {
		t.Fatal("NewResource made no *core.Resource")
	}
	var s resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &s)
	timeoutsType := s.Schema.Blocks["timeouts"].Type()
	tv, err := timeoutsType.ValueFromTerraform(ctx, tftypes.NewValue(timeoutsType.TerraformType(ctx), nil))
	if err != nil {
		t.Fatal(err)
	}
	to, ok := tv.(timeouts.Value)
	if !ok {
		t.Fatalf("the timeouts block's value is a %T", tv)
	}
	m := k.FlattenObject(obj, nil)
	st := whole(m, to)

	want := tfsdk.State{Schema: s.Schema}
	if diags := want.Set(ctx, st); diags.HasError() {
		t.Fatal(diags)
	}
	got, diags := r.Encode(ctx, &m, to)
	if diags.HasError() {
		t.Fatal(diags)
	}
	if !got.Equal(want.Raw) {
		d, _ := got.Diff(want.Raw)
		t.Fatalf("codec and State.Set store different values: %v", d)
	}
	var fromFramework St
	if diags := want.Get(ctx, &fromFramework); diags.HasError() {
		t.Fatal(diags)
	}
	fromCodec, _, diags := r.Decode(ctx, want.Raw)
	if diags.HasError() {
		t.Fatal(diags)
	}
	if !reflect.DeepEqual(part(fromFramework), fromCodec) {
		t.Fatalf("codec and State.Get read different models:\n%#v\n%#v", part(fromFramework), fromCodec)
	}
}

func TestCodecMatchesFramework(t *testing.T) {
	meta := metav1.ObjectMeta{Name: "p.example.com", Labels: map[string]string{"team": "a"}, UID: "u", ResourceVersion: "7", Generation: 2}
	t.Run("ValidatingAdmissionPolicy", func(t *testing.T) {
		p := &validatingPolicy{ObjectMeta: meta, Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: fullMatch,
			Validations:      []admissionregistrationv1.Validation{{Expression: "true", Message: "m"}},
		}, Status: admissionregistrationv1.ValidatingAdmissionPolicyStatus{ObservedGeneration: 2, TypeChecking: &admissionregistrationv1.TypeChecking{
			ExpressionWarnings: []admissionregistrationv1.ExpressionWarning{{FieldRef: "spec.validations[0].expression", Warning: "w"}},
		}}}
		checkCodec(t, validatingPolicies, p,
			func(m validatingPolicyModel, to timeouts.Value) validatingPolicyState {
				return validatingPolicyState{m, to}
			},
			func(s validatingPolicyState) validatingPolicyModel { return s.validatingPolicyModel })
	})
	t.Run("ValidatingAdmissionPolicyBinding", func(t *testing.T) {
		b := &validatingBinding{ObjectMeta: meta, Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName: "p", MatchResources: fullMatch, ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		}}
		checkCodec(t, validatingBindings, b,
			func(m validatingBindingModel, to timeouts.Value) validatingBindingState {
				return validatingBindingState{m, to}
			},
			func(s validatingBindingState) validatingBindingModel { return s.validatingBindingModel })
	})
	t.Run("MutatingAdmissionPolicy", func(t *testing.T) {
		p := &mutatingPolicy{ObjectMeta: meta, Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			MatchConstraints:   fullMatch,
			ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
			Mutations: []admissionregistrationv1.Mutation{{PatchType: admissionregistrationv1.PatchTypeJSONPatch,
				JSONPatch: &admissionregistrationv1.JSONPatch{Expression: "[]"}}},
		}}
		checkCodec(t, mutatingPolicies, p,
			func(m policyModel[mutatingPolicySpec], to timeouts.Value) policyState[mutatingPolicySpec] {
				return policyState[mutatingPolicySpec]{m, to}
			},
			func(s policyState[mutatingPolicySpec]) policyModel[mutatingPolicySpec] { return s.policyModel })
	})
	t.Run("MutatingAdmissionPolicyBinding", func(t *testing.T) {
		b := &mutatingBinding{ObjectMeta: meta, Spec: admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: "p"}}
		checkCodec(t, mutatingBindings, b,
			func(m policyModel[bindingBase], to timeouts.Value) policyState[bindingBase] {
				return policyState[bindingBase]{m, to}
			},
			func(s policyState[bindingBase]) policyModel[bindingBase] { return s.policyModel })
	})
}
