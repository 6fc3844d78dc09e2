package object

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
)

// API is the calls on the objects of one kind, with the objects in the form
// T that the kind's family holds them in.
type API[T any] interface {
	// Get reads one object; a missing object is (nil, nil).
	Get(ctx context.Context, name string) (*T, error)
	// List lists the objects matching a label selector.
	List(ctx context.Context, labelSelector string) ([]T, error)
	// Apply writes obj with server-side apply (see kube.Objects.Apply).
	Apply(ctx context.Context, obj *T, dryRun, force bool) (*T, error)
	// Delete deletes an object and waits until it is gone; a missing
	// object is not an error.
	Delete(ctx context.Context, name string) error
}

// Kind is one kind of object as the steps that the resources and data
// sources of every family share reach it (Apply, Absent, Read, Delete,
// ImportState, Find, List). Reading a configuration, plan or state into a
// model, and writing a state, stay with the family.
type Kind[T any] struct {
	// API is the kind's API calls through a client.
	API func(*kube.Client) API[T]
	// Meta is the metadata of one of its objects.
	Meta func(*T) *metav1.ObjectMeta
	// Report reports its diagnostics.
	Report Reporter
}

// Absent reports whether the cluster has no object named name, which a
// create checks first: server-side apply would take over an object of the
// same name. It reports an object found, on metadata.name, and a failed
// read.
func (k Kind[T]) Absent(ctx context.Context, c *kube.Client, name string, diags *diag.Diagnostics) bool {
	existing, err := k.API(c).Get(ctx, name)
	if err != nil {
		k.Report.APIError(diags, "read", name, err)
		return false
	}
	if existing != nil {
		diags.AddAttributeError(path.Root("metadata").AtListIndex(0).AtName("name"),
			k.Report.Kind+" already exists", k.Report.AlreadyExists(name))
		return false
	}
	return true
}

// Read refreshes the state of a resource from the object named name:
// write sets resp.State from the object the server has. While the provider
// is not connected (its configuration depends on values known only at
// apply), the state stays as it is; an object gone from the cluster is
// removed from the state, so that the plan creates it again.
func (k Kind[T]) Read(ctx context.Context, h *ClientHolder, name string, timeout Timeout,
	write func(context.Context, *T) diag.Diagnostics, resp *resource.ReadResponse) {
	if !h.Connected() {
		tflog.Info(ctx, "not refreshing: provider configuration not known yet")
		return
	}
	ctx, cancel, diags := WithTimeout(ctx, timeout, DefaultReadTimeout)
	defer cancel()
	if resp.Diagnostics.Append(diags...); diags.HasError() {
		return
	}
	obj, err := k.API(h.C).Get(ctx, name)
	if err != nil {
		k.Report.APIError(&resp.Diagnostics, "read", name, err)
		return
	}
	if obj == nil {
		tflog.Warn(ctx, k.Report.Kind+" is gone; removing it from state", map[string]any{"name": name})
		resp.State.RemoveResource(ctx)
		// Terraform 1.11 wants an identity even for a removed resource.
		SetIdentity(ctx, resp.Identity, name, &resp.Diagnostics)
		return
	}
	resp.Diagnostics.Append(write(ctx, obj)...)
	SetIdentity(ctx, resp.Identity, name, &resp.Diagnostics)
}

// Delete deletes the object named name of a resource and waits until it is
// gone, once diags hold what reading the state reported.
func (k Kind[T]) Delete(ctx context.Context, h *ClientHolder, name string, timeout Timeout, diags *diag.Diagnostics) {
	ctx, cancel, c := h.Begin(ctx, timeout, DefaultWriteTimeout, diags)
	defer cancel()
	if c == nil {
		return
	}
	if err := k.API(c).Delete(ctx, name); err != nil {
		k.Report.APIError(diags, "delete", name, err)
	}
}

// ImportState starts the state of an imported object with its id, the name
// that the import asks for (ImportName); the read that follows fills in the
// rest. example is a name to show in the error when there is none.
func (k Kind[T]) ImportState(ctx context.Context, example string, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	name := ImportName(ctx, req.ID, req.Identity, &resp.Diagnostics)
	if name == "" {
		resp.Diagnostics.AddError("Missing name", "Import a "+k.Report.Kind+" by its name, for example: terraform import admission_"+k.Report.TypeName+".example "+example)
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), name)...)
}
