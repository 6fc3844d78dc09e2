package protocol

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// ApplyResourceChange answers, with what the framework answers
// (fwserver.(*Server).ApplyResourceChange and CreateResource,
// UpdateResource, DeleteResource, v1.19.0), the applies of resource types
// whose schema's tree is known: the request decoded without the framework's
// walks, the resource's Create, Update or Delete called as the framework
// calls it, the framework's checks of what it returns, and the answer
// encoded as the framework encodes it. Every other apply goes to the
// framework.
func (s *Server) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	if resp := s.apply(ctx, req); resp != nil {
		s.answered.applies.Add(1)
		return resp, nil
	}
	return s.ProviderServer.ApplyResourceChange(ctx, req)
}

// applied is what an apply answers, before it is encoded.
type applied struct {
	diags    diag.Diagnostics
	state    tftypes.Value
	identity *tfsdk.ResourceIdentity
	// private is the answer's private state: the framework's keys, and
	// the provider's as the resource left them (read back with keysOf);
	// none when hasPrivate is false.
	hasPrivate bool
	framework  map[string][]byte
	provider   map[string][]byte
	undeclared bool
}

// apply is the answer to req, or nil, before the resource is called, where
// the framework answers.
func (s *Server) apply(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) *tfprotov6.ApplyResourceChangeResponse {
	rt := s.resourceTypes(ctx)[req.TypeName]
	if rt == nil || rt.tree == nil || !s.answers() {
		return nil
	}
	o := rt.tree
	null := tftypes.NewValue(o.typ, nil)
	value := func(dv *tfprotov6.DynamicValue) (tftypes.Value, bool) {
		if dv == nil {
			return null, true
		}
		v, err := decode(dv, o)
		return v, err == nil
	}
	config, ok1 := value(req.Config)
	planned, ok2 := value(req.PlannedState)
	prior, ok3 := value(req.PriorState)
	identity, ok4 := rt.decodeIdentity(req.PlannedIdentity)
	priv, ok5 := parsePrivate(req.PlannedPrivate)
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 {
		return nil
	}
	r := rt.newResource()
	if !s.configure(ctx, r) {
		return nil
	}
	ctx, done := s.call(ctx)
	defer done()
	var out applied
	switch {
	case prior.IsNull():
		out = s.create(ctx, rt, r, config, planned, identity)
	case planned.IsNull():
		out = s.delete(ctx, rt, r, prior, identity, priv)
	default:
		out = s.update(ctx, rt, r, config, planned, prior, identity, priv)
	}

	resp := &tfprotov6.ApplyResourceChangeResponse{Diagnostics: diagnostics(ctx, out.diags)}
	var more diag.Diagnostics
	resp.NewState, more = encode(out.state, o, "State", "state")
	resp.Diagnostics = append(resp.Diagnostics, diagnostics(ctx, more)...)
	resp.NewIdentity, more = rt.encodeIdentity(out.identity)
	resp.Diagnostics = append(resp.Diagnostics, diagnostics(ctx, more)...)
	if out.undeclared {
		resp.Diagnostics = append(resp.Diagnostics, diagnostics(ctx, undeclaredKeys())...)
	}
	if out.hasPrivate {
		resp.Private = privateBytes(out.framework, out.provider)
	}
	return resp
}

// create is fwserver.(*Server).CreateResource: the resource's Create with
// an empty private state, and the framework's checks of what it returns.
func (s *Server) create(ctx context.Context, rt *resourceType, r resource.Resource, config, planned tftypes.Value, identity *tfsdk.ResourceIdentity) applied {
	null := tftypes.NewValue(rt.tree.typ, nil)
	var held resource.CreateResponse
	pd, _ := newProviderData(ctx, held.Private, nil)
	creq := resource.CreateRequest{
		Config:   tfsdk.Config{Schema: rt.schema, Raw: config},
		Plan:     tfsdk.Plan{Schema: rt.schema, Raw: planned},
		Identity: copyIdentity(identity),
	}
	cresp := resource.CreateResponse{State: tfsdk.State{Schema: rt.schema, Raw: null}, Private: pd, Identity: copyIdentity(identity)}
	r.Create(ctx, creq, &cresp)
	out := applied{diags: cresp.Diagnostics, state: cresp.State.Raw, identity: cresp.Identity}
	if !out.diags.HasError() && cresp.State.Raw.Equal(null) {
		detail := "The Terraform Provider unexpectedly returned no resource state after having no errors in the resource creation. " +
			"This is always an issue in the Terraform Provider and should be reported to the provider developers.\n\n" +
			"The resource may have been successfully created, but Terraform is not tracking it. " +
			"Applying the configuration again with no other action may result in duplicate resource errors."
		if _, ok := r.(resource.ResourceWithImportState); ok {
			detail += " Import the resource if the resource was actually created and Terraform should be tracking it."
		}
		out.diags.AddError("Missing Resource State After Create", detail)
	}
	if cresp.Private != nil {
		out.hasPrivate = true
		var ok bool
		out.provider, ok = keysOf(ctx, cresp.Private, rt.privateKeys)
		out.undeclared = !ok
	}
	if out.diags.HasError() {
		return out
	}
	switch {
	case out.identity != nil && rt.identity == nil:
		out.diags.AddError(
			"Unexpected Create Response",
			"An unexpected error was encountered when creating the apply response. New identity data was returned by the provider create operation, but the resource does not indicate identity support.\n\n"+
				"This is always a problem with the provider and should be reported to the provider developer.",
		)
	case rt.identity != nil && (out.identity == nil || out.identity.Raw.IsFullyNull()):
		out.diags.AddError(
			"Missing Resource Identity After Create",
			"The Terraform Provider unexpectedly returned no resource identity data after having no errors in the resource create. "+
				"This is always an issue in the Terraform Provider and should be reported to the provider developers.",
		)
	}
	return out
}

// update is fwserver.(*Server).UpdateResource: the resource's Update with
// the planned private state, and the framework's checks.
func (s *Server) update(ctx context.Context, rt *resourceType, r resource.Resource, config, planned, prior tftypes.Value, identity *tfsdk.ResourceIdentity, priv private) applied {
	null := tftypes.NewValue(rt.tree.typ, nil)
	var held resource.UpdateResponse
	pd, _ := newProviderData(ctx, held.Private, priv.provider)
	ureq := resource.UpdateRequest{
		Config:   tfsdk.Config{Schema: rt.schema, Raw: config},
		Plan:     tfsdk.Plan{Schema: rt.schema, Raw: planned},
		State:    tfsdk.State{Schema: rt.schema, Raw: prior},
		Private:  pd,
		Identity: copyIdentity(identity),
	}
	uresp := resource.UpdateResponse{State: tfsdk.State{Schema: rt.schema, Raw: prior}, Private: pd, Identity: copyIdentity(identity)}
	r.Update(ctx, ureq, &uresp)
	out := applied{diags: uresp.Diagnostics, state: uresp.State.Raw, identity: uresp.Identity}
	if !out.diags.HasError() && uresp.State.Raw.Equal(null) {
		out.diags.AddError(
			"Missing Resource State After Update",
			"The Terraform Provider unexpectedly returned no resource state after having no errors in the resource update. "+
				"This is always an issue in the Terraform Provider and should be reported to the provider developers.",
		)
	}
	// The framework answers with the planned private state, its
	// provider's keys as the resource left them.
	out.hasPrivate, out.framework = priv.present, priv.framework
	if src := uresp.Private; src != nil || priv.present {
		if src == nil {
			src = pd
		}
		out.hasPrivate = true
		var ok bool
		out.provider, ok = keysOf(ctx, src, rt.keys(priv))
		out.undeclared = !ok
	}
	if out.diags.HasError() {
		return out
	}
	switch {
	case out.identity != nil && rt.identity == nil:
		out.diags.AddError(
			"Unexpected Update Response",
			"An unexpected error was encountered when creating the apply response. New identity data was returned by the provider update operation, but the resource does not indicate identity support.\n\n"+
				"This is always a problem with the provider and should be reported to the provider developer.",
		)
	case out.identity != nil && !rt.mutableIdentity && !identity.Raw.IsFullyNull() && !identity.Raw.Equal(out.identity.Raw):
		out.diags.AddError(
			"Unexpected Identity Change",
			"During the update operation, the Terraform Provider unexpectedly returned a different identity than the previously stored one.\n\n"+
				"This is always a problem with the provider and should be reported to the provider developer.\n\n"+
				fmt.Sprintf("Planned Identity: %s\n\n", identity.Raw.String())+
				fmt.Sprintf("New Identity: %s", out.identity.Raw.String()),
		)
	case rt.identity != nil && (out.identity == nil || out.identity.Raw.IsFullyNull()):
		out.diags.AddError(
			"Missing Resource Identity After Update",
			"The Terraform Provider unexpectedly returned no resource identity data after having no errors in the resource update. "+
				"This is always an issue in the Terraform Provider and should be reported to the provider developers.",
		)
	}
	return out
}

// delete is fwserver.(*Server).DeleteResource: the resource's Delete, and
// on success a null state, identity and no private state.
func (s *Server) delete(ctx context.Context, rt *resourceType, r resource.Resource, prior tftypes.Value, identity *tfsdk.ResourceIdentity, priv private) applied {
	var held resource.DeleteResponse
	pd, _ := newProviderData(ctx, held.Private, priv.provider)
	dreq := resource.DeleteRequest{State: tfsdk.State{Schema: rt.schema, Raw: prior}, Private: pd, Identity: copyIdentity(identity)}
	dresp := resource.DeleteResponse{State: tfsdk.State{Schema: rt.schema, Raw: prior}, Private: pd, Identity: copyIdentity(identity)}
	r.Delete(ctx, dreq, &dresp)
	out := applied{hasPrivate: priv.present, framework: priv.framework}
	if !dresp.Diagnostics.HasError() {
		dresp.State.RemoveResource(ctx)
		dresp.Private = nil
		out.hasPrivate, out.framework = false, nil
		if rt.identity != nil {
			dresp.Identity = &tfsdk.ResourceIdentity{Schema: rt.identity, Raw: tftypes.NewValue(rt.idType, nil)}
		}
	}
	out.diags, out.state, out.identity = dresp.Diagnostics, dresp.State.Raw, dresp.Identity
	if src := dresp.Private; src != nil || out.hasPrivate {
		if src == nil {
			src = pd
		}
		out.hasPrivate = true
		var ok bool
		out.provider, ok = keysOf(ctx, src, rt.keys(priv))
		out.undeclared = !ok
	}
	if out.identity != nil && rt.identity == nil {
		out.diags.AddError(
			"Unexpected Delete Response",
			"An unexpected error was encountered when creating the apply response. New identity data was returned by the provider delete operation, but the resource does not indicate identity support.\n\n"+
				"This is always a problem with the provider and should be reported to the provider developer.",
		)
	}
	return out
}
