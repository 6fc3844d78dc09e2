// Package webhook is the webhook configuration family: the resources
// admission_mutating_webhook_configuration and
// admission_validating_webhook_configuration and their data sources, written
// once over a small description of each kind (mutating.go, validating.go).
package webhook

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/object"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfschema"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/typecheck"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// Resources are the resources of this family.
func Resources() []func() resource.Resource {
	return []func() resource.Resource{
		func() resource.Resource { return &webhookResource[mutatingHook]{kind: mutating} },
		func() resource.Resource { return &webhookResource[webhookModel]{kind: validating} },
	}
}

type webhookResource[H hook] struct {
	kind *kind[H]
	object.ClientHolder
}

var (
	_ resource.ResourceWithConfigure      = (*webhookResource[webhookModel])(nil)
	_ resource.ResourceWithImportState    = (*webhookResource[webhookModel])(nil)
	_ resource.ResourceWithModifyPlan     = (*webhookResource[webhookModel])(nil)
	_ resource.ResourceWithValidateConfig = (*webhookResource[webhookModel])(nil)
	_ resource.ResourceWithIdentity       = (*webhookResource[webhookModel])(nil)
	_ resource.ResourceWithMoveState      = (*webhookResource[webhookModel])(nil)
)

func (r *webhookResource[H]) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + r.kind.typeName
}

func (r *webhookResource[H]) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = r.kind.resourceSchema()
	resp.Schema.Blocks["timeouts"] = object.TimeoutsBlock(ctx)
	tfschema.BuildBlockTypes(resp.Schema.Blocks)
}

func (r *webhookResource[H]) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = object.IdentitySchema(r.kind.api.name)
}

func (r *webhookResource[H]) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.Set(req.ProviderData, &resp.Diagnostics)
}

// ValidateConfig runs the server's rules offline, so that `terraform
// validate` and every plan fail where the API server would. Rules the
// server enforces only on a create, and those that depend on the server's
// version, wait for ModifyPlan, which knows whether the object is new and
// can learn the version.
func (r *webhookResource[H]) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg resourceState[H]
	if diags := r.decode(ctx, req.Config.Raw, &cfg, req.Config.Get); diags.HasError() {
		// A whole block list is unknown (a dynamic block over values known
		// only at apply): nothing can be judged yet.
		tflog.Debug(ctx, "skipping validation: configuration not known yet")
		return
	}
	exp := expand(cfg.objectModel)
	obj := validation.Default(exp.Object)
	// What every supported server says of a create; the rest needs the server's version or
	// the stored object, which ModifyPlan knows.
	errs := r.kind.report.LeftToTerraform(ctx, req.Config, validation.Offline(validation.WebhookCheck(obj, nil)))
	r.kind.report.FieldErrors(&resp.Diagnostics, errs, exp.unknownAt)
	r.kind.report.Warnings(&resp.Diagnostics, validation.Advice(obj, typecheck.BuiltinScopes(), r.kind.api.name == "MutatingWebhookConfiguration"), exp.unknownAt)
}

func (r *webhookResource[H]) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan, cfg resourceState[H]
	resp.Diagnostics.Append(r.decode(ctx, req.Plan.Raw, &plan, req.Plan.Get)...)
	resp.Diagnostics.Append(r.decode(ctx, req.Config.Raw, &cfg, req.Config.Get)...)
	ctx, cancel, c := r.Begin(ctx, plan.Timeouts.Create, object.DefaultWriteTimeout, &resp.Diagnostics)
	defer cancel()
	if c == nil {
		return
	}
	name := plan.Metadata[0].Name.ValueString()
	// Server-side apply would take over an object of the same name: a
	// create stops at one (Absent), unless the dry run of the plan just
	// made found none (plan.go).
	if !plannedAbsent(ctx, req.Identity, name) && !r.kind.object.Absent(ctx, c, name, &resp.Diagnostics) {
		return
	}
	obj, err := r.apply(ctx, plan.objectModel, cfg.objectModel, false, &resp.Diagnostics)
	if err != nil {
		r.kind.report.APIError(&resp.Diagnostics, "create", name, err)
		if kube.MayHaveWritten(err) && object.KeepUnconfirmed(ctx, req.Plan, name, &resp.State, resp.Identity, &resp.Diagnostics) {
			recordCABundles(ctx, cfg, resp.Private, &resp.Diagnostics)
		}
		return
	}
	r.saveState(ctx, obj, plan, cfg, resp.Private, &resp.State, resp.Identity, &resp.Diagnostics)
}

func (r *webhookResource[H]) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state resourceState[H]
	resp.Diagnostics.Append(r.decode(ctx, req.State.Raw, &state, req.State.Get)...)
	if resp.Diagnostics.HasError() {
		return
	}
	name := state.ID.ValueString()
	if name == "" && len(state.Metadata) > 0 {
		name = state.Metadata[0].Name.ValueString()
	}
	r.kind.object.Read(ctx, &r.ClientHolder, name, state.Timeouts.Read, func(ctx context.Context, obj *configuration) diag.Diagnostics {
		return r.setState(ctx, &resp.State, resourceState[H]{r.kind.flatten(obj, &state.objectModel), state.Timeouts})
	}, resp)
}

func (r *webhookResource[H]) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, cfg resourceState[H]
	resp.Diagnostics.Append(r.decode(ctx, req.Plan.Raw, &plan, req.Plan.Get)...)
	resp.Diagnostics.Append(r.decode(ctx, req.Config.Raw, &cfg, req.Config.Get)...)
	ctx, cancel, c := r.Begin(ctx, plan.Timeouts.Update, object.DefaultWriteTimeout, &resp.Diagnostics)
	defer cancel()
	if c == nil {
		return
	}
	obj, err := r.apply(ctx, plan.objectModel, cfg.objectModel, false, &resp.Diagnostics)
	if err != nil {
		r.kind.report.APIError(&resp.Diagnostics, "update", plan.Metadata[0].Name.ValueString(), err)
		return
	}
	r.saveState(ctx, obj, plan, cfg, resp.Private, &resp.State, resp.Identity, &resp.Diagnostics)
}

func (r *webhookResource[H]) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state resourceState[H]
	resp.Diagnostics.Append(r.decode(ctx, req.State.Raw, &state, req.State.Get)...)
	r.kind.object.Delete(ctx, &r.ClientHolder, state.ID.ValueString(), state.Timeouts.Delete, &resp.Diagnostics)
}

func (r *webhookResource[H]) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	r.kind.object.ImportState(ctx, "my-webhooks", req, resp)
}

// decode reads a configuration, plan or state value into a model with the
// codec (codec.go), or with get (Config.Get, Plan.Get, State.Get) where the
// codec cannot.
func (r *webhookResource[H]) decode(ctx context.Context, v tftypes.Value, target *resourceState[H],
	get func(context.Context, any) diag.Diagnostics) diag.Diagnostics {
	return decode(ctx, r.schemaType(ctx), v, target, get)
}

// setState stores a model as the state, as State.Set does.
func (r *webhookResource[H]) setState(ctx context.Context, state *tfsdk.State, m resourceState[H]) diag.Diagnostics {
	if raw, ok := encode(ctx, r.schemaType(ctx), m); ok {
		state.Raw = raw
		return nil
	}
	return state.Set(ctx, m)
}

// schemaType is the resource's schema type, worked out once per kind.
func (r *webhookResource[H]) schemaType(ctx context.Context) *typeNode {
	return r.kind.types.get(ctx, func() attr.Type {
		var resp resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &resp)
		return resp.Schema.Type()
	})
}

// apply writes the planned object with server-side apply (or checks it with
// a dry run) and returns what the server stored, or the server's error
// (object.Kind.Apply). The caBundles the configuration leaves out stay with
// whoever injects them.
func (r *webhookResource[H]) apply(ctx context.Context, plan, cfg objectModel[H], dryRun bool, diags *diag.Diagnostics) (*configuration, error) {
	obj := expand(plan).Object
	leaveUnsetCABundles(obj, cfg)
	return r.kind.object.Apply(ctx, r.C, obj, dryRun, diags)
}

// leaveUnsetCABundles drops the caBundle of each webhook whose configuration
// leaves it out, so that it stays with whoever injects it.
func leaveUnsetCABundles[H hook](obj *configuration, cfg objectModel[H]) {
	for i := range obj.Webhooks {
		if i >= len(cfg.Webhook) || !setsCABundle(cfg.Webhook[i]) {
			obj.Webhooks[i].ClientConfig.CABundle = nil
		}
	}
}

// setsCABundle reports whether a webhook's configuration sets its caBundle.
func setsCABundle(h hook) bool {
	cc := h.base().ClientConfig
	return len(cc) > 0 && !cc[0].CABundle.IsNull()
}

// caBundleKey is the private state key that lists the webhooks whose
// ca_bundle the configuration sets (and so Terraform owns).
const caBundleKey = "ca_bundle_managed"

// privateData is the resource's private state in a response.
type privateData interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// saveState records what the server stored after a write.
func (r *webhookResource[H]) saveState(ctx context.Context, obj *configuration, plan, cfg resourceState[H],
	private privateData, state *tfsdk.State, identity *tfsdk.ResourceIdentity, diags *diag.Diagnostics) {
	diags.Append(r.setState(ctx, state, resourceState[H]{r.kind.flatten(obj, &plan.objectModel), plan.Timeouts})...)
	recordCABundles(ctx, cfg, private, diags)
	object.SetIdentity(ctx, identity, obj.Name, diags)
}

// recordCABundles keeps, beside the state, which webhooks' caBundle the
// configuration sets (the others belong to whoever injects them).
func recordCABundles[H hook](ctx context.Context, cfg resourceState[H], private privateData, diags *diag.Diagnostics) {
	managed := []string{}
	for _, w := range cfg.Webhook {
		if setsCABundle(w) {
			managed = append(managed, w.base().Name.ValueString())
		}
	}
	data, err := json.Marshal(managed)
	if err != nil {
		diags.AddError("Cannot record ca_bundle ownership", err.Error())
		return
	}
	diags.Append(private.SetKey(ctx, caBundleKey, data)...)
}
