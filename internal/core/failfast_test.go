package core

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	fwlist "github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfconv"
)

// liveKind is a kind whose objects the kube client reaches: id and
// metadata, and nothing else.
var liveKind = &Description[Header, testPolicy]{
	TypeName: "validating_admission_policy",
	API:      KubeAPI[testPolicy](kube.ValidatingAdmissionPolicies),
	Schema:   func() (map[string]schema.Attribute, map[string]schema.Block) { return nil, nil },
	Meta:     func(p *testPolicy) *metav1.ObjectMeta { return &p.ObjectMeta },
	Expand:   func(*tfconv.Expander, *Header, *testPolicy) {},
	Flatten:  func(h Header, _ *testPolicy, _ *Header) Header { return h },
}

// refusing is a client of a server that refuses every connection.
func refusing(t *testing.T) *kube.Client {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil { // nothing listens there now
		t.Fatal(err)
	}
	c, err := kube.NewClient(&rest.Config{Host: "http://" + addr}, kube.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// configOf is a configuration of schema type typ with the attributes in
// set and every other one null.
func configOf(ctx context.Context, typ tftypes.Object, set map[string]tftypes.Value) tftypes.Value {
	vals := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		if v, ok := set[name]; ok {
			vals[name] = v
			continue
		}
		vals[name] = tftypes.NewValue(at, nil)
	}
	return tftypes.NewValue(typ, vals)
}

// Against a cluster that refuses connections, the data sources and the
// list resource give up at once (kube.FailFast), as the checks at plan do,
// rather than retrying for the two minutes of a read's timeout.
func TestReadsFailFast(t *testing.T) {
	ctx := context.Background()
	c := refusing(t)
	within := func(what string, f func() string) {
		t.Helper()
		start := time.Now()
		msg := f()
		if d := time.Since(start); d > 15*time.Second {
			t.Errorf("%s took %s against a refused connection", what, d)
		}
		if !strings.Contains(msg, "refused") {
			t.Errorf("%s: want the refused connection reported, got %q", what, msg)
		}
	}

	within("the data source", func() string {
		ds := &DataSource[Header, testPolicy]{Kind: liveKind.ready(), client: ClientHolder{C: c}}
		var s datasource.SchemaResponse
		ds.Schema(ctx, datasource.SchemaRequest{}, &s)
		typ := objectType(t, s.Schema.Type().TerraformType(ctx))
		req := datasource.ReadRequest{Config: tfsdk.Config{Schema: s.Schema, Raw: configOf(ctx, typ, map[string]tftypes.Value{
			"name": tftypes.NewValue(tftypes.String, "p.example.com"),
		})}}
		resp := &datasource.ReadResponse{State: tfsdk.State{Schema: s.Schema}}
		ds.Read(ctx, req, resp)
		if !resp.Diagnostics.HasError() {
			t.Fatal("the data source read a refusing cluster")
		}
		return resp.Diagnostics.Errors()[0].Detail()
	})

	within("the list data source", func() string {
		ds := &ListDataSource[Header, testPolicy]{Kind: liveKind.ready(), client: ClientHolder{C: c}}
		var s datasource.SchemaResponse
		ds.Schema(ctx, datasource.SchemaRequest{}, &s)
		typ := objectType(t, s.Schema.Type().TerraformType(ctx))
		req := datasource.ReadRequest{Config: tfsdk.Config{Schema: s.Schema, Raw: configOf(ctx, typ, map[string]tftypes.Value{
			"label_selector": tftypes.NewValue(tftypes.String, "team=a"),
		})}}
		resp := &datasource.ReadResponse{State: tfsdk.State{Schema: s.Schema}}
		ds.Read(ctx, req, resp)
		if !resp.Diagnostics.HasError() {
			t.Fatal("the list data source read a refusing cluster")
		}
		if got, want := resp.Diagnostics.Errors()[0].Summary(), `Cannot list ValidatingAdmissionPolicies with label selector "team=a"`; got != want {
			t.Errorf("summary %q, want %q", got, want)
		}
		return resp.Diagnostics.Errors()[0].Detail()
	})

	within("the list resource", func() string {
		l, ok := NewListResource(liveKind)().(*ListResource[Header, testPolicy])
		if !ok {
			t.Fatal("NewListResource made no *ListResource")
		}
		l.C = c
		var s fwlist.ListResourceSchemaResponse
		l.ListResourceConfigSchema(ctx, fwlist.ListResourceSchemaRequest{}, &s)
		typ := objectType(t, s.Schema.Type().TerraformType(ctx))
		stream := &fwlist.ListResultsStream{}
		l.List(ctx, fwlist.ListRequest{Config: tfsdk.Config{Schema: s.Schema, Raw: configOf(ctx, typ, nil)}}, stream)
		for r := range stream.Results {
			if r.Diagnostics.HasError() {
				if got, want := r.Diagnostics.Errors()[0].Summary(), "Cannot list ValidatingAdmissionPolicies"; got != want {
					t.Errorf("summary %q, want %q", got, want)
				}
				return r.Diagnostics.Errors()[0].Detail()
			}
		}
		t.Fatal("the list resource listed a refusing cluster")
		return ""
	})
}

// objectType is typ, the type of a schema: an object.
func objectType(t *testing.T, typ tftypes.Type) tftypes.Object {
	t.Helper()
	o, ok := typ.(tftypes.Object)
	if !ok {
		t.Fatalf("the schema's type is %s, not an object", typ)
	}
	return o
}
