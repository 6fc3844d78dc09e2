package policy

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/object"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfschema"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// Resources are the resources of this family.
func Resources() []func() resource.Resource {
	return []func() resource.Resource{
		resourceOf(validatingPolicies),
		resourceOf(validatingBindings),
		resourceOf(mutatingPolicies),
		resourceOf(mutatingBindings),
	}
}

func resourceOf[S, T any](k *kind[S, T]) func() resource.Resource {
	return func() resource.Resource { return &policyResource[S, T]{kind: k} }
}

// policyResource is the resource of one kind of the family.
type policyResource[S, T any] struct {
	kind *kind[S, T]
	object.ClientHolder
}

var (
	_ resource.ResourceWithConfigure      = (*policyResource[validatingPolicySpec, validatingPolicy])(nil)
	_ resource.ResourceWithImportState    = (*policyResource[validatingPolicySpec, validatingPolicy])(nil)
	_ resource.ResourceWithModifyPlan     = (*policyResource[validatingPolicySpec, validatingPolicy])(nil)
	_ resource.ResourceWithValidateConfig = (*policyResource[validatingPolicySpec, validatingPolicy])(nil)
	_ resource.ResourceWithIdentity       = (*policyResource[validatingPolicySpec, validatingPolicy])(nil)
)

func (r *policyResource[S, T]) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + r.kind.typeName
}

func (r *policyResource[S, T]) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = r.kind.resourceSchema()
	resp.Schema.Blocks["timeouts"] = object.TimeoutsBlock(ctx)
	tfschema.BuildBlockTypes(resp.Schema.Blocks)
}

func (r *policyResource[S, T]) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = object.IdentitySchema(r.kind.api.name)
}

func (r *policyResource[S, T]) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.Set(req.ProviderData, &resp.Diagnostics)
}

// ValidateConfig runs the server's rules offline, so that `terraform
// validate` and every plan fail where the API server would. Rules the
// server enforces only on a create, and those that depend on the server's
// version, wait for ModifyPlan, which knows whether the object is new and
// can learn the version.
func (r *policyResource[S, T]) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	cfg, diags := readObject[S](ctx, req.Config)
	if diags.HasError() {
		tflog.Debug(ctx, "skipping validation: configuration not known yet")
		return
	}
	exp := r.kind.expand(cfg)
	// What every supported server says of a create; the rest needs the
	// server's version or the stored object, which ModifyPlan knows.
	errs := r.kind.report.LeftToTerraform(ctx, req.Config, validation.Offline(r.kind.check(exp.Object, nil)))
	r.kind.report.FieldErrors(&resp.Diagnostics, errs, exp.unknownAt)
}

// timeoutsOf reads the timeouts block.
func timeoutsOf(ctx context.Context, from getter, diags *diag.Diagnostics) timeouts.Value {
	var t timeouts.Value
	diags.Append(from.GetAttribute(ctx, path.Root("timeouts"), &t)...)
	return t
}

func (r *policyResource[S, T]) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	plan, diags := readObject[S](ctx, req.Plan)
	resp.Diagnostics.Append(diags...)
	t := timeoutsOf(ctx, req.Plan, &resp.Diagnostics)
	ctx, cancel, c := r.Begin(ctx, t.Create, object.DefaultWriteTimeout, &resp.Diagnostics)
	defer cancel()
	if c == nil {
		return
	}
	name := plan.name()
	if !r.kind.object.Absent(ctx, c, name, &resp.Diagnostics) {
		return
	}
	obj, err := r.apply(ctx, plan, false, &resp.Diagnostics)
	if err != nil {
		r.kind.report.APIError(&resp.Diagnostics, "create", name, err)
		if kube.MayHaveWritten(err) {
			object.KeepUnconfirmed(ctx, req.Plan, name, &resp.State, resp.Identity, &resp.Diagnostics)
		}
		return
	}
	r.save(ctx, obj, plan, req.Plan.Raw, &resp.State, resp.Identity, &resp.Diagnostics)
}

func (r *policyResource[S, T]) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	state, diags := readObject[S](ctx, req.State)
	resp.Diagnostics.Append(diags...)
	t := timeoutsOf(ctx, req.State, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	r.kind.object.Read(ctx, &r.ClientHolder, state.name(), t.Read, func(ctx context.Context, obj *T) diag.Diagnostics {
		return r.kind.write(ctx, &resp.State, obj, &state)
	}, resp)
}

func (r *policyResource[S, T]) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	plan, diags := readObject[S](ctx, req.Plan)
	resp.Diagnostics.Append(diags...)
	t := timeoutsOf(ctx, req.Plan, &resp.Diagnostics)
	ctx, cancel, c := r.Begin(ctx, t.Update, object.DefaultWriteTimeout, &resp.Diagnostics)
	defer cancel()
	if c == nil {
		return
	}
	obj, err := r.apply(ctx, plan, false, &resp.Diagnostics)
	if err != nil {
		r.kind.report.APIError(&resp.Diagnostics, "update", plan.name(), err)
		return
	}
	r.save(ctx, obj, plan, req.Plan.Raw, &resp.State, resp.Identity, &resp.Diagnostics)
}

func (r *policyResource[S, T]) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	state, diags := readObject[S](ctx, req.State)
	resp.Diagnostics.Append(diags...)
	t := timeoutsOf(ctx, req.State, &resp.Diagnostics)
	r.kind.object.Delete(ctx, &r.ClientHolder, state.name(), t.Delete, &resp.Diagnostics)
}

func (r *policyResource[S, T]) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	r.kind.object.ImportState(ctx, "my-policy", req, resp)
}

// apply writes the planned object with server-side apply (or checks it with
// a dry run) and returns what the server stored, or the server's error
// (object.Kind.Apply).
func (r *policyResource[S, T]) apply(ctx context.Context, plan objectModel[S], dryRun bool, diags *diag.Diagnostics) (*T, error) {
	return r.kind.object.Apply(ctx, r.C, r.kind.expand(plan).Object, dryRun, diags)
}

// save records what the server stored after a write: the planned state
// with the values only the server knows filled in.
func (r *policyResource[S, T]) save(ctx context.Context, obj *T, plan objectModel[S], planned tftypes.Value,
	state *tfsdk.State, identity *tfsdk.ResourceIdentity, diags *diag.Diagnostics) {
	state.Raw = planned
	diags.Append(r.kind.write(ctx, state, obj, &plan)...)
	object.SetIdentity(ctx, identity, r.kind.meta(obj).Name, diags)
}

// dryRunTimeout bounds the checks that ModifyPlan makes against the cluster.
const dryRunTimeout = 20 * time.Second

// ModifyPlan completes the checks of ValidateConfig with what needs the
// plan: the rules the server enforces only on a create, advice (type
// checking, bindings), and a dry run on the API server when it can be
// reached, so that what only the live cluster knows fails the plan rather
// than the apply. A plan without changes makes no request.
func (r *policyResource[S, T]) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	plan, diags := readObject[S](ctx, req.Plan)
	cfg, cfgDiags := readObject[S](ctx, req.Config)
	if diags.HasError() || cfgDiags.HasError() {
		tflog.Debug(ctx, "skipping plan checks: blocks known only after apply")
		return
	}
	exp := r.kind.expand(cfg)
	if req.Plan.Raw.Equal(req.State.Raw) {
		// Nothing will be written: a plan without changes costs no request
		// beyond the refresh.
		return
	}
	t := timeoutsOf(ctx, req.Plan, &resp.Diagnostics)
	limit, diags := t.Read(ctx, object.DefaultReadTimeout)
	resp.Diagnostics.Append(diags...)
	// A plan waits for the cluster only briefly: an unreachable cluster
	// must not hold it for the whole read timeout.
	checkCtx, cancel := context.WithTimeout(kube.FailFast(ctx), min(limit, dryRunTimeout))
	defer cancel()

	// The server's verdict on this request, a create or an update of what it
	// stores (the prior state), beyond what ValidateConfig said.
	var stored *T
	if !req.State.Raw.IsNull() {
		if state, diags := readObject[S](ctx, req.State); !diags.HasError() {
			stored = r.kind.expand(state).Object
		}
	}
	verdict := validation.AtPlan(r.kind.check(exp.Object, nil), r.kind.check(exp.Object, stored),
		func() validation.Version { return r.KubernetesVersion(checkCtx) })
	verdict.Errors = r.kind.report.LeftToTerraform(ctx, req.Config, verdict.Errors)
	if r.kind.report.Verdict(&resp.Diagnostics, verdict, exp.unknownAt); resp.Diagnostics.HasError() {
		return
	}

	if r.kind.advise != nil {
		env := &planEnv{}
		if r.Connected() {
			env.client = r.C
		}
		r.kind.report.Warnings(&resp.Diagnostics, r.kind.advise(checkCtx, env, exp.Object), exp.unknownAt)
	}
	if !r.Connected() || !r.C.DryRunOnPlan {
		return
	}
	if len(exp.Unknown) > 0 {
		tflog.Debug(ctx, "skipping the dry run: the configuration has values known only after apply")
		return
	}
	name := plan.name()
	_, err := r.apply(checkCtx, plan, true, &resp.Diagnostics)
	r.kind.report.DryRunResult(ctx, &resp.Diagnostics, name, err)
}
