package protocol

import (
	"context"
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/defaults"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// defaultOf is the default of a string, integer or bool attribute.
type defaultOf struct {
	str   defaults.String
	int64 defaults.Int64
	bool  defaults.Bool
}

// staticDefaults are the defaults whose value does not depend on the
// attribute's path, known by the type of the value their constructor
// returns: the framework's StaticString, StaticInt64 and StaticBool. Their
// value is computed once.
var staticDefaults = map[reflect.Type]bool{
	reflect.TypeOf(stringdefault.StaticString("")): true,
	reflect.TypeOf(int64default.StaticInt64(0)):    true,
	reflect.TypeOf(booldefault.StaticBool(false)):  true,
}

func isStatic(d any) bool {
	return d != nil && staticDefaults[reflect.TypeOf(d)]
}

// value is the value the default sets at p, as
// fwschemadata.(*Data).TransformDefaults sets it; ok is false when the
// default reports a diagnostic (the framework's answer then has it).
func (d *defaultOf) value(ctx context.Context, p path.Path) (tftypes.Value, bool) {
	var (
		out tftypes.Value
		err error
	)
	switch {
	case d.str != nil:
		resp := defaults.StringResponse{}
		d.str.DefaultString(ctx, defaults.StringRequest{Path: p}, &resp)
		if len(resp.Diagnostics) > 0 {
			return out, false
		}
		out, err = resp.PlanValue.ToTerraformValue(ctx)
	case d.int64 != nil:
		resp := defaults.Int64Response{}
		d.int64.DefaultInt64(ctx, defaults.Int64Request{Path: p}, &resp)
		if len(resp.Diagnostics) > 0 {
			return out, false
		}
		out, err = resp.PlanValue.ToTerraformValue(ctx)
	case d.bool != nil:
		resp := defaults.BoolResponse{}
		d.bool.DefaultBool(ctx, defaults.BoolRequest{Path: p}, &resp)
		if len(resp.Diagnostics) > 0 {
			return out, false
		}
		out, err = resp.PlanValue.ToTerraformValue(ctx)
	default:
		return out, false
	}
	return out, err == nil
}

// static is the value of a default that does not depend on its path, else
// ok is false.
func (d *defaultOf) static(ctx context.Context) (tftypes.Value, bool) {
	var impl any
	switch {
	case d.str != nil:
		impl = d.str
	case d.int64 != nil:
		impl = d.int64
	case d.bool != nil:
		impl = d.bool
	}
	if !isStatic(impl) {
		return tftypes.Value{}, false
	}
	return d.value(ctx, path.Empty())
}
