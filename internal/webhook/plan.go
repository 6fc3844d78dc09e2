package webhook

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/object"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/typecheck"
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
	// What follows checks a new object, or an object that will change: a
	// plan that changes nothing needs no check (and costs no request beyond
	// the refresh), and returns before the plan and configuration are read.
	// An update is checked as the server checks it, against the prior state,
	// for the server's version, even without the dry run.
	dryRun := r.Connected() && r.C.DryRunOnPlan
	if !create && req.Plan.Raw.Equal(req.State.Raw) {
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
	// The server's verdict on this request, a create or an update of what
	// it stores (the prior state), beyond what ValidateConfig said.
	obj := validation.Default(exp.Object)
	var prior *configuration
	if !create {
		var state resourceState[H]
		if diags := req.State.Get(ctx, &state); !diags.HasError() {
			prior = validation.Default(expand(state.objectModel).Object)
		}
	}
	verdict := validation.AtPlan(validation.WebhookCheck(obj, nil), validation.WebhookCheck(obj, prior), func() validation.Version {
		versionCtx, cancel := context.WithTimeout(kube.FailFast(ctx), dryRunTimeout)
		defer cancel()
		return r.KubernetesVersion(versionCtx)
	})
	verdict.Errors = r.kind.report.LeftToTerraform(ctx, req.Config, verdict.Errors)
	if r.kind.report.Verdict(&resp.Diagnostics, verdict, exp.unknownAt); resp.Diagnostics.HasError() {
		return
	}
	if r.Connected() {
		// What the cluster's discovery adds to the fail-closed warnings of ValidateConfig
		// (the scope of custom resources); discovery is read once per client, and only
		// when a rule names a resource that is not built in.
		r.kind.report.Warnings(&resp.Diagnostics, validation.LiveScopeAdvice(obj, typecheck.BuiltinScopes(), liveScopes(r.C),
			r.kind.api.name == "MutatingWebhookConfiguration"), exp.unknownAt)
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

// scopes are the resource scopes of each provider client's cluster (typecheck.LiveScopes).
var scopes sync.Map // *kube.Client → *typecheck.Scopes

func liveScopes(c *kube.Client) *typecheck.Scopes {
	if s, ok := scopes.Load(c); ok {
		return s.(*typecheck.Scopes)
	}
	dc, err := c.Discovery()
	if err != nil {
		return typecheck.BuiltinScopes()
	}
	s, _ := scopes.LoadOrStore(c, typecheck.LiveScopes(dc))
	return s.(*typecheck.Scopes)
}
