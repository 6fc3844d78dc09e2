package webhook

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
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

	_, err := r.apply(ctx, plan.objectModel, cfg.objectModel, true, &resp.Diagnostics)
	r.kind.report.DryRunResult(ctx, &resp.Diagnostics, name, err)
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
