package protocol

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The walks below pass the schema down with the value (object, block,
// attribute), so that each value's schema is known without a lookup from
// the root. Each does what one of the framework's walks does
// (fwschemadata.(*Data).NullifyCollectionBlocks, ReifyNullCollectionBlocks,
// TransformDefaults, fwserver.MarkComputedNilsAsUnknown), on the values
// that walk changes, and leaves every other value as it is; an error means
// that the fast path does not answer and the framework does.

// errNotAnswered is returned where a value is one the framework would
// report on (an integer that is not one); its answer is then the answer.
var errNotAnswered = errors.New("left to the framework")

func attrsOf(v tftypes.Value) (map[string]tftypes.Value, error) {
	var m map[string]tftypes.Value
	if err := v.As(&m); err != nil {
		return nil, err
	}
	return m, nil
}

func elemsOf(v tftypes.Value) ([]tftypes.Value, error) {
	var l []tftypes.Value
	if err := v.As(&l); err != nil {
		return nil, err
	}
	return l, nil
}

func known(v tftypes.Value) bool { return v.IsKnown() && !v.IsNull() }

// with is m with k set to v, m copied first unless copied says it is a
// copy already: tftypes.Value.As hands out the value's own map, which the
// request's values share (so do the lists of withElem).
func with(m map[string]tftypes.Value, copied bool, k string, v tftypes.Value) (map[string]tftypes.Value, bool) {
	if !copied {
		m = maps.Clone(m)
	}
	m[k] = v
	return m, true
}

// withElem is l with its element i set to v, copied first unless copied.
func withElem(l []tftypes.Value, copied bool, i int, v tftypes.Value) ([]tftypes.Value, bool) {
	if !copied {
		l = slices.Clone(l)
	}
	l[i] = v
	return l, true
}

// decode is a request's value as the framework decodes it
// (fromproto6.DynamicValue): unmarshalled with the schema's type, then
// every empty list of blocks made null. It also checks that every integer
// attribute holds an integer of 64 bits, as basetypes.Int64Type converts
// them: the framework reports any other, and answers that request itself.
func decode(dv *tfprotov6.DynamicValue, o *object) (tftypes.Value, error) {
	v, err := dv.Unmarshal(o.typ)
	if err != nil {
		return v, err
	}
	out, _, err := nullifyObject(v, o)
	return out, err
}

// nullifyObject makes the empty lists of blocks of the object v null, at
// every depth (NullifyCollectionBlocks), and checks its integers.
func nullifyObject(v tftypes.Value, o *object) (tftypes.Value, bool, error) {
	if !known(v) {
		return v, false, nil
	}
	m, err := attrsOf(v)
	if err != nil {
		return v, false, err
	}
	for _, a := range o.attrs {
		if err := checkIntegers(m[a.name], a); err != nil {
			return v, false, err
		}
	}
	changed := false
	for _, b := range o.blocks {
		bv := m[b.name]
		if !known(bv) {
			continue
		}
		if !b.list {
			nv, ch, err := nullifyObject(bv, b.obj)
			if err != nil {
				return v, false, err
			}
			if ch {
				m, changed = with(m, changed, b.name, nv)
			}
			continue
		}
		elems, err := elemsOf(bv)
		if err != nil {
			return v, false, err
		}
		if len(elems) == 0 {
			m, changed = with(m, changed, b.name, tftypes.NewValue(b.typ, nil))
			continue
		}
		elemsChanged := false
		for i, e := range elems {
			ne, ch, err := nullifyObject(e, b.obj)
			if err != nil {
				return v, false, err
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
		return v, false, nil
	}
	return tftypes.NewValue(o.typ, m), true, nil
}

// checkIntegers refuses an integer attribute whose value is not an integer
// of 64 bits (basetypes.Int64Type.ValueFromTerraform), also inside nested
// attributes.
func checkIntegers(v tftypes.Value, a *attribute) error {
	if !known(v) {
		return nil
	}
	if a.integer {
		var f big.Float
		if err := v.As(&f); err != nil {
			return err
		}
		if _, acc := f.Int64(); !f.IsInt() || acc != big.Exact {
			return fmt.Errorf("%s: %w", a.name, errNotAnswered)
		}
		return nil
	}
	if a.nested == nil || !a.nested.hasIntegers() {
		return nil
	}
	objs := []tftypes.Value{v}
	if a.nestedList {
		var err error
		if objs, err = elemsOf(v); err != nil {
			return err
		}
	}
	for _, ov := range objs {
		if !known(ov) {
			continue
		}
		m, err := attrsOf(ov)
		if err != nil {
			return err
		}
		for _, na := range a.nested.attrs {
			if err := checkIntegers(m[na.name], na); err != nil {
				return err
			}
		}
	}
	return nil
}

func (o *object) hasIntegers() bool {
	for _, a := range o.attrs {
		if a.integer || (a.nested != nil && a.nested.hasIntegers()) {
			return true
		}
	}
	return false
}

// reify makes every null list of blocks in the object v an empty list, at
// every depth where its parent is known (ReifyNullCollectionBlocks, which
// the framework runs on every value it encodes).
func reify(v tftypes.Value, o *object) (tftypes.Value, error) {
	out, _, err := reifyObject(v, o)
	return out, err
}

func reifyObject(v tftypes.Value, o *object) (tftypes.Value, bool, error) {
	if len(o.blocks) == 0 || !known(v) {
		return v, false, nil
	}
	m, err := attrsOf(v)
	if err != nil {
		return v, false, err
	}
	changed := false
	for _, b := range o.blocks {
		bv := m[b.name]
		switch {
		case bv.IsNull() && b.list:
			m, changed = with(m, changed, b.name, tftypes.NewValue(b.typ, []tftypes.Value{}))
		case !known(bv):
		case !b.list:
			nv, ch, err := reifyObject(bv, b.obj)
			if err != nil {
				return v, false, err
			}
			if ch {
				m, changed = with(m, changed, b.name, nv)
			}
		default:
			elems, err := elemsOf(bv)
			if err != nil {
				return v, false, err
			}
			elemsChanged := false
			for i, e := range elems {
				ne, ch, err := reifyObject(e, b.obj)
				if err != nil {
					return v, false, err
				}
				if ch {
					elems, elemsChanged = withElem(elems, elemsChanged, i, ne)
				}
			}
			if elemsChanged {
				m, changed = with(m, changed, b.name, tftypes.NewValue(b.typ, elems))
			}
		}
	}
	if !changed {
		return v, false, nil
	}
	return tftypes.NewValue(o.typ, m), true, nil
}

// cursor is the configuration's value at the path a walk over the plan has
// reached, as tftypes.WalkAttributePath finds it: where a step cannot be
// taken (into a null or unknown value, past the end of a list), the walk
// stops at the value it could not step into, and so does the cursor.
type cursor struct {
	v     tftypes.Value
	stuck bool
}

func (c cursor) attr(name string) cursor {
	if c.stuck || !known(c.v) {
		return cursor{v: c.v, stuck: true}
	}
	m, err := attrsOf(c.v)
	if err != nil {
		return cursor{v: c.v, stuck: true}
	}
	v, ok := m[name]
	if !ok {
		return cursor{v: c.v, stuck: true}
	}
	return cursor{v: v}
}

func (c cursor) elem(i int) cursor {
	if c.stuck || !known(c.v) {
		return cursor{v: c.v, stuck: true}
	}
	l, err := elemsOf(c.v)
	if err != nil || i >= len(l) {
		return cursor{v: c.v, stuck: true}
	}
	return cursor{v: l[i]}
}

// walked is what MarkComputedNilsAsUnknown reads: the value at the path, or
// the value where the walk stopped.
func (c cursor) walked() tftypes.Value { return c.v }

// atPath is what fwschemadata.Data.ValueAtPath reads: the value at the
// path, null where the path does not reach.
func (c cursor) atPathIsNull() bool { return c.stuck || c.v.IsNull() }

// planned applies to the proposed new state what the framework's plan does
// before the plan modifiers: the defaults of the attributes that the
// configuration leaves out (TransformDefaults), and, when mark is set (the
// plan differs from the prior state), an unknown value for every computed
// attribute without a default that the configuration leaves out
// (MarkComputedNilsAsUnknown). ok is false where a default reports a
// diagnostic.
type planner struct {
	ctx        context.Context
	mark       bool
	noDefaults bool
}

func (w *planner) object(v tftypes.Value, cfg cursor, o *object, p func() path.Path) (tftypes.Value, bool, error) {
	if !known(v) {
		return v, false, nil
	}
	m, err := attrsOf(v)
	if err != nil {
		return v, false, err
	}
	changed := false
	for _, a := range o.attrs {
		av := m[a.name]
		ac := cfg.attr(a.name)
		if a.def != nil {
			if w.noDefaults || !ac.atPathIsNull() {
				continue
			}
			dv := a.defValue
			if !a.defStatic {
				var ok bool
				if dv, ok = a.def.value(w.ctx, p().AtName(a.name)); !ok {
					return v, false, errNotAnswered
				}
			}
			m, changed = with(m, changed, a.name, dv)
			continue
		}
		if w.mark && a.computed && ac.walked().IsNull() {
			m, changed = with(m, changed, a.name, tftypes.NewValue(av.Type(), tftypes.UnknownValue))
			continue
		}
		if a.nested == nil || !known(av) || !w.mark {
			// Nested attributes hold no defaults (treeOf): only
			// marking reaches inside them.
			continue
		}
		nv, ch, err := w.nested(av, ac, a)
		if err != nil {
			return v, false, err
		}
		if ch {
			m, changed = with(m, changed, a.name, nv)
		}
	}
	for _, b := range o.blocks {
		bv := m[b.name]
		if !known(bv) {
			continue
		}
		bc := cfg.attr(b.name)
		if !b.list {
			nv, ch, err := w.object(bv, bc, b.obj, func() path.Path { return p().AtName(b.name) })
			if err != nil {
				return v, false, err
			}
			if ch {
				m, changed = with(m, changed, b.name, nv)
			}
			continue
		}
		elems, err := elemsOf(bv)
		if err != nil {
			return v, false, err
		}
		elemsChanged := false
		for i, e := range elems {
			ne, ch, err := w.object(e, bc.elem(i), b.obj, func() path.Path { return p().AtName(b.name).AtListIndex(i) })
			if err != nil {
				return v, false, err
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
		return v, false, nil
	}
	return tftypes.NewValue(o.typ, m), true, nil
}

// nested marks the computed attributes inside a nested attribute's value.
func (w *planner) nested(v tftypes.Value, cfg cursor, a *attribute) (tftypes.Value, bool, error) {
	none := func() path.Path { return path.Empty() } // no defaults inside
	if !a.nestedList {
		return w.object(v, cfg, a.nested, none)
	}
	elems, err := elemsOf(v)
	if err != nil {
		return v, false, err
	}
	changed := false
	for i, e := range elems {
		ne, ch, err := w.object(e, cfg.elem(i), a.nested, none)
		if err != nil {
			return v, false, err
		}
		if ch {
			elems, changed = withElem(elems, changed, i, ne)
		}
	}
	if !changed {
		return v, false, nil
	}
	return tftypes.NewValue(a.typ, elems), true, nil
}

// equal is tftypes.Value.Equal without its walks, which build an attribute
// path for every value of both (tftypes.Walk): the same types, then the
// same values, known and null alike, element by element.
func equal(a, b tftypes.Value) bool {
	if a.Type() == nil || b.Type() == nil {
		return a.Type() == nil && b.Type() == nil && a.IsNull() && b.IsNull()
	}
	if !a.Type().Equal(b.Type()) {
		return false
	}
	return sameValue(a, b)
}

// sameValue compares two values of the same type.
func sameValue(a, b tftypes.Value) bool {
	switch {
	case !a.IsKnown() || !b.IsKnown():
		return !a.IsKnown() && !b.IsKnown()
	case a.IsNull() || b.IsNull():
		return a.IsNull() && b.IsNull()
	}
	switch t := a.Type(); {
	case t.Is(tftypes.String):
		var x, y string
		return a.As(&x) == nil && b.As(&y) == nil && x == y
	case t.Is(tftypes.Number):
		var x, y big.Float
		return a.As(&x) == nil && b.As(&y) == nil && x.Cmp(&y) == 0
	case t.Is(tftypes.Bool):
		var x, y bool
		return a.As(&x) == nil && b.As(&y) == nil && x == y
	case t.Is(tftypes.List{}), t.Is(tftypes.Tuple{}):
		var x, y []tftypes.Value
		if a.As(&x) != nil || b.As(&y) != nil || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	case t.Is(tftypes.Map{}), t.Is(tftypes.Object{}):
		var x, y map[string]tftypes.Value
		if a.As(&x) != nil || b.As(&y) != nil || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !sameValue(xv, yv) {
				return false
			}
		}
		return true
	}
	// Sets and dynamic values: the framework's own comparison.
	return a.Equal(b)
}
