package policy

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/metadata"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfconv"
)

// objectModel is an object of the family as the configuration, plan and
// state hold it. Blocks are slices, so an absent block is an empty slice.
//
// The core reads and writes it attribute by attribute (id, metadata, spec,
// and the status of kinds that have one) rather than as one struct, since
// the kinds differ in their top-level attributes and the plugin framework
// decodes only into a struct that matches the schema exactly.
type objectModel[S any] struct {
	ID       types.String
	Metadata []metadata.Model
	Spec     []S
}

// getter is a configuration, plan or state.
type getter interface {
	GetAttribute(ctx context.Context, p path.Path, target any) diag.Diagnostics
}

// setter is a state.
type setter interface {
	SetAttribute(ctx context.Context, p path.Path, value any) diag.Diagnostics
}

// readObject reads the object's attributes from a configuration, plan or
// state. It fails where a whole block is unknown (a dynamic block over values
// known only at apply).
func readObject[S any](ctx context.Context, from getter) (objectModel[S], diag.Diagnostics) {
	var m objectModel[S]
	diags := from.GetAttribute(ctx, path.Root("id"), &m.ID)
	diags.Append(from.GetAttribute(ctx, path.Root("metadata"), &m.Metadata)...)
	diags.Append(from.GetAttribute(ctx, path.Root("spec"), &m.Spec)...)
	return m, diags
}

// name is the object's name in m: its id, or the name in its metadata.
func (m objectModel[S]) name() string {
	if n := m.ID.ValueString(); n != "" {
		return n
	}
	if len(m.Metadata) > 0 {
		return m.Metadata[0].Name.ValueString()
	}
	return ""
}

// expansion is the result of turning a model into an API object. Unknown
// holds the API paths whose values are not known yet (during plan); the
// object carries zero values there.
type expansion[T any] struct {
	Object  *T
	Unknown []*field.Path
}

// unknownAt reports whether p is, contains, or lies under an unknown value:
// a check at such a path would judge a value we do not have.
func (e *expansion[T]) unknownAt(p string) bool {
	for _, u := range e.Unknown {
		us := u.String()
		if us == p || hasPathPrefix(p, us) || hasPathPrefix(us, p) {
			return true
		}
	}
	return false
}

func hasPathPrefix(p, prefix string) bool {
	return len(p) > len(prefix) && p[:len(prefix)] == prefix && (p[len(prefix)] == '.' || p[len(prefix)] == '[')
}

// expand turns a model (a plan, state or configuration) into an API object.
func (k *kind[S, T]) expand(m objectModel[S]) expansion[T] {
	x := &tfconv.Expander{}
	obj := new(T)
	if len(m.Metadata) > 0 {
		*k.meta(obj) = metadata.Expand(x, m.Metadata[0], field.NewPath("metadata"))
	}
	if len(m.Spec) > 0 {
		k.expandSpec(x, m.Spec[0], field.NewPath("spec"), obj)
	}
	return expansion[T]{Object: obj, Unknown: x.Unknown}
}

// flatten turns an API object into a model. prior, when not nil, is the
// state or plan the object is read for: it keeps the shape the user wrote
// where the API cannot tell two forms apart (an empty selector block and no
// block, an empty list and none), and limits labels and annotations to those
// Terraform manages.
func (k *kind[S, T]) flatten(obj *T, prior *objectModel[S]) objectModel[S] {
	var pm *metadata.Model
	var ps *S
	if prior != nil && len(prior.Metadata) > 0 {
		pm = &prior.Metadata[0]
	}
	if prior != nil && len(prior.Spec) > 0 {
		ps = &prior.Spec[0]
	}
	meta := k.meta(obj)
	return objectModel[S]{
		ID:       types.StringValue(meta.Name),
		Metadata: []metadata.Model{metadata.Flatten(*meta, pm)},
		Spec:     []S{k.flattenSpec(obj, ps)},
	}
}

// write sets the attributes of obj, read for prior, on a state.
func (k *kind[S, T]) write(ctx context.Context, to setter, obj *T, prior *objectModel[S]) diag.Diagnostics {
	m := k.flatten(obj, prior)
	diags := to.SetAttribute(ctx, path.Root("id"), m.ID)
	diags.Append(to.SetAttribute(ctx, path.Root("metadata"), m.Metadata)...)
	diags.Append(to.SetAttribute(ctx, path.Root("spec"), m.Spec)...)
	if k.status != nil {
		status, d := k.status.value(ctx, obj)
		diags.Append(d...)
		diags.Append(to.SetAttribute(ctx, path.Root("status"), status)...)
	}
	return diags
}

// objectValue is obj as one object value of attrTypes (an
// item of the list data source).
func (k *kind[S, T]) objectValue(ctx context.Context, attrTypes map[string]attr.Type, obj *T) (attr.Value, diag.Diagnostics) {
	m := k.flatten(obj, nil)
	var diags diag.Diagnostics
	list := func(name string, v any) attr.Value {
		l, d := types.ListValueFrom(ctx, attrTypes[name].(types.ListType).ElemType, v)
		diags.Append(d...)
		return l
	}
	values := map[string]attr.Value{
		"id":       m.ID,
		"metadata": list("metadata", m.Metadata),
		"spec":     list("spec", m.Spec),
	}
	if k.status != nil {
		status, d := k.status.value(ctx, obj)
		diags.Append(d...)
		values["status"] = status
	}
	v, d := types.ObjectValue(attrTypes, values)
	diags.Append(d...)
	return v, diags
}

// statusKind is the status of a kind whose server computes one: its
// read-only attribute, and the value of an object's status.
type statusKind[T any] struct {
	attribute schema.SingleNestedAttribute
	value     func(ctx context.Context, obj *T) (types.Object, diag.Diagnostics)
}
