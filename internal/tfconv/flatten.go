package tfconv

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The functions below turn API values into Terraform values. Where the API
// cannot tell two forms apart (an empty list and none), the prior value, from
// the state or plan the object is read for, keeps the form the user wrote.

// PriorMap is get(prior), or a null map when there is no prior model.
func PriorMap[T any](prior *T, get func(*T) types.Map) types.Map {
	if prior == nil {
		return types.MapNull(types.StringType)
	}
	return get(prior)
}

// PriorList is get(prior), or a null list when there is no prior model.
func PriorList[T any](prior *T, get func(*T) types.List) types.List {
	if prior == nil {
		return types.ListNull(types.StringType)
	}
	return get(prior)
}

// EmptyOr returns an empty map if prior was an empty map, else null.
func EmptyOr(prior types.Map) types.Map {
	if !prior.IsNull() && !prior.IsUnknown() && len(prior.Elements()) == 0 {
		return prior
	}
	return types.MapNull(types.StringType)
}

// StringList is the list value of vs; an empty list stays empty when the
// prior value was an empty list rather than null.
func StringList(vs []string, prior types.List) types.List {
	if len(vs) == 0 {
		if !prior.IsNull() && !prior.IsUnknown() && len(prior.Elements()) == 0 {
			return types.ListValueMust(types.StringType, []attr.Value{})
		}
		return types.ListNull(types.StringType)
	}
	elems := make([]attr.Value, len(vs))
	for i, v := range vs {
		elems[i] = types.StringValue(v)
	}
	return types.ListValueMust(types.StringType, elems)
}

// StringMap is the map value of vs. With onlyPriorKeys, only the keys of the
// prior map are kept: the others belong to someone else.
func StringMap(vs map[string]string, prior types.Map, onlyPriorKeys bool) types.Map {
	elems := map[string]attr.Value{}
	for k, v := range vs {
		if onlyPriorKeys {
			if _, ok := prior.Elements()[k]; !ok {
				continue
			}
		}
		elems[k] = types.StringValue(v)
	}
	if len(elems) == 0 {
		return EmptyOr(prior)
	}
	return types.MapValueMust(types.StringType, elems)
}

// Int64 is the number of v, null when v is nil.
func Int64(v *int32) types.Int64 {
	if v == nil {
		return types.Int64Null()
	}
	return types.Int64Value(int64(*v))
}

// IsEmptyString reports whether v is a known, empty string.
func IsEmptyString(v types.String) bool {
	return !v.IsNull() && !v.IsUnknown() && v.ValueString() == ""
}
