// Package tfconv converts between Terraform values and API values, for the
// conversions of every kind. It does no I/O.
package tfconv

import (
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Expander turns Terraform values into API values, noting the API paths of
// the values that are not known yet (during plan); those get zero values.
type Expander struct {
	Unknown []*field.Path
}

// Str is the string of v.
func (x *Expander) Str(v types.String, p *field.Path) string {
	if v.IsUnknown() {
		x.Unknown = append(x.Unknown, p)
	}
	return v.ValueString()
}

// StrPtr is the string of v, nil when v is null.
func (x *Expander) StrPtr(v types.String, p *field.Path) *string {
	if v.IsUnknown() {
		x.Unknown = append(x.Unknown, p)
		return nil
	}
	if v.IsNull() {
		return nil
	}
	s := v.ValueString()
	return &s
}

// Int32Ptr is the number of v, nil when v is null.
func (x *Expander) Int32Ptr(v types.Int64, p *field.Path) *int32 {
	if v.IsUnknown() {
		x.Unknown = append(x.Unknown, p)
		return nil
	}
	if v.IsNull() {
		return nil
	}
	i := int32(clampInt32(v.ValueInt64()))
	return &i
}

// clampInt32 keeps an out-of-range number out of range after the conversion,
// so that validation still rejects it.
func clampInt32(v int64) int64 {
	const maxInt32, minInt32 = 1<<31 - 1, -1 << 31
	switch {
	case v > maxInt32:
		return maxInt32
	case v < minInt32:
		return minInt32
	}
	return v
}

// BoolPtr is the bool of v, nil when v is null.
func (x *Expander) BoolPtr(v types.Bool, p *field.Path) *bool {
	if v.IsUnknown() {
		x.Unknown = append(x.Unknown, p)
		return nil
	}
	if v.IsNull() {
		return nil
	}
	b := v.ValueBool()
	return &b
}

// Strings is the list of strings v, nil when v is null.
func (x *Expander) Strings(v types.List, p *field.Path) []string {
	if v.IsUnknown() {
		x.Unknown = append(x.Unknown, p)
		return nil
	}
	if v.IsNull() {
		return nil
	}
	out := make([]string, 0, len(v.Elements()))
	for i, e := range v.Elements() {
		s, _ := e.(types.String) // a list of strings in the schema: another element reads as null
		out = append(out, x.Str(s, p.Index(i)))
	}
	return out
}

// StringMap is the map of strings v, nil when v is null.
func (x *Expander) StringMap(v types.Map, p *field.Path) map[string]string {
	if v.IsUnknown() {
		x.Unknown = append(x.Unknown, p)
		return nil
	}
	if v.IsNull() {
		return nil
	}
	out := make(map[string]string, len(v.Elements()))
	for k, e := range v.Elements() {
		s, _ := e.(types.String) // a map of strings in the schema: another element reads as null
		out[k] = x.Str(s, p.Key(k))
	}
	return out
}
