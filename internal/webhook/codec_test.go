package webhook

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/core"
)

// The codec (codec.go) must read and write exactly what the framework's
// State.Get and State.Set do: these tests compare the two on models of every
// shape the fuzz generator makes (null, unknown and empty values, blocks
// present and absent), for both kinds.

func schemaOf[H hook](t testing.TB, k *core.Description[objectModel[H], configuration]) resource.SchemaResponse {
	t.Helper()
	var resp resource.SchemaResponse
	resourceOf(k).Schema(context.Background(), resource.SchemaRequest{}, &resp)
	return resp
}

// checkCodec compares the codec with the framework on m: the value each
// stores, and the model each reads back from that value.
func checkCodec[H hook](t testing.TB, k *core.Description[objectModel[H], configuration], m resourceState[H]) {
	t.Helper()
	ctx := context.Background()
	r := resourceOf(k)
	sch := schemaOf(t, k).Schema

	want := tfsdk.State{Schema: sch}
	setDiags := want.Set(ctx, m)
	got, encodeDiags := r.Encode(ctx, &m.objectModel, m.Timeouts)
	switch {
	case setDiags.HasError() && !encodeDiags.HasError():
		t.Fatalf("the codec encoded a model State.Set refuses (%v): %v", setDiags, got)
	case setDiags.HasError():
		return // both refuse it
	case encodeDiags.HasError():
		t.Fatalf("the codec cannot encode a model State.Set accepts (%v): %v", encodeDiags, want.Raw)
	case !got.Equal(want.Raw):
		diffs, _ := got.Diff(want.Raw)
		t.Fatalf("codec and State.Set store different values: %v", diffs)
	}

	var fromFramework, fromCodec resourceState[H]
	getDiags := want.Get(ctx, &fromFramework)
	var diags diagnostics
	fromCodec.objectModel, fromCodec.Timeouts, diags = r.Decode(ctx, want.Raw)
	if diags.HasError() {
		t.Fatalf("the codec cannot decode a value State.Get reads (State.Get: %v): %v", getDiags, diags)
	}
	if getDiags.HasError() {
		t.Fatalf("State.Get fails where the codec reads: %v", getDiags)
	}
	if !reflect.DeepEqual(fromFramework, fromCodec) {
		t.Fatalf("codec and State.Get read different models:\n%#v\n%#v", fromFramework, fromCodec)
	}
}

func FuzzCodec(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		m := (&fuzzInput{data: data}).model()
		for _, mm := range []resourceModel{m, asPlan(m), withUnknownCABundles(asPlan(m))} {
			checkCodec(t, mutating, resourceState[mutatingHook]{objectModel: mm, Timeouts: nullTimeouts(t)})
			v := objectModel[webhookModel]{Header: mm.Header}
			for _, h := range mm.Webhook {
				v.Webhook = append(v.Webhook, h.webhookModel)
			}
			checkCodec(t, validating, resourceState[webhookModel]{objectModel: v, Timeouts: nullTimeouts(t)})
		}
	})
}

func nullTimeouts(t testing.TB) (v timeoutsValue) {
	t.Helper()
	sch := schemaOf(t, mutating).Schema
	typ := sch.Blocks["timeouts"].Type()
	av, err := typ.ValueFromTerraform(context.Background(), tftypes.NewValue(typ.TerraformType(context.Background()), nil))
	if err != nil {
		t.Fatal(err)
	}
	v, ok := av.(timeoutsValue)
	if !ok {
		t.Fatalf("the timeouts block's value is a %T", av)
	}
	return v
}

// TestCodecTimeoutsAndUnknownBlocks covers what the fuzz does not: a
// timeouts block with values, and a value the model cannot hold (a webhook
// block list known only at apply, which Config.Get cannot read into a slice
// either).
func TestCodecTimeoutsAndUnknownBlocks(t *testing.T) {
	ctx := context.Background()
	m := resourceState[mutatingHook]{objectModel: modelState("a.example.com", webhookState("w.example.com")), Timeouts: nullTimeouts(t)}
	checkCodec(t, mutating, m)

	sch := schemaOf(t, mutating).Schema
	state := tfsdk.State{Schema: sch}
	if diags := state.Set(ctx, m); diags.HasError() {
		t.Fatal(diags)
	}
	withTimeouts, err := tftypes.Transform(state.Raw, func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if p.Equal(tftypes.NewAttributePath().WithAttributeName("timeouts").WithAttributeName("read")) {
			return tftypes.NewValue(tftypes.String, "3m"), nil
		}
		if p.Equal(tftypes.NewAttributePath().WithAttributeName("timeouts")) && v.IsNull() {
			typ, ok := v.Type().(tftypes.Object)
			if !ok {
				return v, fmt.Errorf("timeouts is a %s", v.Type())
			}
			vals := map[string]tftypes.Value{}
			for name, at := range typ.AttributeTypes {
				vals[name] = tftypes.NewValue(at, nil)
			}
			return tftypes.NewValue(typ, vals), nil
		}
		return v, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	state.Raw = withTimeouts
	var withT resourceState[mutatingHook]
	if diags := state.Get(ctx, &withT); diags.HasError() {
		t.Fatal(diags)
	}
	checkCodec(t, mutating, withT)

	unknownHooks, err := tftypes.Transform(state.Raw, func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if p.Equal(tftypes.NewAttributePath().WithAttributeName("webhook")) {
			return tftypes.NewValue(v.Type(), tftypes.UnknownValue), nil
		}
		return v, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg := tfsdk.Config{Schema: sch, Raw: unknownHooks}
	var viaFramework resourceState[mutatingHook]
	if diags := cfg.Get(ctx, &viaFramework); !diags.HasError() {
		t.Fatal("Config.Get reads an unknown webhook block list into a slice")
	}
	got, _, diags := resourceOf(mutating).Decode(ctx, unknownHooks)
	if !diags.HasError() || len(got.Webhook) != 0 || !got.ID.IsNull() {
		t.Fatalf("an unknown webhook block list: diagnostics %v, model %+v; want an error and an empty model", diags, got)
	}
}

type (
	diagnostics   = diag.Diagnostics
	timeoutsValue = timeouts.Value
)
