package protocol

import (
	"context"
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/defaults"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// defaultOf is the default of a string, integer or bool attribute.
type defaultOf struct {
	str   defaults.String
	int64 defaults.Int64
	bool  defaults.Bool
}

// staticDefaults are the defaults whose value does not depend on the
// attribute's path, by package and type name: the framework's
// StaticString, StaticInt64 and StaticBool. Their value is computed once.
var staticDefaults = map[string]bool{
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault.staticStringDefault": true,
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default.staticInt64Default":   true,
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault.staticBoolDefault":     true,
}

func isStatic(d any) bool {
	t := reflect.TypeOf(d)
	return t != nil && staticDefaults[t.PkgPath()+"."+t.Name()]
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
