package webhook

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/core"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/metadata"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfconv"
)

// moveFromHashicorpKubernetes takes over the state of hashicorp/kubernetes'
// kubernetes_<kind>_v1 resource of the same kind, so that a live webhook
// changes provider without being deleted and created again, and without a
// write: the moved state is the one this resource's own read makes of the
// object that state describes (write, as after an import), so the plan that
// follows the move shows no change where the configuration is the same.
//
// That provider's blocks have the names and nesting of this one's (its
// schema version 0), so its state is read as this resource's: attributes it
// has and this one has not (generate_name) are dropped, and the empty
// strings it stores for optional values left out become null. What its
// refreshes leave in the state but the object does not hold (labels = {}
// and annotations = {} for maps the object has not: the plugin SDK's
// normalizeNullValues keeps an empty map on a read), and other tools' keys
// (Helm's meta.helm.sh/*) go the way an import reads them (metadata.Flatten
// without a prior state), and a ca_bundle it read from the server is the
// object's, left to whoever set it, as an import reads it. The refresh that
// follows reads the rest from the server.
func moveFromHashicorpKubernetes[H hook](typeName string, write core.StateWriter[configuration]) func(context.Context, resource.MoveStateRequest, *resource.MoveStateResponse) {
	return func(ctx context.Context, req resource.MoveStateRequest, resp *resource.MoveStateResponse) {
		if !core.FromHashicorpKubernetes(req.SourceProviderAddress) || req.SourceTypeName != "kubernetes_"+typeName+"_v1" {
			return // not ours to move: the framework reports that no mover matched
		}
		fail := func(detail string) {
			resp.Diagnostics.AddError("Cannot move the state of "+req.SourceTypeName, detail)
		}
		if req.SourceSchemaVersion != 0 || req.SourceRawState == nil {
			fail("Only the state of schema version 0 of hashicorp/kubernetes' " + req.SourceTypeName + " can be moved; " +
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
			fail("Its state does not have the shape of hashicorp/kubernetes' schema version 0: " + err.Error())
			return
		}
		resp.TargetState.Raw = raw
		var src movedState[H]
		if resp.Diagnostics.Append(resp.TargetState.Get(ctx, &src)...); resp.Diagnostics.HasError() {
			return
		}
		obj := src.object()
		if obj.Name == "" {
			fail("Its state has no metadata.name.")
			return
		}
		resp.Diagnostics.Append(write(ctx, obj, &resp.TargetState)...)
		core.SetIdentity(ctx, resp.TargetIdentity, obj.Name, &resp.Diagnostics)
	}
}

// movedState is the source state read as this resource's: the object and
// the timeouts block (which hashicorp/kubernetes' webhook resources have
// not, so it is null).
type movedState[H hook] struct {
	objectModel[H]
	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

// object is the webhook configuration the state describes.
func (m *movedState[H]) object() *configuration {
	x := &tfconv.Expander{}
	obj := &configuration{}
	if len(m.Metadata) > 0 {
		obj.ObjectMeta = metadata.Expand(x, m.Metadata[0], field.NewPath("metadata"))
	}
	expandWebhooks(x, &m.objectModel, obj)
	return obj
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
