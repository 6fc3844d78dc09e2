package typecheck

import (
	"slices"
	"strings"
	"sync"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/mutation"
	"k8s.io/apiserver/pkg/cel/mutation/dynamic"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// objectTypes resolves the type names that a mutation builds its apply configuration or JSON
// patch values with, typed after the schema of one matched kind: "Object" is the kind,
// "Object.spec" the type of its spec, "Object.spec.template.spec.containers" the type of an
// element of that list. The server resolves the same names to types that take any field
// (k8s.io/apiserver pkg/cel/mutation DynamicTypeResolver, dynamic.ObjectType); here a field
// the schema does not have is an error: "undefined field". Where the schema says nothing of
// the fields (x-kubernetes-preserve-unknown-fields, int-or-string, free-form objects) the
// server's dynamic type is kept. JSONPatch is the server's own type.
type objectTypes struct {
	root *spec.Schema

	mu       sync.Mutex
	resolved map[string]common.ResolvedType // nil: no such type
}

var _ common.TypeResolver = (*objectTypes)(nil)

func newObjectTypes(root *spec.Schema) *objectTypes {
	return &objectTypes{root: root, resolved: map[string]common.ResolvedType{}}
}

// Resolve implements k8s.io/apiserver pkg/cel/common TypeResolver.
func (r *objectTypes) Resolve(name string) (common.ResolvedType, bool) {
	if name == mutation.JSONPatchTypeName {
		return &mutation.JSONPatchType{}, true
	}
	if name != mutation.ObjectTypeName && !strings.HasPrefix(name, mutation.ObjectTypeName+".") {
		return nil, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.resolved[name]
	if !ok {
		t = r.resolve(name)
		r.resolved[name] = t
	}
	return t, t != nil
}

// resolve walks the schema along the field names of name; nil if a field is not in it.
func (r *objectTypes) resolve(name string) common.ResolvedType {
	s := r.root
	for _, field := range strings.Split(name, ".")[1:] {
		if !hasTypedFields(s) {
			return dynamic.NewObjectType(name)
		}
		prop, ok := s.Properties[field]
		if !ok {
			return nil
		}
		s = elementOf(&prop)
	}
	if !hasTypedFields(s) {
		return dynamic.NewObjectType(name)
	}
	return newTypedObject(name, s)
}

// elementOf is what a field's type name stands for: the field's schema, or for a list the
// schema of its elements, for a map that of its values.
func elementOf(s *spec.Schema) *spec.Schema {
	for {
		switch {
		case s.Type.Contains("array") && s.Items != nil && s.Items.Schema != nil:
			s = s.Items.Schema
		case isMap(s):
			s = s.AdditionalProperties.Schema
		default:
			return s
		}
	}
}

// hasTypedFields reports whether a schema is an object whose fields are all known.
func hasTypedFields(s *spec.Schema) bool {
	return len(s.Properties) > 0 && !isDynamic(s)
}

func isMap(s *spec.Schema) bool {
	return len(s.Properties) == 0 && s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil
}

// isDynamic reports whether a schema leaves the type of its value open.
func isDynamic(s *spec.Schema) bool {
	preserve, _ := s.Extensions.GetBool("x-kubernetes-preserve-unknown-fields")
	intOrString, _ := s.Extensions.GetBool("x-kubernetes-int-or-string")
	return preserve || intOrString || s.Format == "int-or-string" || len(s.Type) == 0 && len(s.Properties) == 0
}

// fieldType is the CEL type a field of an apply configuration takes. The server takes any
// value and converts it to JSON (dynamic.ObjectVal), so only what cannot be right is typed:
// integers, booleans and plain strings; a list takes a list, a map a map; an object takes an
// Object type or a map literal, so it stays dyn, as do formatted strings (a date-time is
// written as a string) and numbers (an integer literal is a fine number).
func fieldType(s *spec.Schema) *types.Type {
	if isDynamic(s) {
		return types.DynType
	}
	switch {
	case s.Type.Contains("integer"):
		return types.IntType
	case s.Type.Contains("boolean"):
		return types.BoolType
	case s.Type.Contains("string") && s.Format == "":
		return types.StringType
	case s.Type.Contains("array"):
		return types.NewListType(types.DynType)
	case isMap(s):
		return types.NewMapType(types.StringType, types.DynType)
	}
	return types.DynType
}

// typedObject is an Object type with the fields of its schema.
type typedObject struct {
	*dynamic.ObjectType
	fields map[string]*types.Type
}

func newTypedObject(name string, s *spec.Schema) *typedObject {
	fields := make(map[string]*types.Type, len(s.Properties))
	for field, prop := range s.Properties {
		fields[field] = fieldType(&prop)
	}
	return &typedObject{ObjectType: dynamic.NewObjectType(name), fields: fields}
}

// Field returns the field's type, or false for a field the schema does not have; reading and
// setting work as in the server's dynamic type.
func (o *typedObject) Field(name string) (*types.FieldType, bool) {
	t, ok := o.fields[name]
	if !ok {
		return nil, false
	}
	f, _ := o.ObjectType.Field(name)
	return &types.FieldType{Type: t, IsSet: f.IsSet, GetFrom: f.GetFrom}, true
}

func (o *typedObject) FieldNames() ([]string, bool) {
	names := make([]string, 0, len(o.fields))
	for name := range o.fields {
		names = append(names, name)
	}
	slices.Sort(names)
	return names, true
}

func (o *typedObject) Val(fields map[string]ref.Val) ref.Val {
	return o.ObjectType.Val(fields)
}
