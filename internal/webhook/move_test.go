package webhook_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/provider"
)

// The state hashicorp/kubernetes keeps after a refresh (its empty maps for
// the labels, annotations and match_labels an object has not, "" for the
// strings left out) moves to the state an import reads for the object: none
// of them, so that the plan after the move shows no change where the
// configuration sets none. A ca_bundle that state read from the server is the
// object's, kept as an import reads it.
func TestMoveRefreshedHashicorpState(t *testing.T) {
	ctx := context.Background()
	srv := providerserver.NewProtocol6(provider.New("test")())()
	schemas, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("testdata/hashicorp-kubernetes-refreshed.json")
	if err != nil {
		t.Fatal(err)
	}
	var fixture struct {
		Resources []struct {
			Type, Name string
			Instances  []struct {
				Attributes json.RawMessage `json:"attributes"`
			} `json:"instances"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(raw, &fixture); err != nil {
		t.Fatal(err)
	}
	attr := func(names ...any) *tftypes.AttributePath {
		p := tftypes.NewAttributePath()
		for _, n := range names {
			switch n := n.(type) {
			case string:
				p = p.WithAttributeName(n)
			case int:
				p = p.WithElementKeyInt(n)
			case mapKey:
				p = p.WithElementKeyString(string(n))
			}
		}
		return p
	}
	nulls := []*tftypes.AttributePath{
		attr("metadata", 0, "labels"), attr("metadata", 0, "annotations"),
	}
	cases := map[string]struct {
		nulls []*tftypes.AttributePath
		set   map[*tftypes.AttributePath]string
		pem   *tftypes.AttributePath // a ca_bundle that stays
	}{
		// With a service and a ca_bundle, a namespace selector of match
		// expressions only, a second webhook with a URL.
		"kubernetes_mutating_webhook_configuration_v1.full": {
			nulls: []*tftypes.AttributePath{
				attr("webhook", 0, "namespace_selector", 0, "match_labels"), attr("webhook", 0, "client_config", 0, "url"),
				attr("webhook", 1, "client_config", 0, "ca_bundle"), attr("webhook", 1, "client_config", 0, "service"),
			},
			set: map[*tftypes.AttributePath]string{
				attr("metadata", 0, "labels", mapKey("team")):                              "platform",
				attr("webhook", 0, "namespace_selector", 0, "match_expressions", 0, "key"): "kubernetes.io/metadata.name",
				attr("webhook", 1, "client_config", 0, "url"):                              "https://hooks.example.com/mutate",
			},
			pem: attr("webhook", 0, "client_config", 0, "ca_bundle"),
		},
		"kubernetes_mutating_webhook_configuration_v1.minimal": {nulls: append(nulls, attr("webhook", 0, "client_config", 0, "ca_bundle"))},
		"kubernetes_validating_webhook_configuration_v1.full":  {nulls: []*tftypes.AttributePath{attr("metadata", 0, "annotations")}},
	}
	found := 0
	for _, r := range fixture.Resources {
		c, ok := cases[r.Type+"."+r.Name]
		if !ok {
			continue
		}
		found++
		target := "admission_" + r.Type[len("kubernetes_"):len(r.Type)-len("_v1")]
		t.Run(r.Type+"."+r.Name, func(t *testing.T) {
			resp, err := srv.MoveResourceState(ctx, &tfprotov6.MoveResourceStateRequest{
				SourceProviderAddress: "registry.terraform.io/hashicorp/kubernetes",
				SourceTypeName:        r.Type,
				SourceState:           &tfprotov6.RawState{JSON: r.Instances[0].Attributes},
				TargetTypeName:        target,
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range resp.Diagnostics {
				t.Errorf("%s: %s: %s", d.Severity, d.Summary, d.Detail)
			}
			if resp.TargetState == nil {
				t.Fatal("no state")
			}
			state, err := resp.TargetState.Unmarshal(schemas.ResourceSchemas[target].ValueType())
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range c.nulls {
				v, _, err := tftypes.WalkAttributePath(state, p)
				if err != nil {
					t.Errorf("%s: %v", p, err)
					continue
				}
				tv, ok := v.(tftypes.Value)
				if !ok {
					t.Errorf("%s = %v, want a value", p, v)
					continue
				}
				if emptyList := tv.Type().Is(tftypes.List{}) && tv.IsKnown() && listLen(tv) == 0; !tv.IsNull() && !emptyList {
					t.Errorf("%s = %v, want none", p, v)
				}
			}
			if c.pem != nil {
				v, _, err := tftypes.WalkAttributePath(state, c.pem)
				var s string
				if tv, ok := v.(tftypes.Value); err != nil || !ok || tv.As(&s) != nil || !strings.HasPrefix(s, "-----BEGIN CERTIFICATE-----") {
					t.Errorf("%s = %v (%v), want the PEM of the source state", c.pem, v, err)
				}
			}
			for p, want := range c.set {
				v, _, err := tftypes.WalkAttributePath(state, p)
				var s string
				if tv, ok := v.(tftypes.Value); err != nil || !ok || tv.As(&s) != nil || s != want {
					t.Errorf("%s = %v (%v), want %q", p, v, err, want)
				}
			}
		})
	}
	if found != len(cases) {
		t.Fatalf("the fixture has %d of the %d resources", found, len(cases))
	}
}

type mapKey string

func listLen(v tftypes.Value) int {
	var l []tftypes.Value
	if err := v.As(&l); err != nil {
		return -1
	}
	return len(l)
}
