package protocol_test

import (
	"context"
	"encoding/json"
	"math/big"
	"sort"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/protocol"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/provider"
)

// planValues builds, for a resource schema, a prior state that sets every
// attribute and holds two of every list block, and the configuration that
// leads to it: computed-only attributes left out and, with omitDefaults,
// every attribute with a default left out too (the state then holds the
// default, as after an apply).
type planValues struct {
	ctx          context.Context
	omitDefaults bool
	// otherThanDefault puts a value other than the default into the state
	// where the configuration leaves the attribute out (a plan that does
	// change something: the default applies).
	otherThanDefault bool
}

func (g planValues) object(p path.Path, attrs map[string]schema.Attribute, blocks map[string]schema.Block, state bool) tftypes.Value {
	typ, ok := schema.Schema{Attributes: attrs, Blocks: blocks}.Type().TerraformType(g.ctx).(tftypes.Object)
	if !ok {
		panic("an object of attributes and blocks is not of an object type")
	}
	vals := map[string]tftypes.Value{}
	for name, a := range attrs {
		t := typ.AttributeTypes[name]
		has, _ := protocol.HasDefault(a)
		switch {
		case !state && a.IsComputed() && !a.IsOptional():
			vals[name] = tftypes.NewValue(t, nil)
		case has && g.omitDefaults && !state:
			vals[name] = tftypes.NewValue(t, nil)
		case has && g.omitDefaults && !g.otherThanDefault:
			v, ok := protocol.DefaultValue(g.ctx, p.AtName(name), a)
			if !ok {
				panic("no default value at " + p.AtName(name).String())
			}
			vals[name] = v
		default:
			vals[name] = sample(t, name)
		}
	}
	for name, b := range blocks {
		t := typ.AttributeTypes[name]
		switch b := b.(type) {
		case schema.ListNestedBlock:
			var elems []tftypes.Value
			for i := range 2 {
				elems = append(elems, g.object(p.AtName(name).AtListIndex(i), b.NestedObject.Attributes, b.NestedObject.Blocks, state))
			}
			vals[name] = tftypes.NewValue(t, elems)
		case schema.SingleNestedBlock:
			vals[name] = g.object(p.AtName(name), b.Attributes, b.Blocks, state)
		default:
			panic("block type not sampled: " + name)
		}
	}
	return tftypes.NewValue(typ, vals)
}

// sample is a known value of type t (not a valid one for the API server:
// a plan that changes nothing does not validate).
func sample(t tftypes.Type, name string) tftypes.Value {
	switch {
	case t.Is(tftypes.String):
		return tftypes.NewValue(t, "v-"+name)
	case t.Is(tftypes.Number):
		return tftypes.NewValue(t, big.NewFloat(7))
	case t.Is(tftypes.Bool):
		return tftypes.NewValue(t, true)
	}
	switch t := t.(type) {
	case tftypes.List:
		return tftypes.NewValue(t, []tftypes.Value{sample(t.ElementType, name+"-0"), sample(t.ElementType, name+"-1")})
	case tftypes.Set:
		return tftypes.NewValue(t, []tftypes.Value{sample(t.ElementType, name+"-0"), sample(t.ElementType, name+"-1")})
	case tftypes.Map:
		return tftypes.NewValue(t, map[string]tftypes.Value{"k": sample(t.ElementType, name+"-k")})
	case tftypes.Object:
		vals := map[string]tftypes.Value{}
		for n, at := range t.AttributeTypes {
			vals[n] = sample(at, n)
		}
		return tftypes.NewValue(t, vals)
	}
	panic("type not sampled: " + t.String())
}

func dynamic(t *testing.T, typ tftypes.Type, v tftypes.Value) *tfprotov6.DynamicValue {
	t.Helper()
	dv, err := tfprotov6.NewDynamicValue(typ, v)
	if err != nil {
		t.Fatal(err)
	}
	return &dv
}

// The plans that the server answers without a walk over their values (a
// plan that changes nothing, a destroy) get the framework's answer, for
// every resource type of the provider: the same planned state, private
// state and identity, no replacement, no diagnostic, with and without a
// prior identity (Terraform before 1.12 sends none). Plans that do change
// something (a default that applies, a proposed state other than the prior
// one) are not answered so; TestFastPlansAnswerAsTheFramework compares
// those.
func TestUnchangedPlansAnswerAsTheFramework(t *testing.T) {
	ctx := context.Background()
	fw := providerserver.NewProtocol6(provider.New("test")())()
	ours := newServer(t)
	schemas := resourceSchemas(t)
	idResp, err := fw.GetResourceIdentitySchemas(ctx, &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err != nil {
		t.Fatal(err)
	}
	typeNames := make([]string, 0, len(schemas))
	for name := range schemas {
		typeNames = append(typeNames, name)
	}
	sort.Strings(typeNames)
	if len(typeNames) < 6 {
		t.Fatalf("%d resource types, want the six kinds: %v", len(typeNames), typeNames)
	}
	private, err := json.Marshal(map[string][]byte{"managed": []byte(`["w0"]`), "other": []byte(`{"a":1}`)})
	if err != nil {
		t.Fatal(err)
	}
	for _, typeName := range typeNames {
		sch := schemas[typeName]
		typ := sch.Type().TerraformType(ctx)
		idSchema := idResp.IdentitySchemas[typeName]
		if idSchema == nil {
			t.Fatalf("%s: no identity schema", typeName)
		}
		idType := idSchema.ValueType()
		identity := &tfprotov6.ResourceIdentityData{IdentityData: dynamic(t, idType, sample(idType, "id"))}
		null := dynamic(t, typ, tftypes.NewValue(typ, nil))

		for _, c := range []struct {
			name            string
			values          planValues
			destroy, change bool
			private         []byte
			// noIdentity sends no prior identity, as Terraform before
			// 1.12 and OpenTofu before 1.12 do.
			noIdentity bool
		}{
			{name: "no change", values: planValues{}, private: private},
			{name: "no change, no prior identity", values: planValues{}, private: private, noIdentity: true},
			{name: "destroy, no prior identity", values: planValues{}, destroy: true, noIdentity: true},
			{name: "no change, defaults left out", values: planValues{omitDefaults: true}},
			{name: "a default applies", values: planValues{omitDefaults: true, otherThanDefault: true}, change: true},
			{name: "destroy", values: planValues{}, destroy: true, private: private},
			// Private state the framework refuses (an empty value is no
			// JSON) is the framework's to report.
			{name: "bad private state", values: planValues{}, private: []byte(`{"k":""}`), change: true},
		} {
			t.Run(typeName+"/"+c.name, func(t *testing.T) {
				c.values.ctx = ctx
				state := c.values.object(path.Empty(), sch.Attributes, sch.Blocks, true)
				cfg := c.values.object(path.Empty(), sch.Attributes, sch.Blocks, false)
				req := func() *tfprotov6.PlanResourceChangeRequest {
					r := &tfprotov6.PlanResourceChangeRequest{
						TypeName: typeName, PriorState: dynamic(t, typ, state), ProposedNewState: dynamic(t, typ, state),
						Config: dynamic(t, typ, cfg), PriorPrivate: c.private, PriorIdentity: identity,
					}
					if c.destroy {
						r.ProposedNewState, r.Config = null, null
					}
					if c.noIdentity {
						r.PriorIdentity = nil
					}
					return r
				}
				want, err := fw.PlanResourceChange(ctx, req())
				if err != nil {
					t.Fatal(err)
				}
				for _, d := range want.Diagnostics {
					t.Logf("framework: %s: %s: %s", d.Severity, d.Summary, d.Detail)
				}
				fast := ours.PlanUnchangedFast(ctx, req())
				if c.change {
					if fast != nil {
						t.Fatal("answered without the framework a plan that changes the state (or that the framework refuses)")
					}
					got, err := ours.PlanResourceChange(ctx, req())
					if err != nil {
						t.Fatal(err)
					}
					if len(got.Diagnostics) != len(want.Diagnostics) {
						t.Fatalf("%d diagnostics, the framework %d", len(got.Diagnostics), len(want.Diagnostics))
					}
					if want.PlannedState == nil {
						return
					}
					wantPlanned, err := want.PlannedState.Unmarshal(typ)
					if err != nil {
						t.Fatal(err)
					}
					if wantPlanned.Equal(state) {
						t.Fatal("the framework plans no change: the case does not test what it should")
					}
					if gotPlanned, err := got.PlannedState.Unmarshal(typ); err != nil || !gotPlanned.Equal(wantPlanned) {
						t.Fatalf("planned state %v (%v), want the framework's %v", gotPlanned, err, wantPlanned)
					}
					return
				}
				wantPlanned, err := want.PlannedState.Unmarshal(typ)
				if err != nil {
					t.Fatal(err)
				}
				if fast == nil {
					t.Fatal("the framework answered a plan that changes nothing (or a destroy): the fast path did not apply")
				}
				got, err := ours.PlanResourceChange(ctx, req())
				if err != nil {
					t.Fatal(err)
				}
				if len(want.Diagnostics) != len(got.Diagnostics) {
					t.Errorf("%d diagnostics, the framework %d", len(got.Diagnostics), len(want.Diagnostics))
				}
				gotPlanned, err := got.PlannedState.Unmarshal(typ)
				if err != nil {
					t.Fatal(err)
				}
				if !gotPlanned.Equal(wantPlanned) {
					t.Errorf("planned state %v, want the framework's %v", gotPlanned, wantPlanned)
				}
				if !c.destroy && !gotPlanned.Equal(state) {
					t.Errorf("planned state %v, want the prior state", gotPlanned)
				}
				if string(got.PlannedPrivate) != string(want.PlannedPrivate) {
					t.Errorf("planned private %q, want the framework's %q", got.PlannedPrivate, want.PlannedPrivate)
				}
				if len(got.RequiresReplace) != 0 || len(want.RequiresReplace) != 0 {
					t.Errorf("requires replace %v, the framework %v", got.RequiresReplace, want.RequiresReplace)
				}
				if (got.Deferred == nil) != (want.Deferred == nil) {
					t.Errorf("deferred %v, the framework %v", got.Deferred, want.Deferred)
				}
				gotID, err := got.PlannedIdentity.IdentityData.Unmarshal(idType)
				if err != nil {
					t.Fatal(err)
				}
				wantID, err := want.PlannedIdentity.IdentityData.Unmarshal(idType)
				if err != nil {
					t.Fatal(err)
				}
				if !gotID.Equal(wantID) {
					t.Errorf("planned identity %v, want the framework's %v", gotID, wantID)
				}
			})
		}

		// A proposed state other than the prior one goes to the framework.
		t.Run(typeName+"/update", func(t *testing.T) {
			g := planValues{ctx: ctx}
			state := g.object(path.Empty(), sch.Attributes, sch.Blocks, true)
			cfg := g.object(path.Empty(), sch.Attributes, sch.Blocks, false)
			var attrs map[string]tftypes.Value
			if err := state.As(&attrs); err != nil {
				t.Fatal(err)
			}
			changed := map[string]tftypes.Value{}
			for k, v := range attrs {
				changed[k] = v
			}
			changed["id"] = tftypes.NewValue(tftypes.String, "another")
			proposed := tftypes.NewValue(typ, changed)
			if fast := ours.PlanUnchangedFast(ctx, &tfprotov6.PlanResourceChangeRequest{
				TypeName: typeName, PriorState: dynamic(t, typ, state), ProposedNewState: dynamic(t, typ, proposed),
				Config: dynamic(t, typ, cfg), PriorIdentity: identity,
			}); fast != nil {
				t.Fatal("answered an update without the framework")
			}
		})
	}
}
