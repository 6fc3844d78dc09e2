package protocol

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/attr/xattr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// object is the schema of an object value, as the walks of this package
// need it: the resource's, a block's nested object's or a nested
// attribute's. Its attributes and blocks are sorted by name, and each knows
// its value's type, so that a walk over a value passes the schema down
// instead of resolving every value's path from the root, as the framework
// does (fwschema.SchemaAttributeAtTerraformPath, fromtftypes.AttributePath).
type object struct {
	typ    tftypes.Object
	attrs  []*attribute
	blocks []*block
	// modifiers is whether an attribute at or below this object has plan
	// modifiers: the plan modifier walk skips the rest.
	modifiers bool
	// noValidate is why the fast validation does not answer for this
	// object (a validator or a deprecation it does not run), nil where it
	// does.
	noValidate error
}

type attribute struct {
	name     string
	a        schema.Attribute
	typ      tftypes.Type
	computed bool
	optional bool
	required bool
	// stringValidators are the validators of a string attribute, the only
	// attributes with validators that the fast validation answers for.
	stringValidators []validator.String
	// def is the attribute's default, nil for none; defStatic says that
	// defValue is its value wherever it applies.
	def       *defaultOf
	defValue  tftypes.Value
	defStatic bool
	// stringModifiers are the plan modifiers of a string attribute, the
	// only attributes with plan modifiers that the fast plans answer for.
	stringModifiers []planmodifier.String
	// nested is the object of a nested attribute (list when nestedList),
	// nil for other attributes.
	nested     *object
	nestedList bool
	// integer is whether the value is an integer of 64 bits
	// (basetypes.Int64Type), which the framework refuses to convert
	// otherwise.
	integer bool
}

type block struct {
	name string
	typ  tftypes.Type
	// attrType is the framework's type of the block's value, which
	// converts it for its validators.
	attrType attr.Type
	// list is a list of blocks (ListNestedBlock); otherwise a single one
	// (SingleNestedBlock).
	list bool
	obj  *object
	// listValidators are a list block's validators.
	listValidators []validator.List
}

// treeOf is the tree of an object of attrs and blocks, or an error saying
// why the fast paths do not answer for it: an attribute or a block of a
// kind not walked here, a write-only attribute, a custom type whose values
// validate themselves or compare semantically (the framework would call
// them), a plan modifier other than of a string attribute, a default of a
// type not evaluated here.
func treeOf(ctx context.Context, attrs map[string]schema.Attribute, blocks map[string]schema.Block, typ tftypes.Object) (*object, error) {
	o := &object{typ: typ}
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		a := attrs[name]
		at, err := attributeOf(ctx, name, a, typ.AttributeTypes[name])
		if err != nil {
			return nil, err
		}
		o.attrs = append(o.attrs, at)
		o.modifiers = o.modifiers || len(at.stringModifiers) > 0
		if o.noValidate == nil {
			o.noValidate = at.noValidate(name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(blocks)) {
		b := blocks[name]
		bt := typ.AttributeTypes[name]
		if !plainType(ctx, b.Type()) {
			return nil, fmt.Errorf("%s: a custom type the framework validates or compares semantically", name)
		}
		var (
			nested         *object
			err            error
			list           bool
			listValidators []validator.List
		)
		if b.GetDeprecationMessage() != "" && o.noValidate == nil {
			o.noValidate = fmt.Errorf("%s: deprecated", name)
		}
		switch b := b.(type) {
		case schema.ListNestedBlock:
			if len(b.PlanModifiers) > 0 || len(b.NestedObject.PlanModifiers) > 0 {
				return nil, fmt.Errorf("%s: block plan modifiers", name)
			}
			if len(b.NestedObject.Validators) > 0 && o.noValidate == nil {
				o.noValidate = fmt.Errorf("%s: validators of the block's object", name)
			}
			listValidators = b.Validators
			lt, ok := bt.(tftypes.List)
			if !ok {
				return nil, fmt.Errorf("%s: a list block of type %s", name, bt)
			}
			et, ok := lt.ElementType.(tftypes.Object)
			if !ok {
				return nil, fmt.Errorf("%s: a list block of elements of type %s", name, lt.ElementType)
			}
			nested, err = treeOf(ctx, b.NestedObject.Attributes, b.NestedObject.Blocks, et)
			list = true
		case schema.SingleNestedBlock:
			if len(b.PlanModifiers) > 0 {
				return nil, fmt.Errorf("%s: block plan modifiers", name)
			}
			if len(b.Validators) > 0 && o.noValidate == nil {
				o.noValidate = fmt.Errorf("%s: validators of a single block", name)
			}
			ot, ok := bt.(tftypes.Object)
			if !ok {
				return nil, fmt.Errorf("%s: a single block of type %s", name, bt)
			}
			nested, err = treeOf(ctx, b.Attributes, b.Blocks, ot)
		default:
			return nil, fmt.Errorf("%s: a block of type %T", name, b)
		}
		if err != nil {
			return nil, fmt.Errorf("%s.%w", name, err)
		}
		o.blocks = append(o.blocks, &block{name: name, typ: bt, attrType: b.Type(), list: list, obj: nested, listValidators: listValidators})
		o.modifiers = o.modifiers || nested.modifiers
		if o.noValidate == nil && nested.noValidate != nil {
			o.noValidate = fmt.Errorf("%s.%w", name, nested.noValidate)
		}
	}
	return o, nil
}

func attributeOf(ctx context.Context, name string, a schema.Attribute, typ tftypes.Type) (*attribute, error) {
	if a.IsWriteOnly() {
		return nil, fmt.Errorf("%s: write-only", name)
	}
	if !plainType(ctx, a.GetType()) {
		return nil, fmt.Errorf("%s: a custom type the framework validates or compares semantically", name)
	}
	at := &attribute{name: name, a: a, typ: typ, computed: a.IsComputed(), optional: a.IsOptional(), required: a.IsRequired()}
	var (
		modifiers int
		nested    map[string]schema.Attribute
	)
	switch a := a.(type) {
	case schema.StringAttribute:
		at.stringModifiers = a.PlanModifiers
		at.stringValidators = a.Validators
		if a.Default != nil {
			at.def = &defaultOf{str: a.Default}
		}
	case schema.Int64Attribute:
		modifiers = len(a.PlanModifiers)
		at.integer = true
		if a.Default != nil {
			at.def = &defaultOf{int64: a.Default}
		}
	case schema.BoolAttribute:
		modifiers = len(a.PlanModifiers)
		if a.Default != nil {
			at.def = &defaultOf{bool: a.Default}
		}
	case schema.ListAttribute:
		modifiers = len(a.PlanModifiers)
		if a.Default != nil {
			return nil, fmt.Errorf("%s: a default of a list", name)
		}
	case schema.MapAttribute:
		modifiers = len(a.PlanModifiers)
		if a.Default != nil {
			return nil, fmt.Errorf("%s: a default of a map", name)
		}
	case schema.SingleNestedAttribute:
		modifiers = len(a.PlanModifiers)
		if a.Default != nil {
			return nil, fmt.Errorf("%s: a default of an object", name)
		}
		nested = a.Attributes
	case schema.ListNestedAttribute:
		modifiers = len(a.PlanModifiers) + len(a.NestedObject.PlanModifiers)
		if a.Default != nil {
			return nil, fmt.Errorf("%s: a default of a list", name)
		}
		nested, at.nestedList = a.NestedObject.Attributes, true
	default:
		return nil, fmt.Errorf("%s: an attribute of type %T", name, a)
	}
	if modifiers > 0 {
		return nil, fmt.Errorf("%s: plan modifiers of a %T", name, a)
	}
	if at.def != nil {
		at.defValue, at.defStatic = at.def.static(ctx)
	}
	if nested != nil {
		ot, ok := typ.(tftypes.Object)
		if at.nestedList {
			lt, isList := typ.(tftypes.List)
			if isList {
				ot, ok = lt.ElementType.(tftypes.Object)
			} else {
				ok = false
			}
		}
		if !ok {
			return nil, fmt.Errorf("%s: a nested attribute of type %s", name, typ)
		}
		obj, err := treeOf(ctx, nested, nil, ot)
		if err != nil {
			return nil, fmt.Errorf("%s.%w", name, err)
		}
		if obj.modifiers || obj.hasDefaults() {
			return nil, fmt.Errorf("%s: plan modifiers or defaults inside a nested attribute", name)
		}
		at.nested = obj
	}
	return at, nil
}

// noValidate is why the fast validation does not answer for the
// attribute: validators of an attribute other than a string, or inside a
// nested attribute, or a deprecation.
func (a *attribute) noValidate(name string) error {
	switch {
	case a.a.GetDeprecationMessage() != "":
		return fmt.Errorf("%s: deprecated", name)
	case a.nested != nil && a.nested.noValidate != nil:
		return fmt.Errorf("%s.%w", name, a.nested.noValidate)
	}
	n := 0
	switch a := a.a.(type) {
	case schema.Int64Attribute:
		n = len(a.Validators)
	case schema.BoolAttribute:
		n = len(a.Validators)
	case schema.ListAttribute:
		n = len(a.Validators)
	case schema.MapAttribute:
		n = len(a.Validators)
	case schema.SingleNestedAttribute:
		n = len(a.Validators)
	case schema.ListNestedAttribute:
		n = len(a.Validators) + len(a.NestedObject.Validators)
	}
	if n > 0 {
		return fmt.Errorf("%s: validators of a %T", name, a.a)
	}
	return nil
}

// hasDefaults reports whether an attribute of o or below has a default.
func (o *object) hasDefaults() bool {
	for _, a := range o.attrs {
		if a.def != nil || (a.nested != nil && a.nested.hasDefaults()) {
			return true
		}
	}
	for _, b := range o.blocks {
		if b.obj.hasDefaults() {
			return true
		}
	}
	return false
}

// plainType reports whether values of t, and of the types within it, are
// converted by the framework without a check of their own: no
// xattr.TypeWithValidate or xattr.ValidateableAttribute (which
// fwschemadata.(*Data).ValueAtPath calls) and no semantic equality (which
// fwserver.SchemaSemanticEquality calls after Create, Read and Update).
// The framework's own integer type checks that a value is an integer of 64
// bits, as decode does (checkIntegers); its list, map and set types check
// their elements, which must then have no check of their own.
func plainType(ctx context.Context, t attr.Type) bool {
	//nolint:staticcheck // deprecated, but the framework still calls it (fwschemadata.Data.ValueAtPath)
	if _, ok := t.(xattr.TypeWithValidate); ok {
		switch t := t.(type) {
		case basetypes.Int64Type:
		case basetypes.ListType, basetypes.MapType, basetypes.SetType:
			et, ok := t.(attr.TypeWithElementType)
			if !ok {
				return false
			}
			//nolint:staticcheck // as above
			if _, ok := et.ElementType().(xattr.TypeWithValidate); ok {
				return false
			}
		default:
			return false
		}
	}
	switch t.ValueType(ctx).(type) {
	case xattr.ValidateableAttribute,
		basetypes.StringValuableWithSemanticEquals, basetypes.BoolValuableWithSemanticEquals,
		basetypes.Int64ValuableWithSemanticEquals, basetypes.Int32ValuableWithSemanticEquals,
		basetypes.Float64ValuableWithSemanticEquals, basetypes.Float32ValuableWithSemanticEquals,
		basetypes.NumberValuableWithSemanticEquals, basetypes.ListValuableWithSemanticEquals,
		basetypes.MapValuableWithSemanticEquals, basetypes.SetValuableWithSemanticEquals,
		basetypes.ObjectValuableWithSemanticEquals, basetypes.DynamicValuableWithSemanticEquals:
		return false
	}
	switch t := t.(type) {
	case attr.TypeWithElementType:
		return plainType(ctx, t.ElementType())
	case attr.TypeWithAttributeTypes:
		for _, at := range t.AttributeTypes() {
			if !plainType(ctx, at) {
				return false
			}
		}
	}
	return true
}
