package core

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfschema"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// Resource is the resource of the kind it describes: admission_<TypeName>.
type Resource[M Model, T any] struct {
	Kind *Description[M, T]
	ClientHolder
}

// NewResource is the constructor of the resource of the kind d.
func NewResource[M Model, T any](d *Description[M, T]) func() resource.Resource {
	return func() resource.Resource { return &Resource[M, T]{Kind: d.ready()} }
}

var (
	_ resource.ResourceWithConfigure      = (*Resource[Header, struct{}])(nil)
	_ resource.ResourceWithImportState    = (*Resource[Header, struct{}])(nil)
	_ resource.ResourceWithModifyPlan     = (*Resource[Header, struct{}])(nil)
	_ resource.ResourceWithValidateConfig = (*Resource[Header, struct{}])(nil)
	_ resource.ResourceWithIdentity       = (*Resource[Header, struct{}])(nil)
	_ resource.ResourceWithMoveState      = (*Resource[Header, struct{}])(nil)
)

// withTimeouts is the timeouts block beside a model in a resource's
// configuration, plan and state.
type withTimeouts struct {
	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

func (r *Resource[M, T]) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + r.Kind.TypeName
}

func (r *Resource[M, T]) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = r.Kind.ResourceSchema()
	resp.Schema.Blocks["timeouts"] = TimeoutsBlock(ctx)
	tfschema.BuildBlockTypes(resp.Schema.Blocks)
}

func (r *Resource[M, T]) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = IdentitySchema(r.Kind.API.Kind)
}

func (r *Resource[M, T]) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.Set(req.ProviderData, &resp.Diagnostics)
}

// MoveState is the kind's state movers, if any.
func (r *Resource[M, T]) MoveState(ctx context.Context) []resource.StateMover {
	if r.Kind.StateMovers == nil {
		return nil
	}
	return r.Kind.StateMovers(ctx, r.stateOf)
}

// stateOf sets state from obj as the refresh after an import reads it (a
// StateWriter).
func (r *Resource[M, T]) stateOf(ctx context.Context, obj *T, state *tfsdk.State) diag.Diagnostics {
	m := r.Kind.FlattenObject(obj, nil)
	var t timeouts.Value
	if tt, ok := TimeoutsBlock(ctx).Type().(timeouts.Type); ok {
		t.Object = types.ObjectNull(tt.AttrTypes)
	}
	raw, diags := r.Encode(ctx, &m, t)
	if !diags.HasError() {
		state.Raw = raw
	}
	return diags
}

// types is the resource's schema type as the codec walks it.
func (r *Resource[M, T]) types(ctx context.Context) *typeNode {
	return r.Kind.schemas.resource.get(ctx, func() attr.Type {
		var resp resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &resp)
		return resp.Schema.Type()
	})
}

// Decode reads a configuration, plan or state value of the resource into a
// model and the timeouts beside it.
func (r *Resource[M, T]) Decode(ctx context.Context, v tftypes.Value) (M, timeouts.Value, diag.Diagnostics) {
	var m M
	var t withTimeouts
	diags := decode(ctx, r.types(ctx), v, &m, &t)
	return m, t.Timeouts, diags
}

// Encode is the resource's value of a model and its timeouts.
func (r *Resource[M, T]) Encode(ctx context.Context, m *M, t timeouts.Value) (tftypes.Value, diag.Diagnostics) {
	return encode(ctx, r.types(ctx), m, withTimeouts{t})
}

// ValidateConfig runs the server's rules offline, so that `terraform
// validate` and every plan fail where the API server would. Rules the
// server enforces only on a create, those that depend on the server's
// version, and advice (warnings) wait for ModifyPlan, which knows whether
// the object is new and can learn the version: each is given once per plan.
func (r *Resource[M, T]) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	cfg, _, diags := r.Decode(ctx, req.Config.Raw)
	if diags.HasError() {
		// A whole block list is unknown (a dynamic block over values known
		// only at apply): nothing can be judged yet.
		tflog.Debug(ctx, "skipping validation: configuration not known yet")
		return
	}
	k := r.Kind
	exp := k.ExpandModel(&cfg)
	// What every supported server says of a create; the rest needs the
	// server's version or the stored object, which ModifyPlan knows.
	errs := k.report.LeftToTerraform(ctx, req.Config, validation.Offline(k.Check(k.defaulted(exp.Object), nil)))
	k.report.FieldErrors(&resp.Diagnostics, errs, exp.UnknownAt)
}

func (r *Resource[M, T]) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	plan, t, diags := r.Decode(ctx, req.Plan.Raw)
	resp.Diagnostics.Append(diags...)
	cfg := r.config(ctx, req.Config.Raw, &resp.Diagnostics)
	ctx, cancel, c := r.Begin(ctx, t.Create, DefaultWriteTimeout, &resp.Diagnostics)
	defer cancel()
	if c == nil {
		return
	}
	name := plan.header().Name()
	// Server-side apply would take over an object of the same name: a
	// create stops at one (absent), unless the dry run of the plan just
	// made found none (plannedAbsent).
	if !plannedAbsent(ctx, plan.header(), req.Identity) && !r.absent(ctx, c, name, &resp.Diagnostics) {
		return
	}
	if !r.beforeWrite(ctx, c, &plan, cfg, nil, &resp.Diagnostics) {
		return
	}
	obj, err := r.write(ctx, c, &plan, cfg, &resp.Diagnostics)
	if err != nil {
		r.Kind.report.APIError(&resp.Diagnostics, "create", name, err)
		if kube.MayHaveWritten(err) && KeepUnconfirmed(ctx, req.Plan, name, &resp.State, resp.Identity, &resp.Diagnostics) {
			r.keepOwnership(ctx, cfg, resp.Private, &resp.Diagnostics)
		}
		return
	}
	r.save(ctx, obj, &plan, t, cfg, resp.Private, &resp.State, resp.Identity, &resp.Diagnostics)
	r.afterWrite(ctx, c, obj, &resp.Diagnostics)
}

func (r *Resource[M, T]) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	state, t, diags := r.Decode(ctx, req.State.Raw)
	if resp.Diagnostics.Append(diags...); diags.HasError() {
		return
	}
	if !r.Connected() {
		tflog.Info(ctx, "not refreshing: provider configuration not known yet")
		return
	}
	ctx, cancel, diags := WithTimeout(ctx, t.Read, DefaultReadTimeout)
	defer cancel()
	if resp.Diagnostics.Append(diags...); diags.HasError() {
		return
	}
	name := state.header().Name()
	obj, err := r.Kind.API.Objects(r.C).Get(ctx, name)
	if err != nil {
		r.Kind.report.APIError(&resp.Diagnostics, "read", name, err)
		return
	}
	if obj == nil {
		// Gone from the cluster: removed from the state, so that the plan
		// creates it again.
		tflog.Warn(ctx, r.Kind.API.Kind+" is gone; removing it from state", map[string]any{"name": name})
		resp.State.RemoveResource(ctx)
		// Terraform 1.11 wants an identity even for a removed resource.
		SetIdentity(ctx, resp.Identity, name, &resp.Diagnostics)
		return
	}
	m := r.Kind.FlattenObject(obj, &state)
	if len(state.header().Metadata) == 0 && r.Kind.Imported != nil {
		// The read after an import: its state has only the id.
		r.Kind.Imported(obj, &m)
	}
	raw, diags := r.Encode(ctx, &m, t)
	if resp.Diagnostics.Append(diags...); !diags.HasError() {
		resp.State.Raw = raw
	}
	if resp.Private != nil {
		r.keepServerObject(ctx, obj, resp.Private, &resp.Diagnostics)
	}
	SetIdentity(ctx, resp.Identity, name, &resp.Diagnostics)
}

func (r *Resource[M, T]) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	plan, t, diags := r.Decode(ctx, req.Plan.Raw)
	resp.Diagnostics.Append(diags...)
	cfg := r.config(ctx, req.Config.Raw, &resp.Diagnostics)
	ctx, cancel, c := r.Begin(ctx, t.Update, DefaultWriteTimeout, &resp.Diagnostics)
	defer cancel()
	if c == nil {
		return
	}
	if obj := r.unchangedSincePlan(ctx, c, plan.header().Name(), plannedNoWrite(ctx, req.Private)); obj != nil {
		// The plan found that the apply writes nothing (planNoWrite), and
		// the object has not changed since.
		r.save(ctx, obj, &plan, t, cfg, resp.Private, &resp.State, resp.Identity, &resp.Diagnostics)
		return
	}
	if !r.beforeWrite(ctx, c, &plan, cfg, &req.State.Raw, &resp.Diagnostics) {
		return
	}
	obj, err := r.write(ctx, c, &plan, cfg, &resp.Diagnostics)
	if err != nil {
		r.Kind.report.APIError(&resp.Diagnostics, "update", plan.header().Name(), err)
		return
	}
	r.save(ctx, obj, &plan, t, cfg, resp.Private, &resp.State, resp.Identity, &resp.Diagnostics)
	r.afterWrite(ctx, c, obj, &resp.Diagnostics)
}

// afterWrite runs the kind's AfterWrite on the object a write stored.
func (r *Resource[M, T]) afterWrite(ctx context.Context, c *kube.Client, obj *T, diags *diag.Diagnostics) {
	if r.Kind.AfterWrite != nil && !diags.HasError() {
		diags.Append(r.Kind.AfterWrite(ctx, c, obj)...)
	}
}

// Delete deletes the object and waits until it is gone.
func (r *Resource[M, T]) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	state, t, diags := r.Decode(ctx, req.State.Raw)
	resp.Diagnostics.Append(diags...)
	ctx, cancel, c := r.Begin(ctx, t.Delete, DefaultWriteTimeout, &resp.Diagnostics)
	defer cancel()
	if c == nil {
		return
	}
	name := state.header().Name()
	if err := r.Kind.API.Objects(c).Delete(ctx, name); err != nil {
		r.Kind.report.APIError(&resp.Diagnostics, "delete", name, err)
	}
}

// ImportState starts the state of an imported object with its id, the name
// that the import asks for (ImportName); the read that follows fills in the
// rest.
func (r *Resource[M, T]) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	name := ImportName(ctx, req.ID, req.Identity, &resp.Diagnostics)
	if name == "" {
		resp.Diagnostics.AddError("Missing name", "Import a "+r.Kind.API.Kind+" by its name, for example: terraform import admission_"+
			r.Kind.TypeName+".example "+r.Kind.ImportExample)
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), name)...)
}

// config is the configuration of a write, for kinds whose write depends on
// what the configuration leaves to others (LeaveToOthers); nil for the
// others.
func (r *Resource[M, T]) config(ctx context.Context, raw tftypes.Value, diags *diag.Diagnostics) *M {
	if r.Kind.LeaveToOthers == nil && r.Kind.Ownership == nil {
		return nil
	}
	cfg, _, d := r.Decode(ctx, raw)
	diags.Append(d...)
	return &cfg
}

// planned is the object a plan says to write: the fields the configuration
// cfg leaves to others taken out (LeaveToOthers).
func (r *Resource[M, T]) planned(plan, cfg *M) Expansion[T] {
	if r.Kind.LeaveToOthers != nil && cfg != nil {
		p := *plan
		r.Kind.LeaveToOthers(&p, cfg)
		plan = &p
	}
	return r.Kind.ExpandModel(plan)
}

// write applies the planned object and returns what the server stored, or
// the server's error (Description.apply).
func (r *Resource[M, T]) write(ctx context.Context, c *kube.Client, plan, cfg *M, diags *diag.Diagnostics) (*T, error) {
	return r.Kind.apply(ctx, c, r.planned(plan, cfg).Object, false, diags)
}

// beforeWrite runs the kind's BeforeWrite on the write of plan over the
// state (nil on a create), and reports whether the write may go on.
func (r *Resource[M, T]) beforeWrite(ctx context.Context, c *kube.Client, plan, cfg *M, state *tftypes.Value, diags *diag.Diagnostics) bool {
	k := r.Kind
	if k.BeforeWrite == nil {
		return true
	}
	var stored *T
	if state != nil {
		if s, _, d := r.Decode(ctx, *state); !d.HasError() {
			stored = k.defaulted(k.ExpandModel(&s).Object)
		}
	}
	diags.Append(k.BeforeWrite(ctx, c, plan, k.defaulted(r.planned(plan, cfg).Object), stored)...)
	return !diags.HasError()
}

// absent reports whether the cluster has no object named name, which a
// create checks when its plan could not: server-side apply would take over
// an object of the same name. It reports an object found, on metadata.name,
// and a failed read.
func (r *Resource[M, T]) absent(ctx context.Context, c *kube.Client, name string, diags *diag.Diagnostics) bool {
	existing, err := r.Kind.API.Objects(c).Get(ctx, name)
	if err != nil {
		r.Kind.report.APIError(diags, "read", name, err)
		return false
	}
	if existing != nil {
		diags.AddAttributeError(path.Root("metadata").AtListIndex(0).AtName("name"),
			r.Kind.API.Kind+" already exists", r.Kind.report.AlreadyExists(name))
		return false
	}
	return true
}

// privateState is the resource's private state in a response.
type privateState interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// save records what the server stored after a write: the planned state
// with the values only the server knows filled in.
func (r *Resource[M, T]) save(ctx context.Context, obj *T, plan *M, t timeouts.Value, cfg *M, private privateState,
	state *tfsdk.State, identity *tfsdk.ResourceIdentity, diags *diag.Diagnostics) {
	m := r.Kind.FlattenObject(obj, plan)
	raw, d := r.Encode(ctx, &m, t)
	if diags.Append(d...); !d.HasError() {
		state.Raw = raw
	}
	r.keepOwnership(ctx, cfg, private, diags)
	// The write sent what a moved state claimed (KeepUnsent).
	diags.Append(private.SetKey(ctx, unsentKey, nil)...)
	r.keepServerObject(ctx, obj, private, diags)
	SetIdentity(ctx, identity, r.Kind.Meta(obj).Name, diags)
}

// unchangedSincePlan is the object named name when the plan of its update
// found that the apply writes nothing at the resource version rv (not
// empty) and the server has that version still; nil when the update must
// write: the plan did not find so, the object changed or is gone since, or
// it could not be read (the write then says what is wrong).
func (r *Resource[M, T]) unchangedSincePlan(ctx context.Context, c *kube.Client, name, rv string) *T {
	if rv == "" {
		return nil
	}
	obj, err := r.Kind.API.Objects(c).Get(ctx, name)
	switch {
	case err != nil:
		tflog.Warn(ctx, "cannot read the object the plan found unchanged; writing it", map[string]any{"name": name, "error": err.Error()})
		return nil
	case obj == nil || r.Kind.Meta(obj).ResourceVersion != rv:
		tflog.Info(ctx, "the object changed since the plan found that the apply writes nothing; writing it", map[string]any{"name": name})
		return nil
	}
	tflog.Info(ctx, "writing nothing: the server has the object as planned", map[string]any{"name": name, "resourceVersion": rv})
	return obj
}

// keepOwnership keeps, beside the state, what the configuration says of the
// fields others may write (Ownership).
func (r *Resource[M, T]) keepOwnership(ctx context.Context, cfg *M, private privateState, diags *diag.Diagnostics) {
	if r.Kind.Ownership == nil || cfg == nil {
		return
	}
	key, value := r.Kind.Ownership(cfg)
	data, err := json.Marshal(value)
	if err != nil {
		diags.AddError("Cannot record which fields Terraform owns", err.Error())
		return
	}
	if string(data) == "[]" || string(data) == "null" {
		// None: no key, which reads as none, and keeps the state small
		// (see serverObject).
		data = nil
	}
	diags.Append(private.SetKey(ctx, key, data)...)
}
