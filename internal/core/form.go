package core

import (
	"context"
	"fmt"
	"math/big"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/apipath"
)

// A value of a kind's resource form is what a reference to one of its resources gives
// (admission_validating_admission_policy.x), or an object written in the same shape: blocks
// as lists of objects, attributes by their names. ExpandValue reads one into the kind's API
// object the way the resource reads its plan: into the model, by the codec, and through the
// kind's own Expand, so that the schema's names and the API's are mapped in one place.

// FormReader reads a kind's resource form into its API object (Description.ExpandValue),
// for callers that hold a kind without its model, and maps its attribute paths to the API's
// and back (Description.Paths), as the kind's diagnostics do.
type FormReader[T any] interface {
	ExpandValue(ctx context.Context, v tftypes.Value) (Expansion[T], error)
	Paths() *apipath.Mapper
}

// FormError is an error in a value of the resource form, at the API path of the field it is
// about ("spec.validations"), or at the whole value (Path nil).
type FormError struct {
	Path *field.Path
	Err  error
}

func (e *FormError) Error() string {
	if e.Path == nil {
		return e.Err.Error()
	}
	return e.Path.String() + ": " + e.Err.Error()
}

func (e *FormError) Unwrap() error { return e.Err }

// ExpandValue turns v, a value of the kind's resource form, into the API object. The value
// is taken as it is written: an attribute or block it leaves out is null, one the schema does
// not have (id, status, timeouts, a misspelt name) is left out, a block may be written as a
// list of one object or as the object, an object or a map may stand for a map, a tuple or a
// set for a list. A value of another type is a *FormError at its API path. The API paths of
// the values not known yet are in the expansion's Unknown, those of whole blocks with the
// rest: the object has zero values there.
func (d *Description[M, T]) ExpandValue(ctx context.Context, v tftypes.Value) (Expansion[T], error) {
	d.ready()
	n := d.schemas.form.get(ctx, func() attr.Type { return d.ResourceSchema().Type() })
	f := formReader{paths: d.Paths()}
	conformed, err := f.conform(n, v, path.Empty())
	if err != nil {
		return Expansion[T]{}, err
	}
	var m M
	if diags := decode(ctx, n, conformed, &m); diags.HasError() {
		return Expansion[T]{}, &FormError{Err: fmt.Errorf("%s", diags.Errors()[0].Detail())}
	}
	exp := d.ExpandModel(&m)
	exp.Unknown = append(f.unknown, exp.Unknown...)
	return exp, nil
}

// formReader conforms a value to the schema's type, noting the unknown blocks.
type formReader struct {
	paths interface {
		APIPath(path.Path) (*field.Path, bool)
	}
	unknown []*field.Path
}

// apiPath is the API path of the attribute path p, as far as the mapping knows it.
func (f *formReader) apiPath(p path.Path) *field.Path {
	out, _ := f.paths.APIPath(p)
	return out
}

func (f *formReader) errorAt(p path.Path, format string, args ...any) error {
	return &FormError{Path: f.apiPath(p), Err: fmt.Errorf(format, args...)}
}

// conform is v as a value of the schema type n, at the attribute path p.
func (f *formReader) conform(n *typeNode, v tftypes.Value, p path.Path) (tftypes.Value, error) {
	if !v.IsKnown() {
		if n.elem != nil && n.elem.attrs != nil {
			// A block known only later: the model has no room for it.
			if ap := f.apiPath(p); ap != nil {
				f.unknown = append(f.unknown, ap)
			}
			return tftypes.NewValue(n.tfType, nil), nil
		}
		return tftypes.NewValue(n.tfType, tftypes.UnknownValue), nil
	}
	if v.IsNull() {
		return tftypes.NewValue(n.tfType, nil), nil
	}
	switch {
	case n.attrs != nil && !n.tfType.Is(tftypes.Map{}):
		return f.conformObject(n, v, p)
	case n.tfType.Is(tftypes.Map{}):
		return f.conformMap(n, v, p)
	case n.elem != nil:
		return f.conformList(n, v, p)
	}
	return f.conformScalar(n, v, p)
}

// entries are the attributes or elements of v, an object or a map, which the schema wants as
// what.
func (f *formReader) entries(v tftypes.Value, p path.Path, what string) (map[string]tftypes.Value, error) {
	if !isObject(v) {
		return nil, f.errorAt(p, "want %s, got %s", what, describe(v))
	}
	var given map[string]tftypes.Value
	if err := v.As(&given); err != nil {
		return nil, f.errorAt(p, "%v", err)
	}
	return given, nil
}

func (f *formReader) conformObject(n *typeNode, v tftypes.Value, p path.Path) (tftypes.Value, error) {
	given, err := f.entries(v, p, "an object")
	if err != nil {
		return tftypes.Value{}, err
	}
	out := make(map[string]tftypes.Value, len(n.attrs))
	for name, an := range n.attrs {
		e, ok := given[name]
		if !ok {
			out[name] = tftypes.NewValue(an.tfType, nil)
			continue
		}
		c, err := f.conform(an, e, p.AtName(name))
		if err != nil {
			return tftypes.Value{}, err
		}
		out[name] = c
	}
	return newValue(n.tfType, out)
}

func (f *formReader) conformMap(n *typeNode, v tftypes.Value, p path.Path) (tftypes.Value, error) {
	given, err := f.entries(v, p, "a map")
	if err != nil {
		return tftypes.Value{}, err
	}
	out := make(map[string]tftypes.Value, len(given))
	for k, e := range given {
		c, err := f.conform(n.elem, e, p.AtMapKey(k))
		if err != nil {
			return tftypes.Value{}, err
		}
		out[k] = c
	}
	return newValue(n.tfType, out)
}

func (f *formReader) conformList(n *typeNode, v tftypes.Value, p path.Path) (tftypes.Value, error) {
	block := n.elem.attrs != nil && !n.elem.tfType.Is(tftypes.Map{})
	var given []tftypes.Value
	switch {
	case isList(v):
		if err := v.As(&given); err != nil {
			return tftypes.Value{}, f.errorAt(p, "%v", err)
		}
	case block && isObject(v):
		given = []tftypes.Value{v} // a block written as its object
	default:
		return tftypes.Value{}, f.errorAt(p, "want a list, got %s", describe(v))
	}
	out := make([]tftypes.Value, 0, len(given))
	for i, e := range given {
		at := p.AtListIndex(i)
		if block && !e.IsKnown() {
			// An element of a block known only later: the model has no room for it.
			if ap := f.apiPath(at); ap != nil {
				f.unknown = append(f.unknown, ap)
			}
			continue
		}
		c, err := f.conform(n.elem, e, at)
		if err != nil {
			return tftypes.Value{}, err
		}
		out = append(out, c)
	}
	return newValue(n.tfType, out)
}

func (f *formReader) conformScalar(n *typeNode, v tftypes.Value, p path.Path) (tftypes.Value, error) {
	switch {
	case n.tfType.Is(tftypes.String) && v.Type().Is(tftypes.String):
		var s string
		err := v.As(&s)
		return tftypes.NewValue(tftypes.String, s), err
	case n.tfType.Is(tftypes.Number) && v.Type().Is(tftypes.Number):
		var b big.Float
		err := v.As(&b)
		return tftypes.NewValue(tftypes.Number, &b), err
	case n.tfType.Is(tftypes.Bool) && v.Type().Is(tftypes.Bool):
		var b bool
		err := v.As(&b)
		return tftypes.NewValue(tftypes.Bool, b), err
	}
	return tftypes.Value{}, f.errorAt(p, "want %s, got %s", describeType(n.tfType), describe(v))
}

func isObject(v tftypes.Value) bool {
	return v.Type().Is(tftypes.Object{}) || v.Type().Is(tftypes.Map{})
}

func isList(v tftypes.Value) bool {
	return v.Type().Is(tftypes.List{}) || v.Type().Is(tftypes.Tuple{}) || v.Type().Is(tftypes.Set{})
}

// describe says what v is, for errors.
func describe(v tftypes.Value) string {
	if v.IsNull() {
		return "null"
	}
	return describeType(v.Type())
}

func describeType(t tftypes.Type) string {
	switch {
	case t.Is(tftypes.Object{}), t.Is(tftypes.Map{}):
		return "an object"
	case t.Is(tftypes.List{}), t.Is(tftypes.Tuple{}), t.Is(tftypes.Set{}):
		return "a list"
	case t.Is(tftypes.String):
		return "a string"
	case t.Is(tftypes.Number):
		return "a number"
	case t.Is(tftypes.Bool):
		return "a bool"
	}
	return t.String()
}
