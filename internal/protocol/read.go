package protocol

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// importBeforeReadKey is the framework's key of private state that marks
// the read after an import (privatestate.ImportBeforeReadKey).
const importBeforeReadKey = ".import_before_read"

// ReadResource answers, with what the framework answers
// (fwserver.(*Server).ReadResource, v1.19.0), the refresh of an object of a
// resource type whose schema's tree is known: the state decoded without
// the framework's walk, the resource's Read called as the framework calls
// it, the framework's checks of the identity it returns, and the answer
// encoded. Terraform asks for it for every object at every plan. Every
// other read goes to the framework.
func (s *Server) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	if resp := s.read(ctx, req); resp != nil {
		s.answered.reads.Add(1)
		return resp, nil
	}
	return s.ProviderServer.ReadResource(ctx, req)
}

func (s *Server) read(ctx context.Context, req *tfprotov6.ReadResourceRequest) *tfprotov6.ReadResourceResponse {
	rt := s.resourceTypes(ctx)[req.TypeName]
	if rt == nil || rt.tree == nil || !s.answers() || req.CurrentState == nil {
		return nil
	}
	o := rt.tree
	current, err := decode(req.CurrentState, o)
	if err != nil {
		return nil
	}
	identity, ok := rt.decodeIdentity(req.CurrentIdentity)
	if !ok {
		return nil
	}
	priv, ok := parsePrivate(req.Private)
	if !ok {
		return nil
	}
	// The read after an import: the framework drops the mark and lets the
	// identity change.
	_, followingImport := priv.framework[importBeforeReadKey]
	if followingImport {
		delete(priv.framework, importBeforeReadKey)
	}
	r := rt.newResource()
	if !s.configure(ctx, r) {
		return nil
	}
	ctx, done := s.call(ctx)
	defer done()

	var held resource.ReadResponse
	pd, ok := newProviderData(ctx, held.Private, priv.provider)
	if !ok {
		return nil
	}
	rreq := resource.ReadRequest{
		ClientCapabilities: resource.ReadClientCapabilities{DeferralAllowed: req.ClientCapabilities != nil && req.ClientCapabilities.DeferralAllowed},
		State:              tfsdk.State{Schema: rt.schema, Raw: current.Copy()},
		Private:            pd,
		Identity:           copyIdentity(identity),
	}
	rresp := resource.ReadResponse{
		State:    tfsdk.State{Schema: rt.schema, Raw: current.Copy()},
		Private:  pd,
		Identity: copyIdentity(identity),
	}
	r.Read(ctx, rreq, &rresp)
	diags := rresp.Diagnostics
	newIdentity := rresp.Identity

	// The framework answers with the private state that came in, its
	// provider's keys as the resource left them.
	framework, provider, undeclared := priv.framework, map[string][]byte(nil), false
	if src := rresp.Private; src != nil || priv.present {
		if src == nil {
			src = pd
		}
		var ok bool
		provider, ok = keysOf(ctx, src, rt.keys(priv))
		undeclared = !ok
	}

	if !diags.HasError() {
		diags.Append(rt.checkReadIdentity(identity, newIdentity, followingImport)...)
	}

	resp := &tfprotov6.ReadResourceResponse{Diagnostics: diagnostics(ctx, diags)}
	if rresp.Deferred != nil {
		resp.Deferred = &tfprotov6.Deferred{Reason: tfprotov6.DeferredReason(rresp.Deferred.Reason)}
	}
	var more diag.Diagnostics
	resp.NewState, more = encode(rresp.State.Raw, o, "State", "state")
	resp.Diagnostics = append(resp.Diagnostics, diagnostics(ctx, more)...)
	resp.NewIdentity, more = rt.encodeIdentity(newIdentity)
	resp.Diagnostics = append(resp.Diagnostics, diagnostics(ctx, more)...)
	if undeclared {
		resp.Diagnostics = append(resp.Diagnostics, diagnostics(ctx, undeclaredKeys())...)
	}
	resp.Private = privateBytes(framework, provider)
	return resp
}

// checkReadIdentity is what the framework checks of the identity a Read
// returns.
func (rt *resourceType) checkReadIdentity(current, read *tfsdk.ResourceIdentity, followingImport bool) diag.Diagnostics {
	var diags diag.Diagnostics
	if read != nil {
		if rt.identity == nil {
			diags.AddError(
				"Unexpected Read Response",
				"An unexpected error was encountered when creating the read response. New identity data was returned by the provider read operation, but the resource does not indicate identity support.\n\n"+
					"This is always a problem with the provider and should be reported to the provider developer.",
			)
			return diags
		}
		if !rt.mutableIdentity && !followingImport && !current.Raw.IsFullyNull() && !current.Raw.Equal(read.Raw) {
			diags.AddError(
				"Unexpected Identity Change",
				"During the read operation, the Terraform Provider unexpectedly returned a different identity than the previously stored one.\n\n"+
					"This is always a problem with the provider and should be reported to the provider developer.\n\n"+
					fmt.Sprintf("Current Identity: %s\n\n", current.Raw.String())+
					fmt.Sprintf("New Identity: %s", read.Raw.String()),
			)
			return diags
		}
	}
	if rt.identity != nil && (read == nil || read.Raw.IsFullyNull()) {
		diags.AddError(
			"Missing Resource Identity After Read",
			"The Terraform Provider unexpectedly returned no resource identity data after having no errors in the resource read. "+
				"This is always an issue in the Terraform Provider and should be reported to the provider developers.",
		)
	}
	return diags
}
