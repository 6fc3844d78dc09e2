package core

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// lastPlanStart is when a plan of a resource last started in this provider process (Unix
// nanoseconds): how a check that waits for another resource's plan (a binding for its policy,
// planned in the same run) tells that Terraform is still planning.
var lastPlanStart atomic.Int64

func planStarted() { lastPlanStart.Store(time.Now().UnixNano()) }

// plansInFlight counts the plans of resources running in this provider process: a check that
// waits for another resource's plan tells from it whether Terraform's concurrent plans are
// all waiting too (PlansInFlight).
var plansInFlight atomic.Int64

// PlansInFlight is the number of plans of resources running in this provider process.
func PlansInFlight() int64 { return plansInFlight.Load() }

// LastPlanStart is when a plan of a resource last started in this provider process; the zero
// time before any.
func LastPlanStart() time.Time {
	if n := lastPlanStart.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

// PlanCheckTimeout bounds the checks that ModifyPlan makes against the
// cluster (the server's version, advice that reads the cluster, the dry
// run): an unreachable cluster must not hold a plan for the whole read
// timeout.
const PlanCheckTimeout = 20 * time.Second

// ModifyPlan completes the checks of ValidateConfig with what needs the
// plan: the rules the server enforces only on a create or on an update of
// what it stores, those of the server's version, advice (warnings), and a
// dry run on the API server when it can be reached, so that what only the
// live cluster knows fails the plan rather than the apply.
//
// A plan that changes nothing needs no check: it costs no request beyond
// the refresh, and returns before the plan is decoded. The plan is expanded
// once; the checks and the advice judge it with the server's defaults, the
// dry run sends it as it is. An update whose dry run gives back the object
// the server has is planned to write nothing, with a warning that says so
// (planNoWrite).
func (r *Resource[M, T]) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return // destroy
	}
	planStarted()
	plansInFlight.Add(1)
	defer plansInFlight.Add(-1)
	create := req.State.Raw.IsNull()
	if !create && req.Plan.Raw.Equal(req.State.Raw) {
		return
	}
	if create {
		clearPlannedIdentity(ctx, resp.Identity)
	} else {
		r.warnUnsent(ctx, req.Private, req.Plan, req.State, &resp.Diagnostics)
		if resp.Private != nil {
			// Only this plan's dry run may decide that the apply writes
			// nothing (planNoWrite).
			resp.Diagnostics.Append(resp.Private.SetKey(ctx, noWriteKey, nil)...)
		}
	}
	k := r.Kind
	plan, t, diags := r.Decode(ctx, req.Plan.Raw)
	var cfg *M
	if !diags.HasError() && k.LeaveToOthers != nil {
		c, _, cfgDiags := r.Decode(ctx, req.Config.Raw)
		diags, cfg = cfgDiags, &c
	}
	if diags.HasError() {
		tflog.Debug(ctx, "skipping plan checks: blocks known only after apply")
		return
	}
	exp := r.planned(&plan, cfg)
	limit, diags := t.Read(ctx, DefaultReadTimeout)
	resp.Diagnostics.Append(diags...)
	checkCtx, cancel := context.WithTimeout(kube.FailFast(ctx), min(limit, PlanCheckTimeout))
	defer cancel()

	// The server's verdict on this request, a create or an update of what
	// it stores (the prior state), beyond what ValidateConfig said.
	obj := k.defaulted(exp.Object)
	var stored *T
	if !create {
		if state, _, diags := r.Decode(ctx, req.State.Raw); !diags.HasError() {
			stored = k.defaulted(k.ExpandModel(&state).Object)
		}
	}
	verdict := validation.AtPlan(k.Check(obj, nil), k.Check(obj, stored),
		func() validation.Version { return r.KubernetesVersion(checkCtx) })
	verdict.Errors = k.report.LeftToTerraform(ctx, req.Config, verdict.Errors)
	if k.report.Verdict(&resp.Diagnostics, verdict, exp.UnknownAt); resp.Diagnostics.HasError() {
		return
	}
	if k.Advise != nil {
		env := PlanEnv{Unknown: exp.Unknown, Version: func() validation.Version { return r.KubernetesVersion(checkCtx) }, Plan: &plan, Provider: r.C}
		if stored != nil {
			env.Stored = stored
		}
		if r.Connected() {
			env.Client = r.C
		}
		k.report.Warnings(&resp.Diagnostics, k.Advise(checkCtx, env, obj), exp.UnknownAt)
	}

	if !r.Connected() || !r.C.DryRunOnPlan {
		return
	}
	if len(exp.Unknown) > 0 {
		tflog.Debug(ctx, "skipping the dry run: the configuration has values known only after apply")
		return
	}
	name := k.Meta(exp.Object).Name
	dryRun, err := k.apply(checkCtx, r.C, exp.Object, true, &resp.Diagnostics)
	k.report.DryRunResult(ctx, &resp.Diagnostics, r.C, name, err)
	switch {
	case create && err == nil && k.Meta(dryRun).ResourceVersion == "":
		// The server created the object in the dry run: there is none of
		// that name yet (a dry run over an existing object answers with
		// its resourceVersion). The planned generation (that of the
		// object the dry run made, 1) and identity say so to Create
		// (plannedAbsent).
		if g := k.Meta(dryRun).Generation; g > 0 {
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, generationPath, g)...)
		}
		SetIdentity(ctx, resp.Identity, name, &resp.Diagnostics)
	case !create && err == nil:
		r.planNoWrite(ctx, req, resp, dryRun)
	}
}

// The plan of a create names the object's generation (the server starts
// every object at 1: the registry's PrepareForCreate sets it after
// admission) and its identity only when its dry run found no object of
// that name; Create then need not ask the server again (the plan that
// terraform apply makes just before the create is the one it applies). The
// generation is what carries it to Create in every Terraform version: the
// framework hands Create neither the planned private state
// (fwserver.CreateResource starts from an empty one) nor, before Terraform
// 1.12, an identity. Not the id: a known id would tell other resources
// that refer to it (a binding's policy_name) that the object exists before
// it does, and their checks at plan would look for it. Left unknown, as
// when the plan could not reach the server, Create reads the object first:
// server-side apply would take over an object of the same name.

// generationPath is the path of metadata.generation.
var generationPath = path.Root("metadata").AtListIndex(0).AtName("generation")

// clearPlannedIdentity leaves the planned identity of a create null.
func clearPlannedIdentity(ctx context.Context, identity *tfsdk.ResourceIdentity) {
	if identity != nil && identity.Schema != nil {
		identity.Raw = tftypes.NewValue(identity.Schema.Type().TerraformType(ctx), nil)
	}
}

// plannedAbsent reports whether the plan of a create found no object of the
// name in its metadata: it planned the generation of the object its dry run
// made, or its planned identity names the object.
func plannedAbsent(ctx context.Context, planned Header, identity *tfsdk.ResourceIdentity) bool {
	if len(planned.Metadata) == 0 {
		return false
	}
	m := planned.Metadata[0]
	name := m.Name.ValueString()
	if name == "" {
		return false
	}
	if !m.Generation.IsUnknown() && !m.Generation.IsNull() && m.Generation.ValueInt64() > 0 {
		return true
	}
	if identity == nil || identity.Raw.IsNull() {
		return false
	}
	var id types.String
	diags := identity.GetAttribute(ctx, path.Root("name"), &id)
	return !diags.HasError() && id.ValueString() == name
}
