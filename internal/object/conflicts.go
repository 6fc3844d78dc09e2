package object

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
)

// FieldConflict is one field that another field manager owns with a
// different value than the one applied.
type FieldConflict struct {
	Manager string
	Field   string
}

var conflictManager = regexp.MustCompile(`conflict with "([^"]*)"`)

// FieldConflicts extracts the field conflicts of a server-side apply error.
func FieldConflicts(err error) []FieldConflict {
	var status apierrors.APIStatus
	if err == nil || !apierrors.IsConflict(err) || !errors.As(err, &status) {
		return nil
	}
	var out []FieldConflict
	if d := status.Status().Details; d != nil {
		for _, c := range d.Causes {
			if c.Type != metav1.CauseTypeFieldManagerConflict {
				continue
			}
			m := conflictManager.FindStringSubmatch(c.Message)
			if m == nil {
				continue
			}
			out = append(out, FieldConflict{Manager: m[1], Field: c.Field})
		}
	}
	return out
}

// ErrConflictReported tells the caller the error is already on diags.
var ErrConflictReported = errors.New("field manager conflict")

// apply writes obj with server-side apply (or checks it with a dry run) and
// returns what the server stored, or the server's error. Field conflicts
// are resolved or explained on diags (resolveConflicts).
func (d *Description[M, T]) apply(ctx context.Context, c *kube.Client, obj *T, dryRun bool, diags *diag.Diagnostics) (*T, error) {
	api := d.API.Objects(c)
	stored, err := api.Apply(ctx, obj, dryRun, false)
	if conflicts := FieldConflicts(err); len(conflicts) > 0 {
		return d.resolveConflicts(ctx, api, obj, dryRun, conflicts, diags)
	}
	return stored, err
}

// resolveConflicts decides what an apply of obj that hit field conflicts
// does.
//
// A field last written by an imperative update (kubectl edit, a client's
// update or patch) is drift: the configuration says what it must be, so
// Terraform takes it back with a forced apply, with a warning naming who
// changed it. A field that another manager declares with server-side apply
// has a co-owner: that is an error, unless force_conflicts is set. The
// object's managed fields are read now.
func (d *Description[M, T]) resolveConflicts(ctx context.Context, api Objects[T], obj *T, dryRun bool, conflicts []FieldConflict, diags *diag.Diagnostics) (*T, error) {
	name := d.Meta(obj).Name
	current, err := api.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	appliers := map[string]bool{}
	if current != nil { // not gone since
		for _, mf := range d.Meta(current).ManagedFields {
			if mf.Operation == metav1.ManagedFieldsOperationApply {
				appliers[mf.Manager] = true
			}
		}
	}
	var coOwned []FieldConflict
	for _, c := range conflicts {
		if appliers[c.Manager] {
			coOwned = append(coOwned, c)
		}
	}
	if len(coOwned) > 0 {
		diags.AddError(fmt.Sprintf("Fields of %s %q are managed by another field manager", d.API.Kind, name),
			"Another field manager declares these fields with server-side apply, with other values:\n\n"+describeConflicts(coOwned)+
				"\n\nEither leave these fields out of the configuration so that the other manager keeps them "+
				"(an attribute with a server default, such as timeout_seconds or failure_policy, is always applied: set it to the other manager's value instead), "+
				"or set force_conflicts = true in the provider configuration to take them over (the other manager may set them back).")
		return nil, ErrConflictReported
	}
	forced, err := api.Apply(ctx, obj, dryRun, true)
	if err == nil && !dryRun {
		diags.AddWarning(fmt.Sprintf("Changes made outside Terraform to %q were reverted", name),
			"These fields had been changed by others and were set back to the configuration:\n\n"+describeConflicts(conflicts))
	}
	return forced, err
}

func describeConflicts(cs []FieldConflict) string {
	lines := make([]string, 0, len(cs))
	for _, c := range cs {
		lines = append(lines, fmt.Sprintf("  - %s (field manager %q)", c.Field, c.Manager))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
