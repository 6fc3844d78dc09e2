package benchmark

import (
	"context"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/provider"
)

// The provider's side of the gRPC calls Terraform makes per object, in
// process. Offline, the provider is not configured (Read returns the state
// and ModifyPlan makes no dry run): what is left is the framework's decoding
// and encoding of the values, the schema's validators and plan modifiers,
// and the provider's own validation and conversion. Served, the provider is
// configured against a stand-in API server in the same process that answers
// every request at once with the stored object, so that Read converts what
// it reads and a plan makes its dry run: the calls as a real run makes them,
// without the network. The harness measures the same calls through
// Terraform; these isolate their CPU cost per object.

const resourceType = "admission_mutating_webhook_configuration"

type protocolFixture struct {
	server tfprotov6.ProviderServer
	api    *httptest.Server
	// gone makes the stand-in API server answer a GET with 404 (and a dry
	// run as for a new object); gets counts the GETs it answered.
	gone                  *atomic.Bool
	gets                  *atomic.Int32
	typ                   tftypes.Object
	config, state, stateC *tfprotov6.DynamicValue
	identity              *tfprotov6.ResourceIdentityData
}

func newProtocolFixture(tb testing.TB, served bool) *protocolFixture {
	tb.Helper()
	ctx := context.Background()
	// The server main.go serves: the framework's, with the validations,
	// refreshes, plans and applies that internal/protocol answers before
	// the framework's walks.
	server := provider.NewServer("bench")()
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		tb.Fatal(err)
	}
	var api *httptest.Server
	gone, gets := &atomic.Bool{}, &atomic.Int32{}
	if served {
		api = standInAPIServer(tb, gone, gets)
		configure(tb, server, schemas.Provider, api.URL)
	}
	s := schemas.ResourceSchemas[resourceType]
	if s == nil {
		tb.Fatalf("no schema of %s", resourceType)
	}
	typ, ok := s.ValueType().(tftypes.Object)
	if !ok {
		tb.Fatalf("the schema of %s is not an object", resourceType)
	}
	obj := object(0, false)
	dv := func(doc map[string]any) *tfprotov6.DynamicValue {
		v, err := tfprotov6.NewDynamicValue(typ, tfValue(typ, doc))
		if err != nil {
			tb.Fatal(err)
		}
		return &v
	}
	changed := object(0, true)
	idType := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"name": tftypes.String}}
	id, err := tfprotov6.NewDynamicValue(idType, tftypes.NewValue(idType, map[string]tftypes.Value{"name": tftypes.NewValue(tftypes.String, obj.Name)}))
	if err != nil {
		tb.Fatal(err)
	}
	return &protocolFixture{
		server: server, api: api, gone: gone, gets: gets, typ: typ, identity: &tfprotov6.ResourceIdentityData{IdentityData: &id},
		config: dv(tfDoc(obj, false)),
		state:  dv(tfDoc(obj, true)),
		stateC: dv(tfDoc(changed, true)),
	}
}

// storedObject is object 0 as the server stores it: with the defaults and
// read-only metadata of the state fixture (tfDoc), so that a refresh reads
// the state back unchanged.
func storedObject() *admissionregistrationv1.MutatingWebhookConfiguration {
	o := object(0, false)
	o.UID = "8d7c5e0a-1b2c-4d5e-9f00-000000000000"
	o.ResourceVersion = "12345"
	o.Generation = 1
	o.CreationTimestamp = metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	for i := range o.Webhooks {
		o.Webhooks[i].MatchPolicy = ptr(admissionregistrationv1.Equivalent)
		o.Webhooks[i].ReinvocationPolicy = ptr(admissionregistrationv1.NeverReinvocationPolicy)
	}
	return o
}

// standInAPIServer answers every request about an object with the stored
// object (GET, and the apply, dry run or not), and a DELETE with success; a
// GET with 404 while gone is set.
func standInAPIServer(tb testing.TB, gone *atomic.Bool, gets *atomic.Int32) *httptest.Server {
	body, err := json.Marshal(storedObject())
	if err != nil {
		tb.Fatal(err)
	}
	// What a dry run of a new object answers: no resourceVersion yet.
	fresh := storedObject()
	fresh.ResourceVersion = ""
	created, err := json.Marshal(fresh)
	if err != nil {
		tb.Fatal(err)
	}
	deleted := []byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success"}`)
	notFound := []byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","reason":"NotFound","code":404}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodGet {
			gets.Add(1)
		}
		switch {
		case r.Method == http.MethodDelete:
			_, _ = w.Write(deleted)
			return
		case r.Method == http.MethodGet && gone.Load():
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write(notFound)
			return
		case r.Method == http.MethodPatch && gone.Load():
			_, _ = w.Write(created)
			return
		}
		_, _ = w.Write(body)
	}))
	tb.Cleanup(srv.Close)
	return srv
}

// configure configures the provider with host, and without the proof at apply that the API
// server can call a webhook: the stand-in server calls no webhook, and the fixture counts the
// requests of the write path alone (the proof's are TestAccProofCost's in internal/webhook).
func configure(tb testing.TB, server tfprotov6.ProviderServer, s *tfprotov6.Schema, host string) {
	typ, ok := s.ValueType().(tftypes.Object)
	if !ok {
		tb.Fatal("the provider schema is not an object")
	}
	cfg, err := tfprotov6.NewDynamicValue(typ, tfValue(typ, map[string]any{"host": host, "prove_webhooks": false}))
	if err != nil {
		tb.Fatal(err)
	}
	resp, err := server.ConfigureProvider(context.Background(), &tfprotov6.ConfigureProviderRequest{TerraformVersion: "1.14.9", Config: &cfg})
	if err != nil {
		tb.Fatal(err)
	}
	checkDiags(tb, "configure", resp.Diagnostics)
}

// tfDoc is the object as Terraform holds it: the configuration, or with
// computed values filled in, the state.
func tfDoc(o *admissionregistrationv1.MutatingWebhookConfiguration, state bool) map[string]any {
	computed := func(v any) any {
		if state {
			return v
		}
		return nil
	}
	meta := map[string]any{
		"name":               o.Name,
		"labels":             toAny(o.Labels),
		"uid":                computed("8d7c5e0a-1b2c-4d5e-9f00-000000000000"),
		"resource_version":   computed("12345"),
		"generation":         computed(int64(1)),
		"creation_timestamp": computed("2026-01-01T00:00:00Z"),
	}
	var hooks []any
	for _, h := range o.Webhooks {
		s := h.ClientConfig.Service
		hook := map[string]any{
			"name":                      h.Name,
			"admission_review_versions": strs(h.AdmissionReviewVersions),
			"side_effects":              string(*h.SideEffects),
			"failure_policy":            string(*h.FailurePolicy),
			"timeout_seconds":           int64(*h.TimeoutSeconds),
			"match_policy":              computed("Equivalent"),
			"reinvocation_policy":       computed("Never"),
			"client_config": []any{map[string]any{
				"service": []any{map[string]any{"namespace": s.Namespace, "name": s.Name, "path": *s.Path, "port": int64(*s.Port)}},
			}},
		}
		var rules []any
		for _, r := range h.Rules {
			ops := make([]string, len(r.Operations))
			for i, op := range r.Operations {
				ops[i] = string(op)
			}
			rules = append(rules, map[string]any{
				"operations": strs(ops), "api_groups": strs(r.APIGroups), "api_versions": strs(r.APIVersions),
				"resources": strs(r.Resources), "scope": string(*r.Scope),
			})
		}
		hook["rule"] = rules
		var exprs []any
		for _, e := range h.NamespaceSelector.MatchExpressions {
			exprs = append(exprs, map[string]any{"key": e.Key, "operator": string(e.Operator), "values": strs(e.Values)})
		}
		hook["namespace_selector"] = []any{map[string]any{"match_expressions": exprs}}
		hook["object_selector"] = []any{map[string]any{"match_labels": toAny(h.ObjectSelector.MatchLabels)}}
		var conds []any
		for _, c := range h.MatchConditions {
			conds = append(conds, map[string]any{"name": c.Name, "expression": c.Expression})
		}
		hook["match_conditions"] = conds
		hooks = append(hooks, hook)
	}
	return map[string]any{"id": computed(o.Name), "metadata": []any{meta}, "webhook": hooks}
}

func strs(v []string) []any {
	out := make([]any, len(v))
	for i, s := range v {
		out[i] = s
	}
	return out
}

func toAny(m map[string]string) map[string]any {
	if m == nil {
		return nil
	}
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// tfValue builds the value of type t from a document of maps, slices and
// scalars; what the document leaves out is null, except lists of objects
// (blocks), which Terraform sends as empty lists.
func tfValue(t tftypes.Type, v any) tftypes.Value {
	switch t := t.(type) {
	case tftypes.Object:
		m, ok := v.(map[string]any)
		if !ok {
			return tftypes.NewValue(t, nil)
		}
		names := make([]string, 0, len(t.AttributeTypes))
		for name := range t.AttributeTypes {
			names = append(names, name)
		}
		sort.Strings(names)
		vals := map[string]tftypes.Value{}
		for _, name := range names {
			vals[name] = tfValue(t.AttributeTypes[name], m[name])
		}
		return tftypes.NewValue(t, vals)
	case tftypes.List:
		l, _ := v.([]any)
		if l == nil {
			if _, block := t.ElementType.(tftypes.Object); block {
				return tftypes.NewValue(t, []tftypes.Value{})
			}
			return tftypes.NewValue(t, nil)
		}
		elems := make([]tftypes.Value, len(l))
		for i, e := range l {
			elems[i] = tfValue(t.ElementType, e)
		}
		return tftypes.NewValue(t, elems)
	case tftypes.Map:
		m, _ := v.(map[string]any)
		if m == nil {
			return tftypes.NewValue(t, nil)
		}
		elems := map[string]tftypes.Value{}
		for k, e := range m {
			elems[k] = tfValue(t.ElementType, e)
		}
		return tftypes.NewValue(t, elems)
	}
	switch x := v.(type) {
	case nil:
		return tftypes.NewValue(t, nil)
	case int64:
		return tftypes.NewValue(t, new(big.Float).SetInt64(x))
	default:
		return tftypes.NewValue(t, x)
	}
}

func checkDiags(tb testing.TB, what string, diags []*tfprotov6.Diagnostic) {
	tb.Helper()
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			tb.Fatalf("%s: %s: %s", what, d.Summary, d.Detail)
		}
	}
}

// TestProtocolFixture checks that the values the benchmarks send are what
// the provider accepts: a valid configuration, a no-change plan.
func TestProtocolFixture(t *testing.T) {
	for _, served := range []bool{false, true} {
		t.Run(map[bool]string{false: "offline", true: "served"}[served], func(t *testing.T) { testProtocolFixture(t, served) })
	}
}

func testProtocolFixture(t *testing.T, served bool) {
	f := newProtocolFixture(t, served)
	ctx := context.Background()
	v, err := f.server.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: resourceType, Config: f.config})
	if err != nil {
		t.Fatal(err)
	}
	checkDiags(t, "validate", v.Diagnostics)
	p, err := f.server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
		TypeName: resourceType, Config: f.config, PriorState: f.state, ProposedNewState: f.state,
	})
	if err != nil {
		t.Fatal(err)
	}
	checkDiags(t, "plan", p.Diagnostics)
	planned, err := p.PlannedState.Unmarshal(f.typ)
	if err != nil {
		t.Fatal(err)
	}
	prior, _ := f.state.Unmarshal(f.typ)
	if diffs, err := planned.Diff(prior); err != nil || len(diffs) > 0 {
		t.Fatalf("no-change plan differs from the state (%v): %v", err, diffs)
	}
	r, err := f.server.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: resourceType, CurrentState: f.state, CurrentIdentity: f.identity})
	if err != nil {
		t.Fatal(err)
	}
	checkDiags(t, "read", r.Diagnostics)
	read, err := r.NewState.Unmarshal(f.typ)
	if err != nil {
		t.Fatal(err)
	}
	if diffs, err := read.Diff(prior); err != nil || len(diffs) > 0 {
		t.Fatalf("a refresh of the stored object differs from the state (%v): %v", err, diffs)
	}
	if !served {
		return
	}

	// A create whose plan's dry run found no object of its name does not
	// read the object first: its plan names the generation of the object
	// its dry run made (in every Terraform version) and the identity (from
	// 1.12). One whose plan could not tell (the generation known only
	// after apply) does. The id stays known only after apply: other
	// resources refer to it. A create planned over an
	// object that exists (as the replacement of a tainted one, whose
	// identity Terraform passes on) has neither.
	null, err := tfprotov6.NewDynamicValue(f.typ, tftypes.NewValue(f.typ, nil))
	if err != nil {
		t.Fatal(err)
	}
	over, err := f.server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
		TypeName: resourceType, Config: f.config, PriorState: &null, ProposedNewState: f.config, PriorIdentity: f.identity,
	})
	if err != nil {
		t.Fatal(err)
	}
	checkDiags(t, "plan of a create over an existing object", over.Diagnostics)
	if id, err := over.PlannedIdentity.IdentityData.Unmarshal(tftypes.Object{AttributeTypes: map[string]tftypes.Type{"name": tftypes.String}}); err != nil || !id.IsNull() {
		t.Errorf("a create planned over an existing object has the planned identity %v (%v), want null", id, err)
	}
	if g := plannedGeneration(t, f.typ, over.PlannedState); g.IsKnown() {
		t.Errorf("a create planned over an existing object has the planned generation %v, want unknown", g)
	}
	f.gone.Store(true)
	defer f.gone.Store(false)
	cp, err := f.server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
		TypeName: resourceType, Config: f.config, PriorState: &null, ProposedNewState: f.config,
	})
	if err != nil {
		t.Fatal(err)
	}
	checkDiags(t, "plan of a create", cp.Diagnostics)
	if g := plannedGeneration(t, f.typ, cp.PlannedState); !g.Equal(tftypes.NewValue(tftypes.Number, 1)) {
		t.Errorf("a create whose dry run found no object of its name has the planned generation %v, want 1", g)
	}
	if id := attrsOf(t, f.typ, cp.PlannedState)["id"]; id.IsKnown() {
		t.Errorf("a create has the planned id %v, want unknown (other resources refer to it)", id)
	}
	unknownGeneration := withUnknownGeneration(t, f.typ, cp.PlannedState)
	for _, c := range []struct {
		what     string
		planned  *tfprotov6.DynamicValue
		identity *tfprotov6.ResourceIdentityData
		wantGets int32
	}{
		{"planned generation and identity (Terraform 1.12 and later)", cp.PlannedState, cp.PlannedIdentity, 0},
		{"planned generation, no identity (Terraform before 1.12)", cp.PlannedState, nil, 0},
		{"generation known only after apply (a plan that could not reach the server)", unknownGeneration, nil, 1},
	} {
		f.gets.Store(0)
		ap, err := f.server.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{
			TypeName: resourceType, Config: f.config, PriorState: &null, PlannedState: c.planned,
			PlannedIdentity: c.identity, PlannedPrivate: cp.PlannedPrivate,
		})
		if err != nil {
			t.Fatal(err)
		}
		checkDiags(t, "create", ap.Diagnostics)
		if got := f.gets.Load(); got != c.wantGets {
			t.Errorf("create with %s: %d GETs, want %d", c.what, got, c.wantGets)
		}
	}
}

// attrsOf are the attributes of a planned state.
func attrsOf(t *testing.T, typ tftypes.Type, planned *tfprotov6.DynamicValue) map[string]tftypes.Value {
	t.Helper()
	v, err := planned.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		t.Fatal(err)
	}
	return attrs
}

// metadataOf is the metadata block's attributes in attrs, and its type.
func metadataOf(t *testing.T, attrs map[string]tftypes.Value) (map[string]tftypes.Value, tftypes.Type) {
	t.Helper()
	var blocks []tftypes.Value
	if err := attrs["metadata"].As(&blocks); err != nil || len(blocks) != 1 {
		t.Fatalf("metadata %v (%v)", attrs["metadata"], err)
	}
	var m map[string]tftypes.Value
	if err := blocks[0].As(&m); err != nil {
		t.Fatal(err)
	}
	return m, blocks[0].Type()
}

// plannedGeneration is metadata.generation in a planned state.
func plannedGeneration(t *testing.T, typ tftypes.Type, planned *tfprotov6.DynamicValue) tftypes.Value {
	t.Helper()
	m, _ := metadataOf(t, attrsOf(t, typ, planned))
	return m["generation"]
}

// withUnknownGeneration is planned with its generation unknown, as a plan
// that made no dry run leaves it.
func withUnknownGeneration(t *testing.T, typ tftypes.Type, planned *tfprotov6.DynamicValue) *tfprotov6.DynamicValue {
	t.Helper()
	attrs := attrsOf(t, typ, planned)
	m, mt := metadataOf(t, attrs)
	m["generation"] = tftypes.NewValue(tftypes.Number, tftypes.UnknownValue)
	attrs["metadata"] = tftypes.NewValue(attrs["metadata"].Type(), []tftypes.Value{tftypes.NewValue(mt, m)})
	out, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, attrs))
	if err != nil {
		t.Fatal(err)
	}
	return &out
}

// BenchmarkProtocol measures one call of each kind for one object of the
// harness (3 webhooks). A no-change `terraform plan` makes, per object,
// ValidateResourceConfig twice (validate walk and plan walk), ReadResource
// and PlanResourceChange once each.
//
// Served, the same calls run against the stand-in API server (see
// standInAPIServer), plus ApplyResourceChange: the create and the update as
// an apply makes them, and the destroy.
func BenchmarkProtocol(b *testing.B) {
	benchmarkProtocol(b, newProtocolFixture(b, false))
}

func BenchmarkProtocolServed(b *testing.B) {
	f := newProtocolFixture(b, true)
	benchmarkProtocol(b, f)
	ctx := context.Background()
	plan := func(b *testing.B, prior, proposed *tfprotov6.DynamicValue, identity *tfprotov6.ResourceIdentityData) *tfprotov6.PlanResourceChangeResponse {
		resp, err := f.server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
			TypeName: resourceType, Config: f.config, PriorState: prior, ProposedNewState: proposed, PriorIdentity: identity,
		})
		if err != nil || len(resp.Diagnostics) > 0 {
			b.Fatal(err, diagString(resp.Diagnostics))
		}
		return resp
	}
	null, err := tfprotov6.NewDynamicValue(f.typ, tftypes.NewValue(f.typ, nil))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name            string
		prior, proposed *tfprotov6.DynamicValue
		identity        *tfprotov6.ResourceIdentityData
		gone            bool
	}{{"ApplyResourceChange/create", &null, f.config, nil, true}, {"ApplyResourceChange/update", f.state, f.stateC, f.identity, false}} {
		b.Run(c.name, func(b *testing.B) {
			f.gone.Store(c.gone)
			defer f.gone.Store(false)
			planned := plan(b, c.prior, c.proposed, c.identity)
			b.ReportAllocs()
			for b.Loop() {
				resp, err := f.server.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{
					TypeName: resourceType, Config: f.config, PriorState: c.prior, PlannedState: planned.PlannedState,
					PlannedIdentity: planned.PlannedIdentity, PlannedPrivate: planned.PlannedPrivate,
				})
				if err != nil || len(resp.Diagnostics) > 0 {
					b.Fatal(err, diagString(resp.Diagnostics))
				}
			}
		})
	}
	b.Run("ApplyResourceChange/destroy", func(b *testing.B) {
		f.gone.Store(true)
		defer f.gone.Store(false)
		b.ReportAllocs()
		for b.Loop() {
			resp, err := f.server.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{
				TypeName: resourceType, PriorState: f.state, PlannedState: &null, Config: &null,
			})
			if err != nil || len(resp.Diagnostics) > 0 {
				b.Fatal(err, diagString(resp.Diagnostics))
			}
		}
	})
}

func benchmarkProtocol(b *testing.B, f *protocolFixture) {
	ctx := context.Background()
	b.Run("ValidateResourceConfig", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			resp, err := f.server.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: resourceType, Config: f.config})
			if err != nil || len(resp.Diagnostics) > 0 {
				b.Fatal(err, diagString(resp.Diagnostics))
			}
		}
	})
	b.Run("ReadResource", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			resp, err := f.server.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: resourceType, CurrentState: f.state, CurrentIdentity: f.identity})
			if err != nil || len(resp.Diagnostics) > 0 {
				b.Fatal(err, diagString(resp.Diagnostics))
			}
		}
	})
	for _, c := range []struct {
		name     string
		proposed *tfprotov6.DynamicValue
	}{{"PlanResourceChange/no-change", f.state}, {"PlanResourceChange/update", f.stateC}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				resp, err := f.server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
					TypeName: resourceType, Config: f.config, PriorState: f.state, ProposedNewState: c.proposed, PriorIdentity: f.identity,
				})
				if err != nil || len(resp.Diagnostics) > 0 {
					b.Fatal(err, diagString(resp.Diagnostics))
				}
			}
		})
	}
	b.Run("PlanResourceChange/destroy", func(b *testing.B) {
		null, err := tfprotov6.NewDynamicValue(f.typ, tftypes.NewValue(f.typ, nil))
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			resp, err := f.server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
				TypeName: resourceType, Config: &null, PriorState: f.state, ProposedNewState: &null, PriorIdentity: f.identity,
			})
			if err != nil || len(resp.Diagnostics) > 0 {
				b.Fatal(err, diagString(resp.Diagnostics))
			}
		}
	})
	b.Run("PlanResourceChange/create", func(b *testing.B) {
		null, err := tfprotov6.NewDynamicValue(f.typ, tftypes.NewValue(f.typ, nil))
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			resp, err := f.server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
				TypeName: resourceType, Config: f.config, PriorState: &null, ProposedNewState: f.config,
			})
			if err != nil || len(resp.Diagnostics) > 0 {
				b.Fatal(err, diagString(resp.Diagnostics))
			}
		}
	})
}

func diagString(diags []*tfprotov6.Diagnostic) string {
	s := ""
	for _, d := range diags {
		s += d.Summary + ": " + d.Detail + "\n"
	}
	return s
}
