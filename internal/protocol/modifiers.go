package protocol

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// modifierWalk runs the plan modifiers of the schema's string attributes
// as fwserver.SchemaModifyPlan runs them (v1.19.0): each with the
// configuration, plan and prior state it would get (the values at the
// attribute's path, null below a null parent, unknown below an unknown one,
// null past the end of a list, and the whole configuration, plan and
// state), one after the other on each attribute. Attributes and blocks
// without plan modifiers come out of SchemaModifyPlan as they went in (it
// converts each value to the framework's types and back), so the walk
// skips them. The modifiers' diagnostics, paths that require a replacement
// and private state go to into.
type modifierWalk struct {
	ctx    context.Context
	config tfsdk.Config
	plan   tfsdk.Plan
	state  tfsdk.State
	into   *resource.ModifyPlanResponse
}

// sub is the value of the attribute name of the object v as the framework
// passes it to a plan modifier (fwserver.objectAttributeValue): null or
// unknown when v is.
func sub(v tftypes.Value, name string, typ tftypes.Type) (tftypes.Value, error) {
	switch {
	case v.IsNull():
		return tftypes.NewValue(typ, nil), nil
	case !v.IsKnown():
		return tftypes.NewValue(typ, tftypes.UnknownValue), nil
	}
	m, err := attrsOf(v)
	if err != nil {
		return v, err
	}
	return m[name], nil
}

// elem is the element i of the list v as fwserver.listElemObject reads
// it: null when the list is null or shorter, unknown when it is unknown.
func elem(v tftypes.Value, i int, typ tftypes.Type) (tftypes.Value, error) {
	switch {
	case v.IsNull():
		return tftypes.NewValue(typ, nil), nil
	case !v.IsKnown():
		return tftypes.NewValue(typ, tftypes.UnknownValue), nil
	}
	l, err := elemsOf(v)
	if err != nil {
		return v, err
	}
	if i >= len(l) {
		return tftypes.NewValue(typ, nil), nil
	}
	return l[i], nil
}

// object runs the modifiers in the known object plan, whose configuration
// and prior state are cfg and state, at path p (expression expr). At the
// root, SchemaModifyPlan passes the attributes and single blocks no path
// expression (the zero one); below, each gets its parent's with its name.
func (w *modifierWalk) object(plan, cfg, state tftypes.Value, o *object, p path.Path, expr path.Expression, root bool) (tftypes.Value, bool, error) {
	at := func(name string) path.Expression {
		if root {
			return path.Expression{}
		}
		return expr.AtName(name)
	}
	if !o.modifiers {
		return plan, false, nil
	}
	m, err := attrsOf(plan)
	if err != nil {
		return plan, false, err
	}
	changed := false
	for _, a := range o.attrs {
		if len(a.stringModifiers) == 0 {
			continue
		}
		cv, err := sub(cfg, a.name, a.typ)
		if err != nil {
			return plan, false, err
		}
		sv, err := sub(state, a.name, a.typ)
		if err != nil {
			return plan, false, err
		}
		nv, ch, err := w.modifyString(m[a.name], cv, sv, a, p.AtName(a.name), at(a.name))
		if err != nil {
			return plan, false, err
		}
		if ch {
			m, changed = with(m, changed, a.name, nv)
		}
	}
	for _, b := range o.blocks {
		bv := m[b.name]
		if !b.obj.modifiers || !known(bv) {
			continue
		}
		bc, err := sub(cfg, b.name, b.typ)
		if err != nil {
			return plan, false, err
		}
		bs, err := sub(state, b.name, b.typ)
		if err != nil {
			return plan, false, err
		}
		bp, bexpr := p.AtName(b.name), at(b.name)
		if !b.list {
			nv, ch, err := w.object(bv, bc, bs, b.obj, bp, bexpr, false)
			if err != nil {
				return plan, false, err
			}
			if ch {
				m, changed = with(m, changed, b.name, nv)
			}
			continue
		}
		elems, err := elemsOf(bv)
		if err != nil {
			return plan, false, err
		}
		elemsChanged := false
		for i, e := range elems {
			if !known(e) {
				// Terraform sends no null or unknown block in a
				// known list; the framework would make it known.
				return plan, false, errNotAnswered
			}
			ce, err := elem(bc, i, b.obj.typ)
			if err != nil {
				return plan, false, err
			}
			se, err := elem(bs, i, b.obj.typ)
			if err != nil {
				return plan, false, err
			}
			ep := bp.AtListIndex(i)
			ne, ch, err := w.object(e, ce, se, b.obj, ep, ep.Expression(), false)
			if err != nil {
				return plan, false, err
			}
			if ch {
				elems, elemsChanged = withElem(elems, elemsChanged, i, ne)
			}
		}
		if elemsChanged {
			m, changed = with(m, changed, b.name, tftypes.NewValue(b.typ, elems))
		}
	}
	if !changed {
		return plan, false, nil
	}
	return tftypes.NewValue(o.typ, m), true, nil
}

func stringValue(v tftypes.Value) (basetypes.StringValue, error) {
	switch {
	case !v.IsKnown():
		return basetypes.NewStringUnknown(), nil
	case v.IsNull():
		return basetypes.NewStringNull(), nil
	}
	var s string
	if err := v.As(&s); err != nil {
		return basetypes.StringValue{}, err
	}
	return basetypes.NewStringValue(s), nil
}

// modifyString runs the attribute's modifiers on its planned value pv
// (fwserver.AttributePlanModifyString). A modifier that reports an error
// stops the framework's whole walk, in the order of its maps: the
// framework answers such a plan itself (errNotAnswered).
func (w *modifierWalk) modifyString(pv, cv, sv tftypes.Value, a *attribute, p path.Path, expr path.Expression) (tftypes.Value, bool, error) {
	planValue, err := stringValue(pv)
	if err != nil {
		return pv, false, err
	}
	configValue, err := stringValue(cv)
	if err != nil {
		return pv, false, err
	}
	stateValue, err := stringValue(sv)
	if err != nil {
		return pv, false, err
	}
	req := planmodifier.StringRequest{
		Config: w.config, ConfigValue: configValue, Path: p, PathExpression: expr,
		Plan: w.plan, PlanValue: planValue, Private: w.into.Private, State: w.state, StateValue: stateValue,
	}
	for _, m := range a.stringModifiers {
		resp := &planmodifier.StringResponse{PlanValue: req.PlanValue, Private: w.into.Private}
		m.PlanModifyString(w.ctx, req, resp)
		if resp.Diagnostics.HasError() {
			return pv, false, errNotAnswered
		}
		req.PlanValue = resp.PlanValue
		w.into.Diagnostics.Append(resp.Diagnostics...)
		w.into.Private = resp.Private
		if resp.RequiresReplace {
			w.into.RequiresReplace.Append(p)
		}
	}
	out, err := req.PlanValue.ToTerraformValue(w.ctx)
	if err != nil {
		return pv, false, err
	}
	if equal(out, pv) {
		return pv, false, nil
	}
	return out, true, nil
}
