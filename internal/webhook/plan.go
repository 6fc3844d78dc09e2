package webhook

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/object"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// dryRunTimeout bounds the checks that ModifyPlan makes against the cluster.
const dryRunTimeout = 20 * time.Second

// ModifyPlan checks the planned object with the API server (a dry-run
// apply) when it can be reached, so that what only the live cluster knows
// fails the plan rather than the apply.
func (r *webhookResource[H]) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	create := req.State.Raw.IsNull()
	// What follows checks a new object, or an object that will change, with
	// the server: a plan that changes nothing needs no check (and costs no
	// request beyond the refresh), and a change checked offline only needs
	// nothing ValidateConfig has not done. Those return before the plan and
	// configuration are read.
	dryRun := r.Connected() && r.C.DryRunOnPlan
	if !create && (!dryRun || req.Plan.Raw.Equal(req.State.Raw)) {
		return
	}
	if create {
		clearPlannedIdentity(ctx, resp.Identity)
	}
	var plan, cfg resourceState[H]
	if diags := append(r.decode(ctx, req.Plan.Raw, &plan, req.Plan.Get), r.decode(ctx, req.Config.Raw, &cfg, req.Config.Get)...); diags.HasError() {
		tflog.Debug(ctx, "skipping plan checks: blocks known only after apply")
		return
	}
	exp := expand(cfg.objectModel)
	if create {
		// A new object: the rules the server enforces only on a create
		// hold for certain (ValidateConfig left them out).
		createOnly := slices.DeleteFunc(validation.Validate(validation.Default(exp.Object)),
			func(e *field.Error) bool { return !validation.CreateOnly(e) })
		createOnly = r.kind.report.LeftToTerraform(ctx, req.Config, createOnly)
		if r.kind.report.FieldErrors(&resp.Diagnostics, createOnly, exp.unknownAt); resp.Diagnostics.HasError() {
			return
		}
	}
	if !dryRun {
		return
	}
	if len(exp.Unknown) > 0 {
		tflog.Debug(ctx, "skipping the dry run: the configuration has values known only after apply")
		return
	}
	name := plan.Metadata[0].Name.ValueString()

	// A plan waits for the dry run only briefly: an unreachable cluster
	// must not hold it for the whole read timeout.
	limit, diags := plan.Timeouts.Read(ctx, object.DefaultReadTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(kube.FailFast(ctx), min(limit, dryRunTimeout))
	defer cancel()

	stored, err := r.apply(ctx, plan.objectModel, cfg.objectModel, true, &resp.Diagnostics)
	r.kind.report.DryRunResult(ctx, &resp.Diagnostics, name, err)
	if create && err == nil && stored.ResourceVersion == "" {
		// The server created the object in the dry run: there is none of
		// that name yet (a dry run over an existing object answers with
		// its resourceVersion). The planned identity says so to Create.
		object.SetIdentity(ctx, resp.Identity, name, &resp.Diagnostics)
	}
}

// The plan of a create names the object's identity only when its dry run
// found no object of that name; Create then need not ask the server again
// (the plan that terraform apply makes just before the create is the one it
// applies). Left null, as when the plan could not reach the server, or by a
// Terraform without resource identity (before 1.12), Create reads the object
// first: server-side apply would take over an object of the same name.

// clearPlannedIdentity leaves the planned identity of a create null.
func clearPlannedIdentity(ctx context.Context, identity *tfsdk.ResourceIdentity) {
	if identity != nil && identity.Schema != nil {
		identity.Raw = tftypes.NewValue(identity.Schema.Type().TerraformType(ctx), nil)
	}
}

// plannedAbsent reports whether the plan of a create found no object named
// name (its planned identity names it).
func plannedAbsent(ctx context.Context, identity *tfsdk.ResourceIdentity, name string) bool {
	if identity == nil || identity.Raw.IsNull() {
		return false
	}
	var planned types.String
	diags := identity.GetAttribute(ctx, path.Root("name"), &planned)
	return !diags.HasError() && planned.ValueString() == name
}

// caBundlePlanModifier plans ca_bundle when the configuration leaves it out:
// the value another controller injected stays as it is, while one that
// Terraform set before and no longer sets is planned as unknown, since the
// apply removes it.
type caBundlePlanModifier struct{}

func (caBundlePlanModifier) Description(context.Context) string {
	return "Keeps a ca_bundle injected by another controller; plans one Terraform stops setting as unknown."
}

func (m caBundlePlanModifier) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

func (caBundlePlanModifier) PlanModifyString(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if !req.ConfigValue.IsNull() || req.StateValue.IsNull() || !req.PlanValue.IsUnknown() {
		return
	}
	// req.Path is webhook[i].client_config[0].ca_bundle.
	webhookPath := req.Path.ParentPath().ParentPath().ParentPath()
	var planName, stateName types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, webhookPath.AtName("name"), &planName)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, webhookPath.AtName("name"), &stateName)...)
	if resp.Diagnostics.HasError() || !planName.Equal(stateName) {
		return
	}
	data, diags := req.Private.GetKey(ctx, caBundleKey)
	resp.Diagnostics.Append(diags...)
	var managed []string
	if len(data) > 0 {
		if err := json.Unmarshal(data, &managed); err != nil {
			return
		}
	}
	if slices.Contains(managed, planName.ValueString()) {
		return
	}
	resp.PlanValue = req.StateValue
}
