package core

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/attr/xattr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/syncmap"
)

// The codec is how every resource, data source and list resource reads a
// configuration, plan or state into its model structs, and writes a state
// from them.
//
// The framework reads a value into a struct (tfsdk.Config.Get and the like,
// terraform-plugin-framework's internal/reflect.Into) by first building the
// whole value as attr.Values, object by object, and then walking the struct
// with a path.Path at every step for its diagnostics; it writes one back
// (State.Set, reflect.FromValue) the same way. For an object of a few
// webhooks that is tens of thousands of allocations per call, and every plan,
// refresh and apply of every object pays it (BenchmarkDecode in
// internal/webhook compares the two).
//
// The codec does the same conversions directly between the tftypes.Value and
// the structs, with the schema's types worked out once: objects and lists of
// the model are walked by hand and only the leaves (the types.String,
// types.List, ... fields) go through their attr.Type, exactly as the
// framework converts them. It handles the shapes the models use (structs with
// tfsdk tags, embedded structs, slices of structs for blocks, attr.Value
// leaves); an object value may be split over several structs (the model of an
// object, and the timeouts block beside it). A value it cannot hold in the
// model (a block list known only at apply, a null block object) is an error
// diagnostic, as it is for the framework.

// typeNode is a schema type with what the codec needs of it at hand.
type typeNode struct {
	typ    attr.Type
	tfType tftypes.Type
	attrs  map[string]*typeNode // objects
	elem   *typeNode            // lists and sets
}

func newTypeNode(ctx context.Context, t attr.Type) *typeNode {
	n := &typeNode{typ: t, tfType: t.TerraformType(ctx)}
	switch t := t.(type) {
	case attr.TypeWithAttributeTypes:
		n.attrs = map[string]*typeNode{}
		for name, at := range t.AttributeTypes() {
			n.attrs[name] = newTypeNode(ctx, at)
		}
	case attr.TypeWithElementType:
		n.elem = newTypeNode(ctx, t.ElementType())
	}
	return n
}

// schemaTypes is the type of a schema as the codec walks it, worked out on
// first use.
type schemaTypes struct {
	once sync.Once
	root *typeNode
}

func (s *schemaTypes) get(ctx context.Context, schemaType func() attr.Type) *typeNode {
	s.once.Do(func() { s.root = newTypeNode(ctx, schemaType()) })
	return s.root
}

// structField is a field of a model struct and its attribute name.
type structField struct {
	index []int
	name  string
}

var (
	attrValueInterface = reflect.TypeFor[attr.Value]()
	structFields       syncmap.Map[reflect.Type, []structField]
)

// fieldsOf lists the fields of a model struct by their tfsdk tags, with the
// fields of embedded structs in place of the embedded struct, as
// terraform-plugin-framework's internal/reflect does.
func fieldsOf(t reflect.Type) ([]structField, error) {
	if f, ok := structFields.Load(t); ok {
		return f, nil
	}
	var fields []structField
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		tag, tagged := f.Tag.Lookup("tfsdk")
		if tag == "-" {
			continue
		}
		if !tagged {
			if !f.Anonymous || f.Type.Kind() != reflect.Struct {
				return nil, fmt.Errorf("field %s of %s has no tfsdk tag", f.Name, t)
			}
			inner, err := fieldsOf(f.Type)
			if err != nil {
				return nil, err
			}
			for _, in := range inner {
				fields = append(fields, structField{index: append([]int{i}, in.index...), name: in.name})
			}
			continue
		}
		fields = append(fields, structField{index: []int{i}, name: tag})
	}
	structFields.Store(t, fields)
	return fields, nil
}

// pathError is a conversion error at an attribute path.
type pathError struct {
	path *tftypes.AttributePath
	err  error
}

func (e *pathError) Error() string { return e.path.String() + ": " + e.err.Error() }
func (e *pathError) Unwrap() error { return e.err }

// at puts err at the step s under the path it has, if any.
func at(s tftypes.AttributePathStep, err error) error {
	var pe *pathError
	if errors.As(err, &pe) {
		steps := append([]tftypes.AttributePathStep{s}, pe.path.Steps()...)
		return &pathError{tftypes.NewAttributePathWithSteps(steps), pe.err}
	}
	return &pathError{tftypes.NewAttributePathWithSteps([]tftypes.AttributePathStep{s}), err}
}

var (
	errUnknownBlock = errors.New("the value is not known yet, and the model has no room for an unknown value")
	errNullObject   = errors.New("the value is null, and the model has no room for a null object")
)

// decodeValue reads v, of the schema type n, into dst.
func decodeValue(ctx context.Context, n *typeNode, v tftypes.Value, dst reflect.Value) error {
	t := dst.Type()
	if t.Implements(attrValueInterface) {
		if err := validType(ctx, n, v); err != nil {
			return err
		}
		av, err := n.typ.ValueFromTerraform(ctx, v)
		if err != nil {
			return err
		}
		rv := reflect.ValueOf(av)
		if rv.Type() != t {
			return fmt.Errorf("the model holds %s, the schema gives %s", t, rv.Type())
		}
		dst.Set(rv)
		return nil
	}
	if !v.IsKnown() {
		return errUnknownBlock
	}
	switch t.Kind() {
	case reflect.Slice:
		if v.IsNull() {
			dst.SetZero()
			return nil
		}
		if n.elem == nil {
			return fmt.Errorf("the model holds a list (%s), the schema has %s", t, n.tfType)
		}
		var elems []tftypes.Value
		if err := v.As(&elems); err != nil {
			return err
		}
		s := reflect.MakeSlice(t, len(elems), len(elems))
		for i, e := range elems {
			if err := decodeValue(ctx, n.elem, e, s.Index(i)); err != nil {
				return at(tftypes.ElementKeyInt(i), err)
			}
		}
		dst.Set(s)
		return nil
	case reflect.Struct:
		if v.IsNull() {
			return errNullObject
		}
		return decodeObject(ctx, n, v, []reflect.Value{dst})
	}
	return fmt.Errorf("the model holds %s, which the codec does not handle", t)
}

// decodeObject reads the object value v into the structs parts, whose fields
// together are the object's attributes.
func decodeObject(ctx context.Context, n *typeNode, v tftypes.Value, parts []reflect.Value) error {
	if n.attrs == nil {
		return fmt.Errorf("the model holds a struct, the schema has %s", n.tfType)
	}
	var vals map[string]tftypes.Value
	if err := v.As(&vals); err != nil {
		return err
	}
	seen := 0
	for _, part := range parts {
		fields, err := fieldsOf(part.Type())
		if err != nil {
			return err
		}
		for _, f := range fields {
			fn, ok := n.attrs[f.name]
			if !ok {
				return fmt.Errorf("the model has %q, the schema does not", f.name)
			}
			if err := decodeValue(ctx, fn, vals[f.name], part.FieldByIndex(f.index)); err != nil {
				return at(tftypes.AttributeName(f.name), err)
			}
			seen++
		}
	}
	if seen != len(n.attrs) {
		return fmt.Errorf("the schema has %d attributes, the model %d", len(n.attrs), seen)
	}
	return nil
}

// validType runs the type's own validation of a value (xattr.TypeWithValidate,
// which the framework runs on every value it converts: basetypes.ListType
// and MapType check their elements).
func validType(ctx context.Context, n *typeNode, v tftypes.Value) error {
	//nolint:staticcheck // deprecated, but the framework still runs it
	t, ok := n.typ.(xattr.TypeWithValidate)
	if !ok {
		return nil
	}
	if diags := t.Validate(ctx, v, path.Empty()); diags.HasError() {
		return fmt.Errorf("%s", diags.Errors()[0].Detail())
	}
	return nil
}

// encodeValue is the value of src as the schema type n.
func encodeValue(ctx context.Context, n *typeNode, src reflect.Value) (tftypes.Value, error) {
	t := src.Type()
	if t.Implements(attrValueInterface) {
		av, ok := src.Interface().(attr.Value)
		if !ok {
			return tftypes.Value{}, fmt.Errorf("%s implements attr.Value but its value does not", t)
		}
		tv, err := av.ToTerraformValue(ctx)
		if err != nil {
			return tftypes.Value{}, err
		}
		if !tv.Type().Equal(n.tfType) {
			return tftypes.Value{}, fmt.Errorf("the model holds %s, the schema has %s", tv.Type(), n.tfType)
		}
		if err := validType(ctx, n, tv); err != nil {
			return tftypes.Value{}, err
		}
		return tv, nil
	}
	switch t.Kind() {
	case reflect.Slice:
		if n.elem == nil {
			return tftypes.Value{}, fmt.Errorf("the model holds a list (%s), the schema has %s", t, n.tfType)
		}
		if src.IsNil() {
			return tftypes.NewValue(n.tfType, nil), nil
		}
		elems := make([]tftypes.Value, src.Len())
		for i := range elems {
			e, err := encodeValue(ctx, n.elem, src.Index(i))
			if err != nil {
				return tftypes.Value{}, at(tftypes.ElementKeyInt(i), err)
			}
			elems[i] = e
		}
		return newValue(n.tfType, elems)
	case reflect.Struct:
		return encodeObject(ctx, n, []reflect.Value{src})
	}
	return tftypes.Value{}, fmt.Errorf("the model holds %s, which the codec does not handle", t)
}

// encodeObject is the object value of the structs parts, whose fields
// together are the object's attributes.
func encodeObject(ctx context.Context, n *typeNode, parts []reflect.Value) (tftypes.Value, error) {
	if n.attrs == nil {
		return tftypes.Value{}, fmt.Errorf("the model holds a struct, the schema has %s", n.tfType)
	}
	vals := make(map[string]tftypes.Value, len(n.attrs))
	for _, part := range parts {
		fields, err := fieldsOf(part.Type())
		if err != nil {
			return tftypes.Value{}, err
		}
		for _, f := range fields {
			fn, ok := n.attrs[f.name]
			if !ok {
				return tftypes.Value{}, fmt.Errorf("the model has %q, the schema does not", f.name)
			}
			fv, err := encodeValue(ctx, fn, part.FieldByIndex(f.index))
			if err != nil {
				return tftypes.Value{}, at(tftypes.AttributeName(f.name), err)
			}
			vals[f.name] = fv
		}
	}
	if len(vals) != len(n.attrs) {
		return tftypes.Value{}, fmt.Errorf("the schema has %d attributes, the model %d", len(n.attrs), len(vals))
	}
	return newValue(n.tfType, vals)
}

// newValue is tftypes.NewValue, with the error it would panic with.
func newValue(t tftypes.Type, v any) (tftypes.Value, error) {
	if err := tftypes.ValidateValue(t, v); err != nil {
		return tftypes.Value{}, err
	}
	return tftypes.NewValue(t, v), nil
}

// decode reads v, an object of the type n, into the structs that parts
// point to, as Config.Get, Plan.Get or State.Get would into one struct.
func decode(ctx context.Context, n *typeNode, v tftypes.Value, parts ...any) diag.Diagnostics {
	dsts := make([]reflect.Value, len(parts))
	for i, p := range parts {
		dsts[i] = reflect.ValueOf(p).Elem()
	}
	var err error
	switch {
	case !v.IsKnown():
		err = errUnknownBlock
	case v.IsNull():
		err = errNullObject
	default:
		err = decodeObject(ctx, n, v, dsts)
	}
	if err != nil {
		for _, d := range dsts {
			d.SetZero()
		}
		return conversionError("read", err)
	}
	return nil
}

// encode is the value State.Set would store for the structs parts (values or
// pointers), whose fields together are the object's attributes.
func encode(ctx context.Context, n *typeNode, parts ...any) (tftypes.Value, diag.Diagnostics) {
	srcs := make([]reflect.Value, len(parts))
	for i, p := range parts {
		srcs[i] = reflect.Indirect(reflect.ValueOf(p))
	}
	v, err := encodeObject(ctx, n, srcs)
	if err != nil {
		return tftypes.Value{}, conversionError("write", err)
	}
	return v, nil
}

func conversionError(what string, err error) diag.Diagnostics {
	var diags diag.Diagnostics
	diags.AddError("Value Conversion Error", fmt.Sprintf("The provider cannot %s this value into its model: %v. "+
		"Where a whole block is known only at apply, this is expected during plan; otherwise it is a bug in the provider.", what, err))
	return diags
}
