package policy

import (
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/core"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/metadata"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfconv"
)

// The gate of a validating binding (fail_on_existing_denials) is a setting of the resource,
// but it must also hold when only the binding's policy changes: Terraform plans the policy
// without the binding, so the plan of the policy reads the gate from the bindings in the
// cluster. The binding applied with the gate on records it there, in the annotation
// metadata.GateAnnotation, written with the rest of the object by server-side apply under
// the provider's field manager: turned off, the next apply leaves it out and server-side
// apply removes it. The annotation is not in the resource's metadata.annotations: a refresh
// reads only the keys the state has, and an import leaves it out as bookkeeping
// (metadata.Own).

// gateValue is the annotation's value when the gate is on.
const gateValue = "true"

// gated adds to the expand of the validating binding the gate's annotation.
func gated(d *core.Description[validatingBindingModel, validatingBinding]) *core.Description[validatingBindingModel, validatingBinding] {
	expand := d.Expand
	d.Expand = func(x *tfconv.Expander, m *validatingBindingModel, obj *validatingBinding) {
		expand(x, m, obj)
		if m.FailOnExistingDenials.ValueBool() {
			if obj.Annotations == nil {
				obj.Annotations = map[string]string{}
			}
			obj.Annotations[metadata.GateAnnotation] = gateValue
		}
	}
	return d
}

// gateRead is the gate of the binding obj read for prior (nil: an import, a data source): the
// prior's, except that a gate on that the cluster does not record reads as off, so that the
// plan writes it (a binding applied before the gate was recorded, or whose annotation someone
// removed).
func gateRead(obj *validatingBinding, prior *validatingBindingModel) types.Bool {
	if prior == nil {
		return types.BoolNull()
	}
	if prior.FailOnExistingDenials.ValueBool() && !gateRecorded(obj) {
		return types.BoolValue(false)
	}
	return prior.FailOnExistingDenials
}

// gateRecorded reports whether the binding b, as the cluster has it, has the gate on.
func gateRecorded(b *validatingBinding) bool {
	return b != nil && b.Annotations[metadata.GateAnnotation] == gateValue
}
