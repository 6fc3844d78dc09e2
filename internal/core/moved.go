package core

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// A state moved from another provider (a `moved` block) is the state this
// resource reads for the live object, so the plan after the move shows only
// what the configuration would change. Where the other provider's state
// claims a value that it never sent to the server, the live object has not
// got it and the plan sets it: an honest change, but one its user does not
// expect after a move. The mover keeps such values beside the state
// (KeepUnsent), and the plans that follow say, on the attribute, why it is
// there (warnUnsent), until a write of this provider sends it.

// unsentKey is the private state key of the values a moved state claimed
// but the server never got.
const unsentKey = "moved_unsent"

// Unsent is a value that a moved state claims but that its provider never
// sent to the API server.
type Unsent struct {
	// Path is the API field path of the value: spec.validations[0].reason.
	Path string `json:"path"`
	// Value is what the moved state says; a string attribute's.
	Value string `json:"value"`
	// Why says why the server has not got it, for the plan's warning.
	Why string `json:"why"`
}

// KeepUnsent records, beside a moved state, the values it claimed that the
// server never got (see Unsent).
func KeepUnsent(ctx context.Context, private privateState, unsent []Unsent) diag.Diagnostics {
	if len(unsent) == 0 || private == nil {
		return nil
	}
	data, err := json.Marshal(unsent)
	if err != nil {
		var diags diag.Diagnostics
		diags.AddError("Cannot record the values the server never got", err.Error())
		return diags
	}
	return private.SetKey(ctx, unsentKey, data)
}

// warnUnsent warns, on its attribute, of each value kept by KeepUnsent that
// the plan sets where the refreshed state has none or another: the plan
// sends it to the server for the first time.
func (r *Resource[M, T]) warnUnsent(ctx context.Context, private privateReader, plan tfsdk.Plan, state tfsdk.State, diags *diag.Diagnostics) {
	if private == nil {
		return
	}
	data, _ := private.GetKey(ctx, unsentKey)
	if len(data) == 0 {
		return
	}
	var unsent []Unsent
	if err := json.Unmarshal(data, &unsent); err != nil {
		return // not ours to judge: a private state of another release
	}
	for _, u := range unsent {
		p, ok := r.Kind.Paths().AttributePath(u.Path)
		if !ok {
			continue
		}
		var planned, stored types.String
		if plan.GetAttribute(ctx, p, &planned).HasError() || state.GetAttribute(ctx, p, &stored).HasError() {
			continue // the element is gone from the configuration or from the object
		}
		if planned.IsNull() || planned.IsUnknown() || planned.ValueString() != u.Value || planned.Equal(stored) {
			continue
		}
		r.Kind.report.At(diags, u.Path, "The server never got this value", u.Why, false)
	}
}
