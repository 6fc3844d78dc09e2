package core

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

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
		return d.resolveConflicts(ctx, api, c.FieldManager, obj, dryRun, conflicts, diags)
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
//
// A field that manager (Terraform's) has not applied is not drift but taken
// over: on the first write of an object made by another tool and imported
// (kubectl apply, helm install: imperative updates own all of it), or where
// manager owns the field with the other one (the server value is the one
// Terraform applied; an update changing it would have taken it from
// Terraform alone). Its warning says so.
func (d *Description[M, T]) resolveConflicts(ctx context.Context, api Objects[T], manager string, obj *T, dryRun bool, conflicts []FieldConflict, diags *diag.Diagnostics) (*T, error) {
	name := d.Meta(obj).Name
	current, err := api.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	appliers := map[string]bool{}
	// Whether manager applied the object before, and the fields it owns,
	// named as conflicts name them.
	applied, ours := false, map[string]bool{}
	if current != nil { // not gone since
		for _, mf := range d.Meta(current).ManagedFields {
			if mf.Operation == metav1.ManagedFieldsOperationApply {
				appliers[mf.Manager] = true
			}
			if mf.Manager == manager && mf.Operation == metav1.ManagedFieldsOperationApply && mf.Subresource == "" && mf.FieldsV1 != nil {
				applied = true
				var set fieldpath.Set
				if set.FromJSON(bytes.NewReader(mf.FieldsV1.GetRawBytes())) == nil {
					// A conflict names its field by fieldpath.Path.String
					// (k8s.io/apimachinery managedfields/internal.NewConflictError).
					set.Iterate(func(p fieldpath.Path) { ours[p.String()] = true })
				}
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
		var reverted, takenOver []FieldConflict
		for _, c := range conflicts {
			if !applied || ours[c.Field] {
				takenOver = append(takenOver, c)
			} else {
				reverted = append(reverted, c)
			}
		}
		if len(reverted) > 0 {
			diags.AddWarning(fmt.Sprintf("Changes made outside Terraform to %q were reverted", name),
				"These fields had been changed by others and were set back to the configuration:\n\n"+describeConflicts(reverted))
		}
		if len(takenOver) > 0 {
			diags.AddWarning(fmt.Sprintf("Fields of %q taken over from other field managers", name),
				"These fields, which other field managers had set, now hold the configuration's values, and Terraform manages them:\n\n"+
					describeConflicts(takenOver)+"\n\nIf the tool that made the object writes it again (kubectl apply, helm upgrade), it sets them back.")
		}
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
