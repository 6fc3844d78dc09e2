package protocol

import (
	"context"
	"fmt"
	"reflect"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/defaults"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/float64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int32planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// canonicalPrivate is private state as the framework passes it on from the
// prior state: decoded into its keys and encoded again
// (privatestate.NewData, (*privatestate.Data).Bytes); ok is false where the
// framework would report an error (a value that is not JSON, an empty one
// included).
func canonicalPrivate(data []byte) ([]byte, bool) {
	p, ok := parsePrivate(data)
	if !ok {
		return nil, false
	}
	return privateBytes(p.framework, p.provider), true
}

// planShape is what of a schema (or of a block's nested object) the fast
// plans depend on: the attributes with a default and the blocks that hold
// some. shapeOf returns nil for a schema that the fast plans cannot answer
// for.
type planShape struct {
	attrs       map[string]schema.Attribute
	defaults    map[string]schema.Attribute
	blocks      map[string]schema.Block
	nested      map[string]*planShape
	list        map[string]bool
	hasDefaults bool

	typOnce sync.Once
	tfType  tftypes.Type
}

func (p *planShape) typ(ctx context.Context) tftypes.Type {
	p.typOnce.Do(func() {
		p.tfType = schema.Schema{Attributes: p.attrs, Blocks: p.blocks}.Type().TerraformType(ctx)
	})
	return p.tfType
}

// shapeOf is the shape of an object of attrs and blocks, or nil and why when a plan
// of it that changes nothing may still be changed by the framework: a
// write-only attribute (nulled in every plan), a plan modifier not known to
// keep a value equal to the state's, a nested attribute or a set of
// blocks (not walked here), or a default of a type not handled here.
func shapeOf(attrs map[string]schema.Attribute, blocks map[string]schema.Block) (*planShape, string) {
	p := &planShape{attrs: attrs, blocks: blocks, defaults: map[string]schema.Attribute{}, nested: map[string]*planShape{}, list: map[string]bool{}}
	for name, a := range attrs {
		if a.IsWriteOnly() {
			return nil, name + ": write-only"
		}
		if nested, ok := nestedAttributes(a); ok {
			// Not walked for defaults: fast only without any inside.
			if shape, why := shapeOf(nested, nil); shape == nil || shape.hasDefaults {
				if why == "" {
					why = "a default inside"
				}
				return nil, name + "." + why
			}
		}
		if !modifiersKeepUnchanged(a) {
			return nil, fmt.Sprintf("%s: a plan modifier not known to keep an unchanged value (%T)", name, a)
		}
		switch has, handled := hasDefault(a); {
		case !handled:
			return nil, name + ": a default of a type not evaluated here"
		case has:
			p.defaults[name] = a
			p.hasDefaults = true
		}
	}
	for name, b := range blocks {
		var obj schema.NestedBlockObject
		switch b := b.(type) {
		case schema.ListNestedBlock:
			if !allKeepUnchanged(b.PlanModifiers) {
				return nil, name + ": a plan modifier not known to keep an unchanged value"
			}
			obj, p.list[name] = b.NestedObject, true
		case schema.SingleNestedBlock:
			if !allKeepUnchanged(b.PlanModifiers) {
				return nil, name + ": a plan modifier not known to keep an unchanged value"
			}
			obj = schema.NestedBlockObject{Attributes: b.Attributes, Blocks: b.Blocks}
		default:
			return nil, fmt.Sprintf("%s: a block of type %T", name, b)
		}
		if !allKeepUnchanged(obj.PlanModifiers) {
			return nil, name + ": a plan modifier not known to keep an unchanged value"
		}
		nested, why := shapeOf(obj.Attributes, obj.Blocks)
		if nested == nil {
			return nil, name + "." + why
		}
		if nested.hasDefaults {
			p.nested[name] = nested
			p.hasDefaults = true
		}
	}
	return p, ""
}

// hasDefault reports whether the attribute has a default, and whether
// defaultValue evaluates defaults of its type.
func hasDefault(a schema.Attribute) (has, handled bool) {
	switch a := a.(type) {
	case schema.StringAttribute:
		return a.Default != nil, true
	case schema.Int64Attribute:
		return a.Default != nil, true
	case schema.BoolAttribute:
		return a.Default != nil, true
	case schema.Int32Attribute:
		return a.Default != nil, true
	}
	// Any other attribute type: unhandled if it has a default.
	v := reflect.ValueOf(a)
	if v.Kind() == reflect.Struct {
		if f := v.FieldByName("Default"); f.IsValid() {
			switch f.Kind() {
			case reflect.Interface, reflect.Pointer:
				return !f.IsNil(), f.IsNil()
			}
			return true, false
		}
	}
	return false, true
}

// defaultsKeep reports whether no default of the shape applies, at the
// object at p, where it would change the state: wherever the configuration
// leaves an attribute with a default out (null), the state holds the
// default already.
func (s *planShape) defaultsKeep(ctx context.Context, p path.Path, cfg, state tftypes.Value) bool {
	if state.IsNull() || !state.IsKnown() {
		return true
	}
	var stateAttrs, cfgAttrs map[string]tftypes.Value
	if err := state.As(&stateAttrs); err != nil {
		return false
	}
	if !cfg.IsNull() {
		if !cfg.IsKnown() {
			return false
		}
		if err := cfg.As(&cfgAttrs); err != nil {
			return false
		}
	}
	for name, a := range s.defaults {
		if c, ok := cfgAttrs[name]; ok && !c.IsNull() {
			continue
		}
		want, ok := defaultValue(ctx, p.AtName(name), a)
		if !ok || !want.Equal(stateAttrs[name]) {
			return false
		}
	}
	for name, nested := range s.nested {
		st, c := stateAttrs[name], cfgAttrs[name]
		if c.Type() == nil {
			c = tftypes.NewValue(st.Type(), nil)
		}
		if !s.list[name] {
			if !nested.defaultsKeep(ctx, p.AtName(name), c, st) {
				return false
			}
			continue
		}
		if st.IsNull() {
			continue
		}
		var stElems, cElems []tftypes.Value
		if err := st.As(&stElems); err != nil {
			return false
		}
		if !c.IsNull() {
			if !c.IsKnown() {
				return false
			}
			if err := c.As(&cElems); err != nil {
				return false
			}
		}
		for i, e := range stElems {
			ce := tftypes.NewValue(e.Type(), nil)
			if i < len(cElems) {
				ce = cElems[i]
			}
			if !nested.defaultsKeep(ctx, p.AtName(name).AtListIndex(i), ce, e) {
				return false
			}
		}
	}
	return true
}

// defaultValue is the value the attribute's default sets at p.
func defaultValue(ctx context.Context, p path.Path, a schema.Attribute) (tftypes.Value, bool) {
	var (
		err error
		out tftypes.Value
	)
	switch a := a.(type) {
	case schema.StringAttribute:
		resp := defaults.StringResponse{}
		a.Default.DefaultString(ctx, defaults.StringRequest{Path: p}, &resp)
		if resp.Diagnostics.HasError() {
			return out, false
		}
		out, err = resp.PlanValue.ToTerraformValue(ctx)
	case schema.Int64Attribute:
		resp := defaults.Int64Response{}
		a.Default.DefaultInt64(ctx, defaults.Int64Request{Path: p}, &resp)
		if resp.Diagnostics.HasError() {
			return out, false
		}
		out, err = resp.PlanValue.ToTerraformValue(ctx)
	case schema.BoolAttribute:
		resp := defaults.BoolResponse{}
		a.Default.DefaultBool(ctx, defaults.BoolRequest{Path: p}, &resp)
		if resp.Diagnostics.HasError() {
			return out, false
		}
		out, err = resp.PlanValue.ToTerraformValue(ctx)
	case schema.Int32Attribute:
		resp := defaults.Int32Response{}
		a.Default.DefaultInt32(ctx, defaults.Int32Request{Path: p}, &resp)
		if resp.Diagnostics.HasError() {
			return out, false
		}
		out, err = resp.PlanValue.ToTerraformValue(ctx)
	default:
		return out, false
	}
	return out, err == nil
}

// KeepsUnchanged is a plan modifier of the provider's own that leaves a
// planned value as it is when it is known and equal to the state's (the
// webhook configurations' ca_bundle modifier acts only on an unknown
// value). A plan that changes nothing is answered without the framework
// only when every plan modifier of the schema is one of these or one of
// frameworkKeepers.
type KeepsUnchanged interface {
	// KeepsUnchangedValue marks the modifier; it is never called.
	KeepsUnchangedValue()
}

// frameworkKeepers are the framework's plan modifiers that leave a planned
// value as it is when it is known and equal to the state's, known by the
// type of the value their constructor returns:
// UseStateForUnknown and UseNonNullStateForUnknown replace only an unknown
// value; RequiresReplace, RequiresReplaceIf and RequiresReplaceIfConfigured
// (one type, whatever the function) ask for nothing when plan and state
// agree ((requiresReplaceIfModifier).PlanModify… of each package). One set
// per attribute type that modifiersKeepUnchanged reads.
var frameworkKeepers = keepersOf(
	stringplanmodifier.UseStateForUnknown(), stringplanmodifier.UseNonNullStateForUnknown(), stringplanmodifier.RequiresReplace(),
	int64planmodifier.UseStateForUnknown(), int64planmodifier.UseNonNullStateForUnknown(), int64planmodifier.RequiresReplace(),
	int32planmodifier.UseStateForUnknown(), int32planmodifier.UseNonNullStateForUnknown(), int32planmodifier.RequiresReplace(),
	boolplanmodifier.UseStateForUnknown(), boolplanmodifier.UseNonNullStateForUnknown(), boolplanmodifier.RequiresReplace(),
	float64planmodifier.UseStateForUnknown(), float64planmodifier.UseNonNullStateForUnknown(), float64planmodifier.RequiresReplace(),
	listplanmodifier.UseStateForUnknown(), listplanmodifier.UseNonNullStateForUnknown(), listplanmodifier.RequiresReplace(),
	mapplanmodifier.UseStateForUnknown(), mapplanmodifier.UseNonNullStateForUnknown(), mapplanmodifier.RequiresReplace(),
	setplanmodifier.UseStateForUnknown(), setplanmodifier.UseNonNullStateForUnknown(), setplanmodifier.RequiresReplace(),
	objectplanmodifier.UseStateForUnknown(), objectplanmodifier.UseNonNullStateForUnknown(), objectplanmodifier.RequiresReplace(),
)

func keepersOf(modifiers ...any) map[reflect.Type]bool {
	out := make(map[reflect.Type]bool, len(modifiers))
	for _, m := range modifiers {
		out[reflect.TypeOf(m)] = true
	}
	return out
}

func keepUnchanged(m any) bool {
	if _, ok := m.(KeepsUnchanged); ok {
		return true
	}
	return m != nil && frameworkKeepers[reflect.TypeOf(m)]
}

func allKeepUnchanged[M any](ms []M) bool {
	for _, m := range ms {
		if !keepUnchanged(m) {
			return false
		}
	}
	return true
}

// modifiersKeepUnchanged reports whether every plan modifier of the
// attribute keeps an unchanged value (keepUnchanged).
func modifiersKeepUnchanged(a schema.Attribute) bool {
	switch a := a.(type) {
	case schema.StringAttribute:
		return allKeepUnchanged(a.PlanModifiers)
	case schema.Int64Attribute:
		return allKeepUnchanged(a.PlanModifiers)
	case schema.Int32Attribute:
		return allKeepUnchanged(a.PlanModifiers)
	case schema.BoolAttribute:
		return allKeepUnchanged(a.PlanModifiers)
	case schema.Float64Attribute:
		return allKeepUnchanged(a.PlanModifiers)
	case schema.ListAttribute:
		return allKeepUnchanged(a.PlanModifiers)
	case schema.MapAttribute:
		return allKeepUnchanged(a.PlanModifiers)
	case schema.SetAttribute:
		return allKeepUnchanged(a.PlanModifiers)
	case schema.ObjectAttribute:
		return allKeepUnchanged(a.PlanModifiers)
	case schema.SingleNestedAttribute:
		return allKeepUnchanged(a.PlanModifiers)
	case schema.ListNestedAttribute:
		return allKeepUnchanged(a.PlanModifiers) && allKeepUnchanged(a.NestedObject.PlanModifiers)
	case schema.SetNestedAttribute:
		return allKeepUnchanged(a.PlanModifiers) && allKeepUnchanged(a.NestedObject.PlanModifiers)
	case schema.MapNestedAttribute:
		return allKeepUnchanged(a.PlanModifiers) && allKeepUnchanged(a.NestedObject.PlanModifiers)
	}
	return false
}

// nestedAttributes are the attributes of a nested attribute's object.
func nestedAttributes(a schema.Attribute) (map[string]schema.Attribute, bool) {
	switch a := a.(type) {
	case schema.SingleNestedAttribute:
		return a.Attributes, true
	case schema.ListNestedAttribute:
		return a.NestedObject.Attributes, true
	case schema.SetNestedAttribute:
		return a.NestedObject.Attributes, true
	case schema.MapNestedAttribute:
		return a.NestedObject.Attributes, true
	}
	return nil, false
}
