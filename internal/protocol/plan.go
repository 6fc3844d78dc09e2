package protocol

import (
	"bytes"
	"context"
	"fmt"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// PlanResourceChange answers, with what the framework answers
// (fwserver.(*Server).PlanResourceChange, v1.19.0), the plans of resource
// types whose schema it knows, and passes every other to the framework:
//
//   - a plan that changes nothing and a plan of a destroy, whose answer is
//     known before any walk over their values (planUnchanged);
//   - a plan of a create or an update (planChange): the framework's plan
//     computed in one walk over schema and values, then the resource's
//     ModifyPlan, as the framework calls it.
//
// Terraform sends one of these for every object of a plan, and two for
// every object an apply changes (the plan, then again just before the
// apply).
func (s *Server) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	if resp := s.planUnchanged(ctx, req); resp != nil {
		s.answered.plans.Add(1)
		return resp, nil
	}
	if resp := s.planChange(ctx, req); resp != nil {
		s.answered.plans.Add(1)
		return resp, nil
	}
	return s.ProviderServer.PlanResourceChange(ctx, req)
}

// msgpackNull is a null value in MessagePack, as Terraform encodes a null
// object.
var msgpackNull = []byte{0xc0}

// planUnchanged answers two kinds of plan without a walk over their values:
//
//   - a plan that changes nothing: the proposed new state is the prior
//     state, and no default of the schema applies where the configuration
//     leaves an attribute out (fwschemadata.(*Data).TransformDefaults would
//     set it); the framework then marks nothing unknown (it does so only when
//     the plan differs from the prior state), the plan modifiers of the
//     schema leave a known value equal to the state's as it is (those that
//     may run here: keepUnchanged), and the resources'
//     ModifyPlan returns at once for a plan equal to the prior state. The
//     answer is the prior state, private state and identity as Terraform
//     sent them, and no attribute that requires a replacement;
//   - a plan of a destroy (a null proposed new state): the framework
//     applies no default and no plan modifier of the schema, and the
//     resources' ModifyPlan returns at once for a null plan. The answer is
//     the null plan, the prior private state and identity.
//
// Without a prior identity (Terraform before 1.12, which has none), the
// framework plans a null identity: so does this.
//
// It returns nil for any other plan.
func (s *Server) planUnchanged(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) *tfprotov6.PlanResourceChangeResponse {
	rt := s.resourceTypes(ctx)[req.TypeName]
	if rt == nil || rt.unchanged == nil || !s.answers() || req.PriorState == nil || req.ProposedNewState == nil {
		return nil
	}
	identity, ok := rt.passIdentity(req.PriorIdentity)
	if !ok {
		return nil
	}
	shape := rt.unchanged
	prior, proposed := req.PriorState.MsgPack, req.ProposedNewState.MsgPack
	if len(prior) == 0 || len(proposed) == 0 || bytes.Equal(prior, msgpackNull) {
		return nil
	}
	destroy := bytes.Equal(proposed, msgpackNull)
	if !destroy {
		if !bytes.Equal(prior, proposed) || req.Config == nil || len(req.Config.MsgPack) == 0 {
			return nil
		}
		typ := shape.typ(ctx)
		state, err := req.PriorState.Unmarshal(typ)
		if err != nil {
			return nil
		}
		// The framework answers with a null list of blocks made empty
		// (ReifyNullCollectionBlocks): Terraform sends none, but a plan
		// with one is left to it.
		if rt.tree != nil {
			if _, changed, err := reifyObject(state, rt.tree); err != nil || changed {
				return nil
			}
		}
		if shape.hasDefaults {
			cfg, err := req.Config.Unmarshal(typ)
			if err != nil {
				return nil
			}
			if !shape.defaultsKeep(ctx, path.Empty(), cfg, state) {
				return nil
			}
		}
	}
	private, ok := canonicalPrivate(req.PriorPrivate)
	if !ok {
		return nil
	}
	return &tfprotov6.PlanResourceChangeResponse{
		PlannedState:    req.ProposedNewState,
		PlannedPrivate:  private,
		PlannedIdentity: identity,
	}
}

// passIdentity is the planned identity of a plan that keeps the prior one:
// as Terraform sent it, or a null identity where it sent none (Terraform
// before 1.12); ok is false where the framework reports an error (an
// identity of a resource without an identity schema).
func (rt *resourceType) passIdentity(prior *tfprotov6.ResourceIdentityData) (*tfprotov6.ResourceIdentityData, bool) {
	if prior != nil && prior.IdentityData != nil {
		return &tfprotov6.ResourceIdentityData{IdentityData: prior.IdentityData}, rt.identity != nil
	}
	if rt.identity == nil {
		return nil, true
	}
	null, err := tfprotov6.NewDynamicValue(rt.idType, tftypes.NewValue(rt.idType, nil))
	if err != nil {
		return nil, false
	}
	return &tfprotov6.ResourceIdentityData{IdentityData: &null}, true
}

// decodeIdentity is the identity in a request as the framework decodes it
// (fromproto6.ResourceIdentity), null where there is none (as fwserver
// starts a plan or an apply with); ok is false where the framework reports
// an error.
func (rt *resourceType) decodeIdentity(in *tfprotov6.ResourceIdentityData) (*tfsdk.ResourceIdentity, bool) {
	if rt.identity == nil {
		return nil, in == nil || in.IdentityData == nil
	}
	raw := tftypes.NewValue(rt.idType, nil)
	if in != nil && in.IdentityData != nil {
		v, err := in.IdentityData.Unmarshal(rt.idType)
		if err != nil {
			return nil, false
		}
		raw = v
	}
	return &tfsdk.ResourceIdentity{Schema: rt.identity, Raw: raw}, true
}

// encodeIdentity is an identity as Terraform gets it
// (toproto6.ResourceIdentity).
func (rt *resourceType) encodeIdentity(id *tfsdk.ResourceIdentity) (*tfprotov6.ResourceIdentityData, diag.Diagnostics) {
	if id == nil {
		return nil, nil
	}
	dv, err := tfprotov6.NewDynamicValue(rt.idType, id.Raw)
	if err != nil {
		var diags diag.Diagnostics
		diags.AddError("Unable to Convert Resource Identity",
			"An unexpected error was encountered when converting the resource identity to the protocol type. "+
				"This is always an issue in terraform-plugin-framework used to implement the provider and should be reported to the provider developers.\n\n"+
				"Please report this to the provider developer:\n\n"+
				"Unable to create DynamicValue: "+err.Error())
		return nil, diags
	}
	return &tfprotov6.ResourceIdentityData{IdentityData: &dv}, nil
}

// planChange answers the plan of a create or of an update as
// fwserver.(*Server).PlanResourceChange does (v1.19.0), for a resource type
// whose schema's tree is known, or returns nil, before it calls the
// resource, for any request the framework would answer otherwise. In
// order:
//
//  1. the configuration, prior and proposed new state decoded
//     (fromproto6.DynamicValue: empty lists of blocks made null);
//  2. the defaults of the attributes the configuration leaves out
//     (TransformDefaults), then, when that plan differs from the prior
//     state, an unknown value for every computed attribute without a
//     default that the configuration leaves out (MarkComputedNilsAsUnknown);
//  3. the plan modifiers of the schema (SchemaModifyPlan, modifierWalk);
//  4. the resource's ModifyPlan, with the planned identity (the prior one,
//     or null) and private state (the prior one);
//  5. the framework's checks of the answer (an identity that changes),
//     the paths that require a replacement sorted and without duplicates
//     (NormaliseRequiresReplace), and the answer encoded (toproto6: null
//     lists of blocks made empty).
func (s *Server) planChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) *tfprotov6.PlanResourceChangeResponse {
	rt := s.resourceTypes(ctx)[req.TypeName]
	if rt == nil || rt.tree == nil || !s.answers() || req.Config == nil || req.PriorState == nil || req.ProposedNewState == nil {
		return nil
	}
	o := rt.tree
	config, err := decode(req.Config, o)
	if err != nil {
		return nil
	}
	prior, err := decode(req.PriorState, o)
	if err != nil {
		return nil
	}
	// The proposed new state of a create is the configuration: decoded
	// once.
	proposed := config
	if !sameBytes(req.ProposedNewState, req.Config) {
		if proposed, err = decode(req.ProposedNewState, o); err != nil {
			return nil
		}
	}
	if proposed.IsNull() || config.IsNull() {
		return nil
	}
	priorIdentity, ok := rt.decodeIdentity(req.PriorIdentity)
	if !ok {
		return nil
	}
	priv, ok := parsePrivate(req.PriorPrivate)
	if !ok {
		return nil
	}

	// 2. Defaults, then unknown values.
	root := func() path.Path { return path.Empty() }
	planned, _, err := (&planner{ctx: ctx}).object(proposed, cursor{v: config}, o, root)
	if err != nil {
		return nil
	}
	if !equal(planned, prior) {
		if planned, _, err = (&planner{ctx: ctx, mark: true, noDefaults: true}).object(planned, cursor{v: config}, o, root); err != nil {
			return nil
		}
	}

	// 3. Plan modifiers, with the prior private state.
	r := rt.newResource()
	var held resource.ModifyPlanResponse
	pd, ok := newProviderData(ctx, held.Private, priv.provider)
	if !ok {
		return nil
	}
	cfg := tfsdk.Config{Schema: rt.schema, Raw: config}
	state := tfsdk.State{Schema: rt.schema, Raw: prior}
	walk := &modifierWalk{
		ctx: ctx, config: cfg, plan: tfsdk.Plan{Schema: rt.schema, Raw: planned}, state: state,
		into: &resource.ModifyPlanResponse{Private: pd},
	}
	if planned, _, err = walk.object(planned, config, prior, o, path.Empty(), path.Expression{}, true); err != nil {
		return nil
	}
	if !s.configure(ctx, r) {
		return nil
	}

	// 4. The resource's ModifyPlan.
	ctx, done := s.call(ctx)
	defer done()
	diags := walk.into.Diagnostics
	requiresReplace := walk.into.RequiresReplace
	pd = walk.into.Private
	plannedIdentity := copyIdentity(priorIdentity)
	var deferred *resource.Deferred
	if rm, ok := r.(resource.ResourceWithModifyPlan); ok {
		mreq := resource.ModifyPlanRequest{
			ClientCapabilities: resource.ModifyPlanClientCapabilities{DeferralAllowed: req.ClientCapabilities != nil && req.ClientCapabilities.DeferralAllowed},
			Config:             cfg,
			Plan:               tfsdk.Plan{Schema: rt.schema, Raw: planned},
			State:              state,
			Private:            pd,
			Identity:           copyIdentity(plannedIdentity),
		}
		mresp := resource.ModifyPlanResponse{
			Diagnostics:     diags,
			Plan:            mreq.Plan,
			RequiresReplace: path.Paths{},
			Private:         pd,
			Identity:        copyIdentity(plannedIdentity),
		}
		rm.ModifyPlan(ctx, mreq, &mresp)
		diags = mresp.Diagnostics
		planned = mresp.Plan.Raw
		plannedIdentity = mresp.Identity
		requiresReplace = append(requiresReplace, mresp.RequiresReplace...)
		pd = mresp.Private
		deferred = mresp.Deferred
	}

	// 5. The framework's checks, then the answer. The framework returns
	// at a failed check, before it sorts the paths that require a
	// replacement.
	checked := true
	if plannedIdentity != nil && rt.identity == nil {
		checked = false
		diags.AddError(
			"Unexpected Plan Response",
			"An unexpected error was encountered when creating the plan response. New identity data was returned by the provider planning operation, but the resource does not indicate identity support.\n\n"+
				"This is always a problem with the provider and should be reported to the provider developer.",
		)
	} else if plannedIdentity != nil && !rt.mutableIdentity && !prior.IsNull() && !priorIdentity.Raw.IsFullyNull() && !priorIdentity.Raw.Equal(plannedIdentity.Raw) {
		checked = false
		diags.AddError(
			"Unexpected Identity Change",
			"During the planning operation, the Terraform Provider unexpectedly returned a different identity than the previously stored one.\n\n"+
				"This is always a problem with the provider and should be reported to the provider developer.\n\n"+
				fmt.Sprintf("Prior Identity: %s\n\n", priorIdentity.Raw.String())+
				fmt.Sprintf("Planned Identity: %s", plannedIdentity.Raw.String()),
		)
	}
	resp := &tfprotov6.PlanResourceChangeResponse{}
	if deferred != nil {
		resp.Deferred = &tfprotov6.Deferred{Reason: tfprotov6.DeferredReason(deferred.Reason)}
	}
	resp.Diagnostics = diagnostics(ctx, diags)
	var more diag.Diagnostics
	resp.PlannedState, more = encode(planned, o, "State", "state")
	resp.Diagnostics = append(resp.Diagnostics, diagnostics(ctx, more)...)
	resp.PlannedIdentity, more = rt.encodeIdentity(plannedIdentity)
	resp.Diagnostics = append(resp.Diagnostics, diagnostics(ctx, more)...)
	if checked {
		requiresReplace = normaliseRequiresReplace(requiresReplace)
	}
	resp.RequiresReplace, more = attributePaths(ctx, requiresReplace)
	resp.Diagnostics = append(resp.Diagnostics, diagnostics(ctx, more)...)
	keys, ok := keysOf(ctx, pd, rt.keys(priv))
	if !ok {
		resp.Diagnostics = append(resp.Diagnostics, diagnostics(ctx, undeclaredKeys())...)
	}
	resp.PlannedPrivate = privateBytes(priv.framework, keys)
	return resp
}

// keys are the keys of private state a response may hold: those the
// resource writes and those that came in.
func (rt *resourceType) keys(in private) []string {
	out := append([]string(nil), rt.privateKeys...)
	for k := range in.provider {
		out = append(out, k)
	}
	return out
}

// undeclaredKeys is the error of a response whose private state holds a
// key the resource does not name (PrivateKeys): this package cannot pass
// it on.
func undeclaredKeys() diag.Diagnostics {
	var diags diag.Diagnostics
	diags.AddError("Private state not passed on",
		"The resource set a key of private state that it does not name in PrivateKeys, so the provider's protocol server "+
			"cannot pass it on. This is always a problem with the provider and should be reported to the provider developer.")
	return diags
}

// normaliseRequiresReplace sorts paths and drops duplicates, as
// fwserver.NormaliseRequiresReplace does.
func normaliseRequiresReplace(rs path.Paths) path.Paths {
	if len(rs) < 2 {
		return rs
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].String() < rs[j].String() })
	out := make(path.Paths, len(rs))
	out[0] = rs[0]
	j := 1
	for i := 1; i < len(rs); i++ {
		if rs[i].Equal(out[j-1]) {
			continue
		}
		out[j] = rs[i]
		j++
	}
	return out[:j]
}

// copyIdentity is a copy of an identity, as the framework passes one to
// each request and response.
func copyIdentity(id *tfsdk.ResourceIdentity) *tfsdk.ResourceIdentity {
	if id == nil {
		return nil
	}
	return &tfsdk.ResourceIdentity{Schema: id.Schema, Raw: id.Raw.Copy()}
}

// sameBytes reports whether two values are encoded alike, and so decode
// alike.
func sameBytes(a, b *tfprotov6.DynamicValue) bool {
	return len(a.MsgPack) > 0 && bytes.Equal(a.MsgPack, b.MsgPack) && len(a.JSON) == 0 && len(b.JSON) == 0
}
