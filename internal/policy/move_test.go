package policy_test

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

// hashicorp/kubernetes' state records a validation's reason that it never
// sent to the server. The moved state has none, as the live policy; the plan
// of a configuration that sets it, as the old one did, warns on the reason's
// line that the server never got it, and one without it says nothing.
func TestMoveUnsentReason(t *testing.T) {
	ctx := context.Background()
	const target = "admission_validating_admission_policy"
	srv := providerserver.NewProtocol6(provider.New("test")())()
	schemas, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	typ := schemas.ResourceSchemas[target].ValueType()
	raw, err := os.ReadFile("testdata/hashicorp-kubernetes-policy.json")
	if err != nil {
		t.Fatal(err)
	}
	var fixture struct {
		Resources []struct {
			Instances []struct {
				Attributes json.RawMessage `json:"attributes"`
			} `json:"instances"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(raw, &fixture); err != nil || len(fixture.Resources) != 1 || len(fixture.Resources[0].Instances) != 1 {
		t.Fatalf("the fixture has not one resource: %v", err)
	}
	if !strings.Contains(strings.Join(strings.Fields(string(fixture.Resources[0].Instances[0].Attributes)), ""), `"reason":"Invalid"`) {
		t.Fatal(`the fixture's state records no reason = "Invalid"`)
	}
	moved, err := srv.MoveResourceState(ctx, &tfprotov6.MoveResourceStateRequest{
		SourceProviderAddress: "registry.terraform.io/hashicorp/kubernetes",
		SourceTypeName:        "kubernetes_validating_admission_policy_v1",
		SourceState:           &tfprotov6.RawState{JSON: fixture.Resources[0].Instances[0].Attributes},
		TargetTypeName:        target,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range moved.Diagnostics {
		t.Fatalf("move: %s: %s: %s", d.Severity, d.Summary, d.Detail)
	}
	state, err := moved.TargetState.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	reason := tftypes.NewAttributePath().WithAttributeName("spec").WithElementKeyInt(0).
		WithAttributeName("validations").WithElementKeyInt(0).WithAttributeName("reason")
	if v, _, err := tftypes.WalkAttributePath(state, reason); err != nil {
		t.Fatal(err)
	} else if tv, ok := v.(tftypes.Value); !ok || !tv.IsNull() {
		t.Fatalf("the moved state has reason %v, want none, as the server", v)
	}
	withReason, err := tftypes.Transform(state, func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if p.Equal(reason) {
			return tftypes.NewValue(tftypes.String, "Invalid"), nil
		}
		return v, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	plan := func(t *testing.T, config tftypes.Value) *tfprotov6.PlanResourceChangeResponse {
		t.Helper()
		dv, err := tfprotov6.NewDynamicValue(typ, config)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := srv.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
			TypeName: target, PriorState: moved.TargetState, ProposedNewState: &dv, Config: &dv, PriorPrivate: moved.TargetPrivate,
		})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}

	t.Run("the configuration sets it", func(t *testing.T) {
		resp := plan(t, withReason)
		var warned int
		for _, d := range resp.Diagnostics {
			switch {
			case d.Severity == tfprotov6.DiagnosticSeverityWarning && d.Summary == "The server never got this value":
				warned++
				if d.Attribute == nil || !d.Attribute.Equal(reason) {
					t.Errorf("the warning is on %v, want %v", d.Attribute, reason)
				}
				if !strings.Contains(d.Detail, `records reason = "Invalid"`) || !strings.Contains(d.Detail, "never sends") {
					t.Errorf("the warning does not say why: %s", d.Detail)
				}
			case d.Severity == tfprotov6.DiagnosticSeverityError:
				t.Errorf("error: %s: %s", d.Summary, d.Detail)
			}
		}
		if warned != 1 {
			t.Errorf("%d warnings that the server never got the reason, want 1: %v", warned, resp.Diagnostics)
		}
	})
	t.Run("the configuration leaves it out", func(t *testing.T) {
		for _, d := range plan(t, state).Diagnostics {
			t.Errorf("%s: %s: %s", d.Severity, d.Summary, d.Detail)
		}
	})
	t.Run("the reason was sent", func(t *testing.T) {
		// The prior state has the reason (the server has it): nothing to say.
		dv, err := tfprotov6.NewDynamicValue(typ, withReason)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := srv.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
			TypeName: target, PriorState: &dv, ProposedNewState: &dv, Config: &dv, PriorPrivate: moved.TargetPrivate,
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range resp.Diagnostics {
			t.Errorf("%s: %s: %s", d.Severity, d.Summary, d.Detail)
		}
	})
}
