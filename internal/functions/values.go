package functions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/simulate"
)

// tree is a Terraform value as a JSON-like tree (map[string]any, []any,
// string, json.Number, bool, nil), with simulate.Unknown where the value is
// not known yet.
func tree(ctx context.Context, v types.Dynamic) (any, error) {
	if v.IsUnknown() {
		return simulate.Unknown{}, nil
	}
	if v.IsNull() || v.IsUnderlyingValueNull() {
		return nil, nil
	}
	if v.IsUnderlyingValueUnknown() {
		return simulate.Unknown{}, nil
	}
	tv, err := v.UnderlyingValue().ToTerraformValue(ctx)
	if err != nil {
		return nil, err
	}
	return fromTerraform(tv)
}

func fromTerraform(v tftypes.Value) (any, error) {
	if !v.IsKnown() {
		return simulate.Unknown{}, nil
	}
	if v.IsNull() {
		return nil, nil
	}
	t := v.Type()
	switch {
	case t.Is(tftypes.String):
		var s string
		err := v.As(&s)
		return s, err
	case t.Is(tftypes.Bool):
		var b bool
		err := v.As(&b)
		return b, err
	case t.Is(tftypes.Number):
		var f big.Float
		if err := v.As(&f); err != nil {
			return nil, err
		}
		return json.Number(f.Text('g', -1)), nil
	case t.Is(tftypes.Object{}), t.Is(tftypes.Map{}):
		var m map[string]tftypes.Value
		if err := v.As(&m); err != nil {
			return nil, err
		}
		out := make(map[string]any, len(m))
		for k, e := range m {
			c, err := fromTerraform(e)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case t.Is(tftypes.List{}), t.Is(tftypes.Tuple{}), t.Is(tftypes.Set{}):
		var l []tftypes.Value
		if err := v.As(&l); err != nil {
			return nil, err
		}
		out := make([]any, 0, len(l))
		for _, e := range l {
			c, err := fromTerraform(e)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		}
		return out, nil
	}
	return nil, fmt.Errorf("unsupported value of type %s", t)
}

// value is a JSON tree as a Terraform value: objects as objects, arrays as
// tuples (their elements may differ in type). Null members of objects are
// left out.
func value(v any) attr.Value {
	switch t := v.(type) {
	case nil:
		return types.DynamicNull()
	case string:
		return types.StringValue(t)
	case bool:
		return types.BoolValue(t)
	case json.Number:
		f, _, err := big.ParseFloat(string(t), 10, 512, big.ToNearestEven)
		if err != nil {
			return types.StringValue(string(t))
		}
		return types.NumberValue(f)
	case float64:
		return types.NumberValue(big.NewFloat(t))
	case int64:
		return types.NumberValue(new(big.Float).SetInt64(t))
	case int:
		return types.NumberValue(new(big.Float).SetInt64(int64(t)))
	case map[string]any:
		attrTypes := map[string]attr.Type{}
		values := map[string]attr.Value{}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if t[k] == nil {
				continue
			}
			e := value(t[k])
			attrTypes[k] = e.Type(context.Background())
			values[k] = e
		}
		return types.ObjectValueMust(attrTypes, values)
	case []any:
		elemTypes := make([]attr.Type, 0, len(t))
		elems := make([]attr.Value, 0, len(t))
		for _, e := range t {
			ev := value(e)
			if e == nil {
				ev = types.StringNull()
			}
			elemTypes = append(elemTypes, ev.Type(context.Background()))
			elems = append(elems, ev)
		}
		return types.TupleValueMust(elemTypes, elems)
	}
	return types.StringValue(fmt.Sprint(v))
}

// argError is the function error for an error in argument i (named name),
// naming the field of the argument where the input says it is.
func argError(i int64, name string, err error) *function.FuncError {
	var ie *simulate.InputError
	if errors.As(err, &ie) {
		where := name
		switch {
		case strings.HasPrefix(ie.Path, "["):
			where = name + ie.Path
		case ie.Path != "":
			where = name + "." + ie.Path
		}
		return function.NewArgumentFuncError(i, fmt.Sprintf("%s: %v", where, ie.Err))
	}
	return function.NewArgumentFuncError(i, fmt.Sprintf("%s: %v", name, err))
}

func isUnknown(err error) bool {
	var u *simulate.ErrUnknown
	return errors.As(err, &u)
}
