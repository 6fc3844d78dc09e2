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
	var plan, cfg resourceState[H]
	if diags := append(req.Plan.Get(ctx, &plan), req.Config.Get(ctx, &cfg)...); diags.HasError() {
		tflog.Debug(ctx, "skipping plan checks: blocks known only after apply")
		return
	}
	exp := expand(cfg.objectModel)
	if req.Plan.Raw.Equal(req.State.Raw) {
		// Nothing will be written: a no-change plan costs no request
		// beyond the refresh.
		return
	}
	// The server's verdict on this request, a create or an update of what
	// it stores (the prior state), beyond what ValidateConfig said.
	obj := validation.Default(exp.Object)
	var stored *configuration
	if !req.State.Raw.IsNull() {
		var state resourceState[H]
		if diags := req.State.Get(ctx, &state); !diags.HasError() {
			stored = validation.Default(expand(state.objectModel).Object)
		}
	}
	verdict := validation.AtPlan(validation.WebhookCheck(obj, nil), validation.WebhookCheck(obj, stored), func() validation.Version {
		versionCtx, cancel := context.WithTimeout(kube.FailFast(ctx), dryRunTimeout)
		defer cancel()
		return r.KubernetesVersion(versionCtx)
	})
	verdict.Errors = r.kind.report.LeftToTerraform(ctx, req.Config, verdict.Errors)
	if r.kind.report.Verdict(&resp.Diagnostics, verdict, exp.unknownAt); resp.Diagnostics.HasError() {
		return
	}
	if !r.Connected() || !r.C.DryRunOnPlan {
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
