package protocol_test

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"math/big"
	"math/rand"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/protocol"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/provider"
)

// objectType is the type of the values of sch.
func objectType(t testing.TB, sch schema.Schema) tftypes.Object {
	t.Helper()
	typ, ok := sch.Type().TerraformType(context.Background()).(tftypes.Object)
	if !ok {
		t.Fatalf("a schema of type %s", sch.Type())
	}
	return typ
}

func newServer(t testing.TB) *protocol.Server {
	t.Helper()
	srv, ok := provider.NewServerMode("test", protocol.Fast)().(*protocol.Server)
	if !ok {
		t.Fatal("provider.NewServerMode(protocol.Fast) does not serve through internal/protocol")
	}
	return srv
}

// resourceSchemas are the provider's resource schemas by type name.
func resourceSchemas(t testing.TB) map[string]schema.Schema {
	t.Helper()
	ctx := context.Background()
	out := map[string]schema.Schema{}
	for _, newResource := range provider.New("test")().Resources(ctx) {
		r := newResource()
		var md resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "admission"}, &md)
		var sr resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &sr)
		if sr.Diagnostics.HasError() {
			t.Fatalf("%s: schema: %v", md.TypeName, sr.Diagnostics)
		}
		out[md.TypeName] = sr.Schema
	}
	if len(out) < 6 {
		t.Fatalf("%d resource types, want the six kinds", len(out))
	}
	return out
}

// pair is the framework's server and this package's, each over its own
// provider, configured alike, each against its own stand-in API server
// when served.
type pair struct {
	fw       tfprotov6.ProviderServer
	ours     *protocol.Server
	requests [2]*atomic.Int64 // the framework's stand-in's, and this package's
}

// newPair configures both against the stand-in API server when served,
// else leaves them unconfigured (as in the validate walk, or before a
// cluster exists: no dry run, no request).
func newPair(t *testing.T, served bool) pair {
	t.Helper()
	p := pair{fw: providerserver.NewProtocol6(provider.New("test")())(), ours: newServer(t)}
	if !served {
		return p
	}
	ctx := context.Background()
	for i, srv := range []tfprotov6.ProviderServer{p.fw, p.ours} {
		var api *httptest.Server
		api, p.requests[i] = standInAPIServer(t)
		schemas, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
		if err != nil {
			t.Fatal(err)
		}
		typ, ok := schemas.Provider.ValueType().(tftypes.Object)
		if !ok {
			t.Fatalf("the provider's schema is of type %s", schemas.Provider.ValueType())
		}
		vals := map[string]tftypes.Value{}
		for name, at := range typ.AttributeTypes {
			vals[name] = tftypes.NewValue(at, nil)
		}
		vals["host"] = tftypes.NewValue(tftypes.String, api.URL)
		vals["token"] = tftypes.NewValue(tftypes.String, "t")
		// The wait after a policy's or binding's write (internal/policy waitEnforced) follows the
		// write alike in both servers; against the stand-in, which enforces nothing, it is the
		// server's reload period each time. It is tested against kube-apiserver
		// (internal/policy TestAccEnforcedWhenApplyReturns).
		vals["wait_for_enforcement"] = tftypes.NewValue(tftypes.Bool, false)
		cfg, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, vals))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{TerraformVersion: "1.16.4", Config: &cfg})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range resp.Diagnostics {
			if d.Severity == tfprotov6.DiagnosticSeverityError {
				t.Fatalf("configure: %s: %s", d.Summary, d.Detail)
			}
		}
	}
	return p
}

// requestsOf counts the requests of the framework's server (ours false) or
// of this package's to its stand-in during f.
func (p pair) requestsOf(ours bool, f func()) int64 {
	i := 0
	if ours {
		i = 1
	}
	if p.requests[i] == nil {
		f()
		return 0
	}
	before := p.requests[i].Load()
	f()
	return p.requests[i].Load() - before
}

func diagStrings(diags []*tfprotov6.Diagnostic) []string {
	out := make([]string, len(diags))
	for i, d := range diags {
		at := "-"
		if d.Attribute != nil {
			at = d.Attribute.String()
		}
		out[i] = fmt.Sprintf("%s|%s|%s|%s", d.Severity, at, d.Summary, d.Detail)
	}
	// The framework runs the plan modifiers in the order of its maps.
	sort.Strings(out)
	return out
}

func hasError(diags []*tfprotov6.Diagnostic) bool {
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			return true
		}
	}
	return false
}

// sameValue reports how the two encoded values differ, "" if not: the same
// value, and the same bytes.
func sameValue(typ tftypes.Type, want, got *tfprotov6.DynamicValue) string {
	switch {
	case want == nil && got == nil:
		return ""
	case want == nil || got == nil:
		return fmt.Sprintf("%v, want %v", got, want)
	}
	w, err := want.Unmarshal(typ)
	if err != nil {
		return "the framework's: " + err.Error()
	}
	g, err := got.Unmarshal(typ)
	if err != nil {
		return err.Error()
	}
	if !g.Equal(w) {
		diffs, _ := w.Diff(g)
		return fmt.Sprintf("%v, want %v (differences: %v)", g, w, diffs)
	}
	if string(want.MsgPack) != string(got.MsgPack) || string(want.JSON) != string(got.JSON) {
		return "the same value, encoded otherwise"
	}
	return ""
}

func identityOf(id *tfprotov6.ResourceIdentityData) *tfprotov6.DynamicValue {
	if id == nil {
		return nil
	}
	return id.IdentityData
}

func paths(ps []*tftypes.AttributePath) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.String())
	}
	return out
}

func comparePlans(t *testing.T, typ, idType tftypes.Type, want, got *tfprotov6.PlanResourceChangeResponse) {
	t.Helper()
	if d := sameValue(typ, want.PlannedState, got.PlannedState); d != "" {
		t.Errorf("planned state: %s", d)
	}
	if d := sameValue(idType, identityOf(want.PlannedIdentity), identityOf(got.PlannedIdentity)); d != "" {
		t.Errorf("planned identity: %s", d)
	}
	if string(got.PlannedPrivate) != string(want.PlannedPrivate) {
		t.Errorf("planned private %q, want %q", got.PlannedPrivate, want.PlannedPrivate)
	}
	if g, w := paths(got.RequiresReplace), paths(want.RequiresReplace); strings.Join(g, ",") != strings.Join(w, ",") || (got.RequiresReplace == nil) != (want.RequiresReplace == nil) {
		t.Errorf("requires replace %v, want %v", g, w)
	}
	if fmt.Sprint(got.Deferred) != fmt.Sprint(want.Deferred) {
		t.Errorf("deferred %v, want %v", got.Deferred, want.Deferred)
	}
	if g, w := diagStrings(got.Diagnostics), diagStrings(want.Diagnostics); strings.Join(g, "\n") != strings.Join(w, "\n") {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(w, "\n"))
	}
}

func compareApplies(t *testing.T, typ, idType tftypes.Type, want, got *tfprotov6.ApplyResourceChangeResponse) {
	t.Helper()
	if d := sameValue(typ, want.NewState, got.NewState); d != "" {
		t.Errorf("new state: %s", d)
	}
	if d := sameValue(idType, identityOf(want.NewIdentity), identityOf(got.NewIdentity)); d != "" {
		t.Errorf("new identity: %s", d)
	}
	if string(got.Private) != string(want.Private) {
		t.Errorf("private %q, want %q", got.Private, want.Private)
	}
	if g, w := diagStrings(got.Diagnostics), diagStrings(want.Diagnostics); strings.Join(g, "\n") != strings.Join(w, "\n") {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(w, "\n"))
	}
}

// nudged is v with its first known number one more, as the change of the
// benchmark (a webhook's timeout_seconds) is.
func nudged(v tftypes.Value) (tftypes.Value, bool) {
	if !v.IsKnown() || v.IsNull() {
		return v, false
	}
	switch t := v.Type().(type) {
	case tftypes.Object:
		var m map[string]tftypes.Value
		_ = v.As(&m)
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if nv, ok := nudged(m[k]); ok {
				m = maps.Clone(m) // As hands out the value's own map
				m[k] = nv
				return tftypes.NewValue(t, m), true
			}
		}
	case tftypes.List:
		var l []tftypes.Value
		_ = v.As(&l)
		for i, e := range l {
			if nv, ok := nudged(e); ok {
				l = slices.Clone(l)
				l[i] = nv
				return tftypes.NewValue(t, l), true
			}
		}
	default:
		if t.Is(tftypes.Number) {
			var f big.Float
			_ = v.As(&f)
			return tftypes.NewValue(t, new(big.Float).Add(&f, big.NewFloat(1))), true
		}
	}
	return v, false
}

func seed(parts ...any) int64 {
	h := fnv.New64a()
	_, _ = fmt.Fprint(h, parts...)
	return int64(h.Sum64() >> 1)
}

// The plans and applies this package answers itself get the framework's
// answer, on every resource type, on generated configurations: every block
// absent, empty and full (the first three cases), then at random, with
// unknown values and lists of blocks known only after apply; created,
// changed (a configuration generated anew, or one number changed), kept
// and destroyed; with and without a prior identity (Terraform before 1.12
// sends none), with and without private state; unconfigured (the validate
// walk, no request) and configured against a stand-in API server (the
// dry run of the plan, the writes of the apply). For each call: the same
// planned or new state, identity, private state, paths that require a
// replacement and diagnostics, and the same requests to the API server.
func TestFastPlansAnswerAsTheFramework(t *testing.T) {
	const cases = 16
	schemas := resourceSchemas(t)
	for _, served := range []bool{false, true} {
		p := newPair(t, served)
		for _, typeName := range slices.Sorted(maps.Keys(schemas)) {
			t.Run(fmt.Sprintf("%s/served=%v", typeName, served), func(t *testing.T) {
				comparePlansAndApplies(t, p, typeName, schemas[typeName], served, cases)
			})
		}
	}
}

func comparePlansAndApplies(t *testing.T, p pair, typeName string, sch schema.Schema, served bool, cases int) {
	ctx := context.Background()
	if why := p.ours.NotAnswered(ctx, typeName); why != "" {
		t.Fatalf("the fast paths do not answer for %s: %s", typeName, why)
	}
	typ := objectType(t, sch)
	idType := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"name": tftypes.String}}
	null := dynamic(t, typ, tftypes.NewValue(typ, nil))
	answered := map[string]int{}

	plan := func(what string, req func() *tfprotov6.PlanResourceChangeRequest) *tfprotov6.PlanResourceChangeResponse {
		t.Helper()
		var want, got *tfprotov6.PlanResourceChangeResponse
		var err error
		wantRequests := p.requestsOf(false, func() { want, err = p.fw.PlanResourceChange(ctx, req()) })
		if err != nil {
			t.Fatal(err)
		}
		gotRequests := p.requestsOf(true, func() {
			if got = p.ours.PlanUnchangedFast(ctx, req()); got == nil {
				got = p.ours.PlanChangeFast(ctx, req())
			}
		})
		if got == nil {
			t.Fatalf("%s: left to the framework", what)
		}
		t.Run(what, func(t *testing.T) {
			comparePlans(t, typ, idType, want, got)
			if gotRequests != wantRequests {
				t.Errorf("%d requests to the API server, the framework's %d", gotRequests, wantRequests)
			}
		})
		if !hasError(want.Diagnostics) {
			answered[strings.Fields(what)[0]]++
		} else if testing.Verbose() {
			t.Logf("%s: %v", what, diagStrings(want.Diagnostics))
		}
		return want
	}
	apply := func(what string, req func() *tfprotov6.ApplyResourceChangeRequest) *tfprotov6.ApplyResourceChangeResponse {
		t.Helper()
		var want, got *tfprotov6.ApplyResourceChangeResponse
		var err error
		wantRequests := p.requestsOf(false, func() { want, err = p.fw.ApplyResourceChange(ctx, req()) })
		if err != nil {
			t.Fatal(err)
		}
		gotRequests := p.requestsOf(true, func() { got = p.ours.ApplyFast(ctx, req()) })
		if got == nil {
			t.Fatalf("%s: left to the framework", what)
		}
		t.Run(what, func(t *testing.T) {
			compareApplies(t, typ, idType, want, got)
			if gotRequests != wantRequests {
				t.Errorf("%d requests to the API server, the framework's %d", gotRequests, wantRequests)
			}
		})
		if !hasError(want.Diagnostics) {
			answered[strings.Fields(what)[0]]++
		}
		return want
	}

	validate := func(what string, cfg tftypes.Value) {
		t.Helper()
		req := func() *tfprotov6.ValidateResourceConfigRequest {
			return &tfprotov6.ValidateResourceConfigRequest{TypeName: typeName, Config: dynamic(t, typ, cfg)}
		}
		var want, got *tfprotov6.ValidateResourceConfigResponse
		var err error
		wantRequests := p.requestsOf(false, func() { want, err = p.fw.ValidateResourceConfig(ctx, req()) })
		if err != nil {
			t.Fatal(err)
		}
		gotRequests := p.requestsOf(true, func() { got = p.ours.ValidateFast(ctx, req()) })
		if got == nil {
			t.Fatalf("%s: left to the framework", what)
		}
		t.Run(what, func(t *testing.T) {
			if g, w := diagStrings(got.Diagnostics), diagStrings(want.Diagnostics); strings.Join(g, "\n") != strings.Join(w, "\n") {
				t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(w, "\n"))
			}
			if gotRequests != wantRequests {
				t.Errorf("%d requests to the API server, the framework's %d", gotRequests, wantRequests)
			}
		})
		if !hasError(want.Diagnostics) {
			answered["validate"]++
		} else if testing.Verbose() {
			t.Logf("%s: %v", what, diagStrings(want.Diagnostics))
		}
	}
	read := func(what string, req func() *tfprotov6.ReadResourceRequest) *tfprotov6.ReadResourceResponse {
		t.Helper()
		var want, got *tfprotov6.ReadResourceResponse
		var err error
		wantRequests := p.requestsOf(false, func() { want, err = p.fw.ReadResource(ctx, req()) })
		if err != nil {
			t.Fatal(err)
		}
		gotRequests := p.requestsOf(true, func() { got = p.ours.ReadFast(ctx, req()) })
		if got == nil {
			t.Fatalf("%s: left to the framework", what)
		}
		t.Run(what, func(t *testing.T) {
			if d := sameValue(typ, want.NewState, got.NewState); d != "" {
				t.Errorf("new state: %s", d)
			}
			if d := sameValue(idType, identityOf(want.NewIdentity), identityOf(got.NewIdentity)); d != "" {
				t.Errorf("new identity: %s", d)
			}
			if string(got.Private) != string(want.Private) {
				t.Errorf("private %q, want %q", got.Private, want.Private)
			}
			if fmt.Sprint(got.Deferred) != fmt.Sprint(want.Deferred) {
				t.Errorf("deferred %v, want %v", got.Deferred, want.Deferred)
			}
			if g, w := diagStrings(got.Diagnostics), diagStrings(want.Diagnostics); strings.Join(g, "\n") != strings.Join(w, "\n") {
				t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(w, "\n"))
			}
			if gotRequests != wantRequests {
				t.Errorf("%d requests to the API server, the framework's %d", gotRequests, wantRequests)
			}
		})
		if !hasError(want.Diagnostics) {
			gone := ""
			if want.NewState != nil {
				if v, err := want.NewState.Unmarshal(typ); err == nil && v.IsNull() {
					gone = "-gone"
				}
			}
			answered["read"+gone]++
		}
		return want
	}

	for i := range cases {
		name := fmt.Sprintf("obj-%d.example.com", i)
		systematic := -1
		if i < 3 {
			systematic = i
		}
		g := &generator{rnd: rand.New(rand.NewSource(seed(typeName, i))), systematic: systematic, unknowns: i >= 3 && i%3 == 0, name: name}
		cfg := g.object("", sch.Attributes, sch.Blocks, typ, false)
		withIdentity := i%2 == 0
		identity := &tfprotov6.ResourceIdentityData{IdentityData: dynamic(t, idType, tftypes.NewValue(idType, map[string]tftypes.Value{"name": tftypes.NewValue(tftypes.String, name)}))}
		priorIdentity := func() *tfprotov6.ResourceIdentityData {
			if withIdentity {
				return identity
			}
			return nil
		}
		var private []byte
		if i%3 == 1 {
			private, _ = json.Marshal(map[string][]byte{"ca_bundle_managed": []byte(`["hook-1.example.com"]`), "other": []byte(`{"a":1}`)})
		}
		label := fmt.Sprintf("%d (identity %v)", i, withIdentity)
		validate("validate "+label, cfg)

		// Create.
		cp := plan("create "+label, func() *tfprotov6.PlanResourceChangeRequest {
			r := &tfprotov6.PlanResourceChangeRequest{
				TypeName: typeName, Config: dynamic(t, typ, cfg), PriorState: null,
				ProposedNewState: dynamic(t, typ, proposed(tftypes.NewValue(typ, nil), cfg, sch.Attributes, sch.Blocks)),
			}
			if withIdentity {
				r.PriorIdentity = &tfprotov6.ResourceIdentityData{IdentityData: dynamic(t, idType, tftypes.NewValue(idType, nil))}
			}
			return r
		})
		if hasError(cp.Diagnostics) || cp.PlannedState == nil {
			continue
		}
		planned, err := cp.PlannedState.Unmarshal(typ)
		if err != nil {
			t.Fatal(err)
		}
		prior := applied(planned)
		if served {
			ca := apply("create-apply "+label, func() *tfprotov6.ApplyResourceChangeRequest {
				return &tfprotov6.ApplyResourceChangeRequest{
					TypeName: typeName, Config: dynamic(t, typ, cfg), PriorState: null, PlannedState: cp.PlannedState,
					PlannedIdentity: cp.PlannedIdentity, PlannedPrivate: cp.PlannedPrivate,
				}
			})
			if !hasError(ca.Diagnostics) && ca.NewState != nil {
				if prior, err = ca.NewState.Unmarshal(typ); err != nil {
					t.Fatal(err)
				}
				private = ca.Private
			}
		}
		// Refresh.
		read("refresh "+label, func() *tfprotov6.ReadResourceRequest {
			return &tfprotov6.ReadResourceRequest{TypeName: typeName, CurrentState: dynamic(t, typ, prior), CurrentIdentity: priorIdentity(), Private: private}
		})

		// Keep and destroy.
		plan("no-change "+label, func() *tfprotov6.PlanResourceChangeRequest {
			return &tfprotov6.PlanResourceChangeRequest{
				TypeName: typeName, Config: dynamic(t, typ, cfg), PriorState: dynamic(t, typ, prior),
				ProposedNewState: dynamic(t, typ, proposed(prior, cfg, sch.Attributes, sch.Blocks)),
				PriorIdentity:    priorIdentity(), PriorPrivate: private,
			}
		})
		plan("destroy "+label, func() *tfprotov6.PlanResourceChangeRequest {
			return &tfprotov6.PlanResourceChangeRequest{
				TypeName: typeName, Config: null, PriorState: dynamic(t, typ, prior), ProposedNewState: null,
				PriorIdentity: priorIdentity(), PriorPrivate: private,
			}
		})

		// Change: a configuration generated anew (of the same name), or
		// one number changed.
		g2 := &generator{rnd: rand.New(rand.NewSource(seed(typeName, i, "change"))), systematic: -1, unknowns: i%4 == 1, name: name}
		changes := []tftypes.Value{g2.object("", sch.Attributes, sch.Blocks, typ, false)}
		if n, ok := nudged(cfg); ok {
			changes = append(changes, n)
		}
		for j, cfg2 := range changes {
			what := fmt.Sprintf("%s, change %d", label, j)
			validate("validate "+what, cfg2)
			up := plan("update "+what, func() *tfprotov6.PlanResourceChangeRequest {
				return &tfprotov6.PlanResourceChangeRequest{
					TypeName: typeName, Config: dynamic(t, typ, cfg2), PriorState: dynamic(t, typ, prior),
					ProposedNewState: dynamic(t, typ, proposed(prior, cfg2, sch.Attributes, sch.Blocks)),
					PriorIdentity:    priorIdentity(), PriorPrivate: private,
				}
			})
			if served && len(up.RequiresReplace) > 0 && testing.Verbose() {
				t.Logf("update %s requires a replacement: %v", what, paths(up.RequiresReplace))
			}
			if served && !hasError(up.Diagnostics) && up.PlannedState != nil && len(up.RequiresReplace) == 0 {
				apply("update-apply "+what, func() *tfprotov6.ApplyResourceChangeRequest {
					return &tfprotov6.ApplyResourceChangeRequest{
						TypeName: typeName, Config: dynamic(t, typ, cfg2), PriorState: dynamic(t, typ, prior), PlannedState: up.PlannedState,
						PlannedIdentity: up.PlannedIdentity, PlannedPrivate: up.PlannedPrivate,
					}
				})
			}
		}
		if i%5 == 4 {
			// After an import: the framework's mark in private state.
			imported, _ := json.Marshal(map[string][]byte{".import_before_read": []byte(`true`)})
			read("refresh-imported "+label, func() *tfprotov6.ReadResourceRequest {
				return &tfprotov6.ReadResourceRequest{TypeName: typeName, CurrentState: dynamic(t, typ, prior), Private: imported}
			})
		}
		if served {
			apply("destroy-apply "+label, func() *tfprotov6.ApplyResourceChangeRequest {
				r := &tfprotov6.ApplyResourceChangeRequest{
					TypeName: typeName, Config: null, PriorState: dynamic(t, typ, prior), PlannedState: null, PlannedPrivate: private,
				}
				if withIdentity {
					r.PlannedIdentity = identity
				}
				return r
			})
			read("refresh-gone "+label, func() *tfprotov6.ReadResourceRequest {
				return &tfprotov6.ReadResourceRequest{TypeName: typeName, CurrentState: dynamic(t, typ, prior), CurrentIdentity: priorIdentity(), Private: private}
			})
		}
	}
	t.Logf("answered without an error: %v", answered)
	for _, what := range []string{"validate", "read", "create", "update", "no-change", "destroy"} {
		if answered[what] == 0 {
			t.Errorf("no %s plan without an error: the cases do not test what they should", what)
		}
	}
	if served {
		for _, what := range []string{"create-apply", "update-apply", "destroy-apply", "read-gone"} {
			if answered[what] == 0 {
				t.Errorf("no %s without an error: the cases do not test what they should", what)
			}
		}
	}
}

// The comparison the fast plans make of a plan with the prior state is
// tftypes.Value.Equal's, on generated values and their changes: a number
// changed, a value made unknown or null, a block added or removed.
func TestEqualIsTftypesEqual(t *testing.T) {
	for typeName, sch := range resourceSchemas(t) {
		typ := objectType(t, sch)
		var values []tftypes.Value
		for i := range 12 {
			g := &generator{rnd: rand.New(rand.NewSource(seed(typeName, i, "equal"))), systematic: i % 4, unknowns: i%2 == 0, name: "n"}
			if i >= 4 {
				g.systematic = -1
			}
			v := g.object("", sch.Attributes, sch.Blocks, typ, false)
			values = append(values, v, applied(v), tftypes.NewValue(typ, nil), tftypes.NewValue(typ, tftypes.UnknownValue))
			if n, ok := nudged(v); ok {
				values = append(values, n)
			}
		}
		for i, a := range values {
			for j, b := range values {
				if got, want := protocol.Equal(a, b), a.Equal(b); got != want {
					t.Errorf("%s: values %d and %d: equal %v, tftypes %v", typeName, i, j, got, want)
				}
			}
		}
	}
}
