package protocol

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// ValidateResourceConfig answers, with what the framework answers
// (fwserver.(*Server).ValidateResourceConfig, v1.19.0), the validation of a
// configuration of a resource type whose schema's tree is known: the
// resource's ValidateConfig, then the schema's checks (SchemaValidate)
// in one walk over schema and value. Terraform asks for it at every walk
// (validate, plan, and the plan again before an apply) for every object.
// Every other validation goes to the framework.
func (s *Server) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	if resp := s.validate(ctx, req); resp != nil {
		s.answered.validations.Add(1)
		return resp, nil
	}
	return s.ProviderServer.ValidateResourceConfig(ctx, req)
}

// validate is the answer to req, or nil, before the resource is called,
// where the framework answers.
func (s *Server) validate(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) *tfprotov6.ValidateResourceConfigResponse {
	rt := s.resourceTypes(ctx)[req.TypeName]
	if rt == nil || rt.tree == nil || rt.tree.noValidate != nil || req.Config == nil {
		return nil
	}
	if _, ok := s.resourceData(); !ok {
		return nil
	}
	o := rt.tree
	config, err := decode(req.Config, o)
	if err != nil {
		return nil
	}
	caps := resource.ValidateConfigClientCapabilities{}
	if req.ClientCapabilities != nil {
		caps.WriteOnlyAttributesAllowed = req.ClientCapabilities.WriteOnlyAttributesAllowed
	}
	cfg := tfsdk.Config{Schema: rt.schema, Raw: config}

	// The schema's checks first, which call nothing of the resource and
	// stop at a value the framework would report on; their diagnostics
	// come after the resource's, as in the framework's answer.
	walk := &validateWalk{ctx: ctx, config: cfg, caps: validator.ValidateSchemaClientCapabilities{WriteOnlyAttributesAllowed: caps.WriteOnlyAttributesAllowed}}
	if err := walk.object(config, o, path.Empty(), path.Expression{}, true); err != nil {
		return nil
	}
	r := rt.newResource()
	if !s.configure(ctx, r) {
		return nil
	}
	ctx, done := s.call(ctx)
	defer done()
	var diags diag.Diagnostics
	vreq := resource.ValidateConfigRequest{ClientCapabilities: caps, Config: cfg}
	if rv, ok := r.(resource.ResourceWithConfigValidators); ok {
		for _, v := range rv.ConfigValidators(ctx) {
			vresp := &resource.ValidateConfigResponse{}
			v.ValidateResource(ctx, vreq, vresp)
			diags.Append(vresp.Diagnostics...)
		}
	}
	if rv, ok := r.(resource.ResourceWithValidateConfig); ok {
		vresp := &resource.ValidateConfigResponse{}
		rv.ValidateConfig(ctx, vreq, vresp)
		diags.Append(vresp.Diagnostics...)
	}
	diags.Append(walk.diags...)
	return &tfprotov6.ValidateResourceConfigResponse{Diagnostics: diagnostics(ctx, diags)}
}

// validateWalk checks a configuration as fwserver.SchemaValidate does
// (AttributeValidate, BlockValidate and their nested objects): each
// attribute's value read at its path from the root (null where the path
// does not reach: past a null or unknown value), the framework's own
// checks (a value for a read-only attribute, none for a required one), the
// attribute's and the block's validators with the value as the framework
// converts it, then the nested attributes and blocks.
type validateWalk struct {
	ctx    context.Context
	config tfsdk.Config
	caps   validator.ValidateSchemaClientCapabilities
	diags  diag.Diagnostics
}

// reach is the attribute name of the object v as
// fwschemadata.Data.ValueAtPath reads it: null below a null or unknown
// value.
func reach(v tftypes.Value, name string, typ tftypes.Type) (tftypes.Value, error) {
	if !known(v) {
		return tftypes.NewValue(typ, nil), nil
	}
	m, err := attrsOf(v)
	if err != nil {
		return v, err
	}
	return m[name], nil
}

// object checks the attributes and blocks of the object v at p (expression
// expr); at the root, each gets path.MatchRoot as its expression.
func (w *validateWalk) object(v tftypes.Value, o *object, p path.Path, expr path.Expression, root bool) error {
	at := func(name string) path.Expression {
		if root {
			return path.MatchRoot(name)
		}
		return expr.AtName(name)
	}
	for _, a := range o.attrs {
		av, err := reach(v, a.name, a.typ)
		if err != nil {
			return err
		}
		if err := w.attribute(av, a, p.AtName(a.name), at(a.name)); err != nil {
			return err
		}
	}
	for _, b := range o.blocks {
		bv, err := reach(v, b.name, b.typ)
		if err != nil {
			return err
		}
		if err := w.block(bv, b, p.AtName(b.name), at(b.name)); err != nil {
			return err
		}
	}
	return nil
}

func (w *validateWalk) attribute(v tftypes.Value, a *attribute, p path.Path, expr path.Expression) error {
	null := v.IsNull()
	if a.computed && !a.optional && !null {
		w.diags.AddAttributeError(p, "Invalid Configuration for Read-Only Attribute",
			"Cannot set value for this attribute as the provider has marked it as read-only. Remove the configuration line setting the value.\n\n"+
				"Refer to the provider documentation or contact the provider developers for additional information about configurable and read-only attributes that are supported.")
	}
	if a.required && null {
		w.diags.AddAttributeError(p, "Missing Configuration for Required Attribute",
			fmt.Sprintf("Must set a configuration value for the %s attribute as the provider has marked it as required.\n\n", p.String())+
				"Refer to the provider documentation or contact the provider developers for additional information about configurable attributes that are required.")
	}
	if len(a.stringValidators) > 0 {
		sv, err := stringValue(v)
		if err != nil {
			return err
		}
		req := validator.StringRequest{ClientCapabilities: w.caps, Config: w.config, ConfigValue: sv, Path: p, PathExpression: expr}
		for _, sv := range a.stringValidators {
			resp := &validator.StringResponse{}
			sv.ValidateString(w.ctx, req, resp)
			w.diags.Append(resp.Diagnostics...)
		}
	}
	if a.nested == nil || !known(v) {
		// A null or unknown nested attribute has no elements to check
		// (AttributeValidateNestedAttributes).
		return nil
	}
	if !a.nestedList {
		return w.object(v, a.nested, p, expr, false)
	}
	elems, err := elemsOf(v)
	if err != nil {
		return err
	}
	for i, e := range elems {
		if err := w.object(e, a.nested, p.AtListIndex(i), expr.AtListIndex(i), false); err != nil {
			return err
		}
	}
	return nil
}

func (w *validateWalk) block(v tftypes.Value, b *block, p path.Path, expr path.Expression) error {
	if len(b.listValidators) > 0 {
		av, err := b.attrType.ValueFromTerraform(w.ctx, v)
		if err != nil {
			return errNotAnswered
		}
		lv, ok := av.(basetypes.ListValuable)
		if !ok {
			return errNotAnswered
		}
		list, diags := lv.ToListValue(w.ctx)
		if diags.HasError() {
			return errNotAnswered
		}
		w.diags.Append(diags...)
		req := validator.ListRequest{ClientCapabilities: w.caps, Config: w.config, ConfigValue: list, Path: p, PathExpression: expr}
		for _, lv := range b.listValidators {
			resp := &validator.ListResponse{}
			lv.ValidateList(w.ctx, req, resp)
			w.diags.Append(resp.Diagnostics...)
		}
	}
	if !b.list {
		// BlockValidate checks a single block's attributes also when it
		// is null.
		return w.object(v, b.obj, p, expr, false)
	}
	if !known(v) {
		return nil
	}
	elems, err := elemsOf(v)
	if err != nil {
		return err
	}
	for i, e := range elems {
		if err := w.object(e, b.obj, p.AtListIndex(i), expr.AtListIndex(i), false); err != nil {
			return err
		}
	}
	return nil
}
