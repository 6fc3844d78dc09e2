package protocol_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// stateJSON is v as Terraform stores a resource's attributes in its state
// (ctyjson.Marshal): objects, lists and maps as JSON, numbers as numbers.
func stateJSON(t testing.TB, v tftypes.Value) any {
	t.Helper()
	if v.IsNull() {
		return nil
	}
	switch v.Type().(type) {
	case tftypes.Object, tftypes.Map:
		var m map[string]tftypes.Value
		if err := v.As(&m); err != nil {
			t.Fatal(err)
		}
		out := make(map[string]any, len(m))
		for k, e := range m {
			out[k] = stateJSON(t, e)
		}
		return out
	case tftypes.List, tftypes.Set:
		var l []tftypes.Value
		if err := v.As(&l); err != nil {
			t.Fatal(err)
		}
		out := make([]any, len(l))
		for i, e := range l {
			out[i] = stateJSON(t, e)
		}
		return out
	}
	switch {
	case v.Type().Is(tftypes.String):
		var s string
		_ = v.As(&s)
		return s
	case v.Type().Is(tftypes.Bool):
		var b bool
		_ = v.As(&b)
		return b
	case v.Type().Is(tftypes.Number):
		var f big.Float
		_ = v.As(&f)
		return json.Number(f.Text('g', -1))
	}
	t.Fatalf("no JSON for %s", v.Type())
	return nil
}

// respell changes how the JSON spells some values, as states written by
// other versions of Terraform or of the provider may: numbers and bools as
// strings, strings as numbers or bools, attributes left out or no longer
// in the schema (at the top, where every object is one of the schema's
// rather than a map).
func respell(rnd *rand.Rand, v any, top bool) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x)+1)
		for k, e := range x {
			if rnd.Intn(12) == 0 {
				continue // left out: read as null
			}
			out[k] = respell(rnd, e, false)
		}
		if top && rnd.Intn(2) == 0 {
			out["removed_in_a_later_version"] = map[string]any{"a": []any{1, "b"}}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = respell(rnd, e, false)
		}
		return out
	case json.Number:
		if rnd.Intn(3) == 0 {
			return string(x)
		}
	case bool:
		if rnd.Intn(3) == 0 {
			return map[bool]string{true: "true", false: "0"}[x]
		}
	case string:
		switch rnd.Intn(8) {
		case 0:
			return json.Number("12.5")
		case 1:
			return true
		}
	}
	return v
}

// TestUpgradeAnswersAsTheFramework: a stored state at the schema's version
// is read as the framework reads it, in every spelling tftypes takes, and
// what it does not take (or another version) goes to the framework, with
// its error.
func TestUpgradeAnswersAsTheFramework(t *testing.T) {
	ctx := context.Background()
	srv := newServer(t)
	compare := func(t *testing.T, typeName string, typ tftypes.Type, version int64, raw []byte, wantFast bool) {
		t.Helper()
		req := func() *tfprotov6.UpgradeResourceStateRequest {
			return &tfprotov6.UpgradeResourceStateRequest{TypeName: typeName, Version: version, RawState: &tfprotov6.RawState{JSON: raw}}
		}
		want, err := srv.ProviderServer.UpgradeResourceState(ctx, req())
		if err != nil {
			t.Fatal(err)
		}
		fast := srv.UpgradeFast(ctx, req())
		if (fast != nil) != wantFast {
			t.Fatalf("answered by the fast path: %v, want %v (%s)", fast != nil, wantFast, raw)
		}
		got, err := srv.UpgradeResourceState(ctx, req())
		if err != nil {
			t.Fatal(err)
		}
		if w, g := diagStrings(want.Diagnostics), diagStrings(got.Diagnostics); strings.Join(w, "\n") != strings.Join(g, "\n") {
			t.Fatalf("diagnostics %q, want %q", g, w)
		}
		if (want.UpgradedState == nil) != (got.UpgradedState == nil) {
			t.Fatalf("upgraded state %v, want %v", got.UpgradedState, want.UpgradedState)
		}
		if want.UpgradedState == nil {
			return
		}
		// The same value; not always the same bytes, since tftypes
		// writes a map's keys in the order of a Go map.
		w, err := want.UpgradedState.Unmarshal(typ)
		if err != nil {
			t.Fatal(err)
		}
		g, err := got.UpgradedState.Unmarshal(typ)
		if err != nil {
			t.Fatalf("%v (%x)", err, got.UpgradedState.MsgPack)
		}
		if !g.Equal(w) {
			diffs, _ := w.Diff(g)
			t.Fatalf("upgraded state differs from the framework's: %v\nstate: %s", diffs, raw)
		}
	}
	for typeName, sch := range resourceSchemas(t) {
		t.Run(typeName, func(t *testing.T) {
			typ := objectType(t, sch)
			for i := range 60 {
				g := &generator{rnd: rand.New(rand.NewSource(seed(typeName, i, "upgrade"))), systematic: i % 4, name: fmt.Sprintf("obj-%d.example.com", i)}
				if i >= 4 {
					g.systematic = -1
				}
				state := stateJSON(t, applied(g.object("", sch.Attributes, sch.Blocks, typ, false)))
				if i%2 == 1 {
					state = respell(rand.New(rand.NewSource(int64(i))), state, true)
				}
				raw, err := json.Marshal(state)
				if err != nil {
					t.Fatal(err)
				}
				compare(t, typeName, typ, sch.Version, raw, true)
			}
			for _, raw := range []string{
				`null`,
				`{}`,
				`{"id":"a","metadata":null}`,
				`{"id":1e400,"metadata":[{"name":"a","generation":"12","uid":true}]}`,
				`{"metadata":[{"generation":9223372036854775808}]}`,
				`{"metadata":[{"generation":0.1}]}`,
				`{"metadata":[{"generation":-0}]}`,
				`{"metadata":[{"labels":{"b":"1","a":2,"c":null}}]}`,
				`{"id":"caf\u00e9 \ud83d\ude00"}`,
			} {
				compare(t, typeName, typ, sch.Version, []byte(raw), true)
			}
			// What tftypes refuses: the framework's error.
			for _, raw := range []string{
				`[]`,
				`{"metadata":"a"}`,
				`{"metadata":[{"generation":"twelve"}]}`,
				`{"metadata":[{"generation":true}]}`,
				`{"metadata":[{"labels":["a"]}]}`,
				`{"id":["a"]}`,
				`{"id":{"a":"b"}}`,
				`{"metadata":[{"name":"a"}]`,
				`not json`,
			} {
				compare(t, typeName, typ, sch.Version, []byte(raw), false)
			}
			// Another version: the framework's answer (no upgrader).
			compare(t, typeName, typ, sch.Version+1, []byte(`{}`), false)
		})
	}
}

// BenchmarkUpgradeResourceState reads the stored state of one webhook
// configuration of the benchmark's workload, by the fast path and by the
// framework.
func BenchmarkUpgradeResourceState(b *testing.B) {
	ctx := context.Background()
	srv := newServer(b)
	const typeName = "admission_mutating_webhook_configuration"
	sch := resourceSchemas(b)[typeName]
	typ := objectType(b, sch)
	g := &generator{rnd: rand.New(rand.NewSource(1)), systematic: 2, name: "bench.example.com"}
	raw, err := json.Marshal(stateJSON(b, applied(g.object("", sch.Attributes, sch.Blocks, typ, false))))
	if err != nil {
		b.Fatal(err)
	}
	req := &tfprotov6.UpgradeResourceStateRequest{TypeName: typeName, Version: sch.Version, RawState: &tfprotov6.RawState{JSON: raw}}
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if srv.UpgradeFast(ctx, req) == nil {
				b.Fatal("left to the framework")
			}
		}
	})
	b.Run("framework", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := srv.ProviderServer.UpgradeResourceState(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
	})
}
