package webhook

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
)

// The framework reads a configuration, plan or state into a struct
// (tfsdk.Config.Get and the like, terraform-plugin-framework's
// internal/reflect.Into) by first building the whole value as attr.Values,
// object by object, and then walking the struct with a path.Path at every
// step for its diagnostics; it writes one back (State.Set, reflect.FromValue)
// the same way. For an object of a few webhooks that is tens of thousands of
// allocations per call, and every plan, refresh and apply of every object
// pays it, some calls twice.
//
// The codec here does the same conversions directly between the
// tftypes.Value and the struct, with the schema's types worked out once:
// objects and lists of the model are walked by hand and only the leaves (the
// types.String, types.List, ... fields) go through their attr.Type, exactly
// as the framework converts them. It handles the shapes the models use
// (structs with tfsdk tags, embedded structs, slices of structs for blocks,
// attr.Value leaves) and reports anything else, and any value it cannot hold
// (an unknown block list, a null block object), as an error: the caller then
// falls back to the framework's own conversion, which gives the same result
// or the framework's own diagnostics.

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

// structField is a field of a model struct and its attribute name.
type structField struct {
	index []int
	name  string
}

var (
	attrValueInterface = reflect.TypeFor[attr.Value]()
	structFields       sync.Map // reflect.Type → []structField
)

// fieldsOf lists the fields of a model struct by their tfsdk tags, with the
// fields of embedded structs in place of the embedded struct, as
// terraform-plugin-framework's internal/reflect does.
func fieldsOf(t reflect.Type) ([]structField, error) {
	if f, ok := structFields.Load(t); ok {
		return f.([]structField), nil
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

var errUnhandled = errors.New("value not handled by the codec")

// decodeValue reads v, of the schema type n, into dst.
func decodeValue(ctx context.Context, n *typeNode, v tftypes.Value, dst reflect.Value) error {
	t := dst.Type()
	if t.Implements(attrValueInterface) {
		if !validType(ctx, n, v) {
			return errUnhandled
		}
		av, err := n.typ.ValueFromTerraform(ctx, v)
		if err != nil {
			return err
		}
		if _, ok := av.(xattr.ValidateableAttribute); ok {
			return errUnhandled
		}
		rv := reflect.ValueOf(av)
		if rv.Type() != t {
			return fmt.Errorf("%s is not %s", rv.Type(), t)
		}
		dst.Set(rv)
		return nil
	}
	if !v.IsKnown() {
		return errUnhandled // the framework reports it
	}
	switch t.Kind() {
	case reflect.Slice:
		if v.IsNull() {
			dst.SetZero()
			return nil
		}
		if n.elem == nil {
			return errUnhandled
		}
		var elems []tftypes.Value
		if err := v.As(&elems); err != nil {
			return err
		}
		s := reflect.MakeSlice(t, len(elems), len(elems))
		for i, e := range elems {
			if err := decodeValue(ctx, n.elem, e, s.Index(i)); err != nil {
				return err
			}
		}
		dst.Set(s)
		return nil
	case reflect.Struct:
		if v.IsNull() || n.attrs == nil {
			return errUnhandled
		}
		fields, err := fieldsOf(t)
		if err != nil {
			return err
		}
		if len(fields) != len(n.attrs) {
			return errUnhandled
		}
		var vals map[string]tftypes.Value
		if err := v.As(&vals); err != nil {
			return err
		}
		for _, f := range fields {
			fn, ok := n.attrs[f.name]
			if !ok {
				return errUnhandled
			}
			if err := decodeValue(ctx, fn, vals[f.name], dst.FieldByIndex(f.index)); err != nil {
				return err
			}
		}
		return nil
	}
	return errUnhandled
}

// validType runs the type's own validation of a value (xattr.TypeWithValidate,
// which the framework runs on every value it converts: basetypes.ListType
// and MapType check their elements); false when it reports an error.
func validType(ctx context.Context, n *typeNode, v tftypes.Value) bool {
	//nolint:staticcheck // deprecated, but the framework still runs it
	t, ok := n.typ.(xattr.TypeWithValidate)
	return !ok || !t.Validate(ctx, v, path.Empty()).HasError()
}

// encodeValue is the value of src as the schema type n.
func encodeValue(ctx context.Context, n *typeNode, src reflect.Value) (tftypes.Value, error) {
	t := src.Type()
	if t.Implements(attrValueInterface) {
		av := src.Interface().(attr.Value)
		if _, ok := av.(xattr.ValidateableAttribute); ok {
			return tftypes.Value{}, errUnhandled
		}
		tv, err := av.ToTerraformValue(ctx)
		if err != nil {
			return tftypes.Value{}, err
		}
		if !tv.Type().Equal(n.tfType) {
			return tftypes.Value{}, fmt.Errorf("%s is not %s", tv.Type(), n.tfType)
		}
		if !validType(ctx, n, tv) {
			return tftypes.Value{}, errUnhandled
		}
		return tv, nil
	}
	switch t.Kind() {
	case reflect.Slice:
		if n.elem == nil {
			return tftypes.Value{}, errUnhandled
		}
		if src.IsNil() {
			return tftypes.NewValue(n.tfType, nil), nil
		}
		elems := make([]tftypes.Value, src.Len())
		for i := range elems {
			e, err := encodeValue(ctx, n.elem, src.Index(i))
			if err != nil {
				return tftypes.Value{}, err
			}
			elems[i] = e
		}
		return tftypes.NewValue(n.tfType, elems), nil
	case reflect.Struct:
		if n.attrs == nil {
			return tftypes.Value{}, errUnhandled
		}
		fields, err := fieldsOf(t)
		if err != nil {
			return tftypes.Value{}, err
		}
		if len(fields) != len(n.attrs) {
			return tftypes.Value{}, errUnhandled
		}
		vals := make(map[string]tftypes.Value, len(fields))
		for _, f := range fields {
			fn, ok := n.attrs[f.name]
			if !ok {
				return tftypes.Value{}, errUnhandled
			}
			fv, err := encodeValue(ctx, fn, src.FieldByIndex(f.index))
			if err != nil {
				return tftypes.Value{}, err
			}
			vals[f.name] = fv
		}
		return tftypes.NewValue(n.tfType, vals), nil
	}
	return tftypes.Value{}, errUnhandled
}

// decode reads v into target (a pointer to a model struct) as Config.Get,
// Plan.Get or State.Get would; where the codec cannot, it asks get, one of
// those, which reports why.
func decode(ctx context.Context, n *typeNode, v tftypes.Value, target any, get func(context.Context, any) diag.Diagnostics) diag.Diagnostics {
	dst := reflect.ValueOf(target).Elem()
	if err := decodeValue(ctx, n, v, dst); err != nil {
		dst.SetZero()
		return get(ctx, target)
	}
	return nil
}

// encode is src (a model struct) as the value State.Set would store; ok is
// false where the codec cannot tell, and the caller then uses State.Set.
func encode(ctx context.Context, n *typeNode, src any) (v tftypes.Value, ok bool) {
	defer func() {
		// tftypes.NewValue panics on a value that does not fit its type,
		// which the checks above rule out; the framework decides if one
		// slips through.
		if recover() != nil {
			ok = false
		}
	}()
	v, err := encodeValue(ctx, n, reflect.ValueOf(src))
	return v, err == nil
}

// typeTree is the schema type of a resource as the codec walks it, worked
// out once per schema.
type typeTree struct {
	once sync.Once
	root *typeNode
}

func (t *typeTree) get(ctx context.Context, schemaType func() attr.Type) *typeNode {
	t.once.Do(func() { t.root = newTypeNode(ctx, schemaType()) })
	return t.root
}
