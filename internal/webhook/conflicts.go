package webhook

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/object"
)

// resolveConflicts decides what an apply that hit field conflicts does
// (object.ResolveConflicts): drift is taken back, a co-owned field is an
// error unless force_conflicts is set.
func (r *webhookResource[H]) resolveConflicts(ctx context.Context, obj *configuration,
	dryRun bool, conflicts []object.FieldConflict, diags *diag.Diagnostics) (*configuration, error) {
	managedFields := func(ctx context.Context) ([]metav1.ManagedFieldsEntry, error) {
		current, err := r.objects().get(ctx, obj.Name)
		if current == nil {
			return nil, err
		}
		return current.ManagedFields, err
	}
	applyForced := func(ctx context.Context) (*configuration, error) { return r.objects().apply(ctx, obj, dryRun, true) }
	return object.ResolveConflicts(ctx, r.kind.api.name, obj.Name, dryRun, conflicts, managedFields, applyForced, diags)
}
