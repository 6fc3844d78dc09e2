package webhook

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/metadata"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/object"
)

// moveFromHashicorpKubernetes takes over the state of hashicorp/kubernetes'
// kubernetes_<kind>_v1 resource of the same kind, so that a live webhook
// changes provider without being deleted and created again. That provider's
// blocks have the names and nesting of this one's (its schema version 0), so
// its state is read as this resource's: attributes it has and this one has
// not (generate_name) are dropped, and the empty strings it stores for
// optional values left out become null. The refresh that follows reads the
// rest from the server.
func moveFromHashicorpKubernetes(typeName string) func(context.Context, resource.MoveStateRequest, *resource.MoveStateResponse) {
	return func(ctx context.Context, req resource.MoveStateRequest, resp *resource.MoveStateResponse) {
		if !object.FromHashicorpKubernetes(req.SourceProviderAddress) || req.SourceTypeName != "kubernetes_"+typeName+"_v1" {
			return // not ours to move: the framework reports that no mover matched
		}
		if req.SourceSchemaVersion != 0 || req.SourceRawState == nil {
			resp.Diagnostics.AddError("Cannot move the state of "+req.SourceTypeName,
				"Only the state of schema version 0 of hashicorp/kubernetes' "+req.SourceTypeName+" can be moved; "+
					"remove it from the state (a removed block) and import the object instead.")
			return
		}
		typ := resp.TargetState.Schema.Type().TerraformType(ctx)
		raw, err := req.SourceRawState.UnmarshalWithOpts(typ, tfprotov6.UnmarshalOpts{
			ValueFromJSONOpts: tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true},
		})
		if err == nil {
			raw, err = tftypes.Transform(raw, nullEmptyStrings)
		}
		if err != nil {
			resp.Diagnostics.AddError("Cannot move the state of "+req.SourceTypeName,
				"Its state does not have the shape of hashicorp/kubernetes' schema version 0: "+err.Error())
			return
		}
		resp.TargetState.Raw = raw
		var name string
		resp.Diagnostics.Append(resp.TargetState.GetAttribute(ctx, path.Root("metadata").AtListIndex(0).AtName("name"), &name)...)
		if name == "" {
			resp.Diagnostics.AddError("Cannot move the state of "+req.SourceTypeName, "Its state has no metadata.name.")
			return
		}
		// Keys of other tools that the source state kept (Helm's meta.helm.sh/*)
		// are left to them, as an import leaves them.
		var md []metadata.Model
		resp.Diagnostics.Append(resp.TargetState.GetAttribute(ctx, path.Root("metadata"), &md)...)
		if len(md) == 1 {
			md[0].DropBookkeeping()
			resp.Diagnostics.Append(resp.TargetState.SetAttribute(ctx, path.Root("metadata"), md)...)
		}
		resp.Diagnostics.Append(resp.TargetState.SetAttribute(ctx, path.Root("id"), name)...)
		object.SetIdentity(ctx, resp.TargetIdentity, name, &resp.Diagnostics)
	}
}

// nullEmptyStrings turns the empty string that an SDKv2 provider stores for
// an optional string attribute left out (url, path, ca_bundle) into null.
// Empty strings in lists (api_groups = [""], the core group) are values.
func nullEmptyStrings(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
	steps := p.Steps()
	if len(steps) == 0 || !v.Type().Is(tftypes.String) || !v.IsKnown() || v.IsNull() {
		return v, nil
	}
	if _, isAttribute := steps[len(steps)-1].(tftypes.AttributeName); !isAttribute {
		return v, nil
	}
	var s string
	if err := v.As(&s); err != nil || s != "" {
		return v, err
	}
	return tftypes.NewValue(tftypes.String, nil), nil
}
