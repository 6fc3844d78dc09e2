// Package apipath turns the API server's field paths
// ("webhooks[2].clientConfig.service.port") into Terraform attribute paths
// (webhook[2].client_config[0].service[0].port), so that every error, ours
// or the server's, points at the line to change; and back (APIPath), for
// what reads a value of a resource's shape.
//
// The mapping is derived, not written down: from the resource schema (which
// attributes and blocks exist, and their names) and from the Go type of the
// API object (which fields are lists, maps or single objects, and their JSON
// names). An API field is the attribute or block named as its JSON name in
// snake_case, unless renamed; a field the schema does not have maps to
// nothing.
package apipath

import (
	"reflect"
	"strconv"
	"strings"
	"unicode"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// layout is how an API field is laid out in the Terraform schema.
type layout int

const (
	scalar      layout = iota // an attribute holding one value
	list                      // a list attribute of scalars: [k] is a list index
	mapAttr                   // a map attribute: [key] is a map key
	block                     // a block of at most one: the API object is element 0 of a list
	repeatBlock               // a repeated block: [k] is a list index, then the block's fields
)

// node is one API field: its attribute name, its layout, and, for blocks,
// its fields by JSON name.
type node struct {
	name     string
	layout   layout
	children map[string]*node
}

// Mapper maps the field paths of one kind to attribute paths of its schema.
type Mapper struct {
	root map[string]*node
}

// New derives the mapping of the API object type apiType (a struct, such as
// admissionregistrationv1.MutatingWebhookConfiguration) onto the resource
// schema s. renames gives the attribute name of JSON names that are not
// their snake_case form (hashicorp/kubernetes names the list "webhooks" by
// its block, "webhook").
func New(s schema.Schema, apiType reflect.Type, renames map[string]string) *Mapper {
	return &Mapper{root: fields(s.Attributes, s.Blocks, apiType, renames)}
}

// fields maps the JSON fields of struct type t that the schema level
// (attrs, blocks) has.
func fields(attrs map[string]schema.Attribute, blocks map[string]schema.Block, t reflect.Type, renames map[string]string) map[string]*node {
	out := map[string]*node{}
	for i := range t.NumField() {
		f := t.Field(i)
		jsonName, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if jsonName == "-" || !f.IsExported() {
			continue
		}
		ft := deref(f.Type)
		if jsonName == "" && f.Anonymous && ft.Kind() == reflect.Struct {
			// An inlined struct (TypeMeta, Rule in RuleWithOperations):
			// its fields are at this level.
			for k, n := range fields(attrs, blocks, ft, renames) {
				out[k] = n
			}
			continue
		}
		name := renames[jsonName]
		if name == "" {
			name = SnakeCase(jsonName)
		}
		if _, ok := attrs[name]; ok {
			out[jsonName] = &node{name: name, layout: attributeLayout(ft)}
			continue
		}
		b, ok := blocks[name].(schema.ListNestedBlock)
		if !ok {
			continue
		}
		n := &node{name: name, layout: block}
		if ft.Kind() == reflect.Slice {
			n.layout, ft = repeatBlock, deref(ft.Elem())
		}
		n.children = fields(b.NestedObject.Attributes, b.NestedObject.Blocks, ft, renames)
		out[jsonName] = n
	}
	return out
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// attributeLayout is the layout of an attribute holding a value of type t.
// Bytes (caBundle) are one value: a string.
func attributeLayout(t reflect.Type) layout {
	switch {
	case t.Kind() == reflect.Map:
		return mapAttr
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8:
		return list
	}
	return scalar
}

// SnakeCase is the attribute name of a JSON field name: "apiVersion" →
// "api_version".
func SnakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// AttributePath returns the attribute path of a server field path such as
// "webhooks[0].rules[1].resources[2]" (→ webhook[0].rule[1].resources[2]) or
// "metadata.name" (→ metadata[0].name). Blocks of at most one get element 0;
// list indexes become AtListIndex and map keys ("metadata.labels[foo]")
// AtMapKey. It returns false for a path it cannot parse or that names no
// attribute of the schema, so that the caller can fall back to a
// resource-level diagnostic.
func (m *Mapper) AttributePath(apiPath string) (path.Path, bool) {
	segs, ok := parseFieldPath(apiPath)
	if !ok {
		return path.Empty(), false
	}
	var p path.Path
	children := m.root
	for si, seg := range segs {
		n := children[seg.name]
		if n == nil {
			return path.Empty(), false
		}
		if si == 0 {
			p = path.Root(n.name)
		} else {
			p = p.AtName(n.name)
		}
		last := si == len(segs)-1
		switch n.layout {
		case scalar:
			if len(seg.subs) > 0 || !last {
				return path.Empty(), false
			}
		case list, mapAttr:
			if len(seg.subs) > 1 || !last {
				return path.Empty(), false
			}
			if len(seg.subs) == 1 {
				if n.layout == mapAttr {
					p = p.AtMapKey(seg.subs[0])
				} else if k, ok := index(seg.subs[0]); ok {
					p = p.AtListIndex(k)
				} else {
					return path.Empty(), false
				}
			}
		case block:
			if len(seg.subs) > 0 {
				return path.Empty(), false
			}
			p = p.AtListIndex(0)
		case repeatBlock:
			if len(seg.subs) > 1 || (len(seg.subs) == 0 && !last) {
				return path.Empty(), false
			}
			if len(seg.subs) == 1 {
				k, ok := index(seg.subs[0])
				if !ok {
					return path.Empty(), false
				}
				p = p.AtListIndex(k)
			}
		}
		children = n.children
	}
	return p, true
}

// APIPath returns the server field path of the attribute path p, the reverse
// of AttributePath: element 0 of a block of at most one is the API object
// itself, list indexes stay indexes and map keys become keys
// (metadata[0].labels["a"] → metadata.labels[a]). Where p goes on beyond what
// the mapping knows (an attribute the API type does not have, the inside of
// an attribute that holds an object), it returns the path as far as it maps,
// and false.
func (m *Mapper) APIPath(p path.Path) (*field.Path, bool) {
	var out *field.Path
	children := m.root
	var n *node
	for _, step := range p.Steps() {
		switch st := step.(type) {
		case path.PathStepAttributeName:
			jsonName, child, ok := byAttribute(children, string(st))
			if !ok {
				return out, false
			}
			if out == nil {
				out = field.NewPath(jsonName)
			} else {
				out = out.Child(jsonName)
			}
			n, children = child, child.children
		case path.PathStepElementKeyInt:
			switch {
			case n == nil:
				return out, false
			case n.layout == block:
				// The API object is element 0 itself.
			case n.layout == list, n.layout == repeatBlock:
				out = out.Index(int(st))
			default:
				return out, false
			}
		case path.PathStepElementKeyString:
			if n == nil || n.layout != mapAttr {
				return out, false
			}
			out = out.Key(string(st))
		default:
			return out, false
		}
	}
	return out, out != nil
}

// byAttribute is the field of a level of the mapping that the attribute name
// names: its JSON name and node.
func byAttribute(fields map[string]*node, name string) (string, *node, bool) {
	for jsonName, n := range fields {
		if n.name == name {
			return jsonName, n, true
		}
	}
	return "", nil, false
}

// segment is one dot-separated part of a field path: a name and its
// bracketed subscripts.
type segment struct {
	name string
	subs []string
}

// parseFieldPath splits a field.Path string ("a.b[0].c[key]") into
// segments. Inside brackets any character but ']' is allowed, since map keys
// such as label keys contain '.' and '/'.
func parseFieldPath(s string) ([]segment, bool) {
	var segs []segment
	for s != "" {
		end := strings.IndexAny(s, ".[")
		if end < 0 {
			end = len(s)
		}
		seg := segment{name: s[:end]}
		if seg.name == "" {
			return nil, false
		}
		s = s[end:]
		for strings.HasPrefix(s, "[") {
			closing := strings.IndexByte(s, ']')
			if closing < 0 {
				return nil, false
			}
			seg.subs = append(seg.subs, s[1:closing])
			s = s[closing+1:]
		}
		segs = append(segs, seg)
		if s == "" {
			break
		}
		if s[0] != '.' || len(s) == 1 {
			return nil, false
		}
		s = s[1:]
	}
	return segs, len(segs) > 0
}

func index(s string) (int, bool) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	k, err := strconv.Atoi(s)
	return k, err == nil
}

// SingularBlocks are the API list fields whose blocks the schema names in
// the singular, as hashicorp/kubernetes does (`webhook { ... }` for
// webhooks, `rule { ... }` for rules): the renames of the webhook kinds'
// mapping, and what turns their resources' values back into API objects.
var SingularBlocks = map[string]string{"webhooks": "webhook", "rules": "rule"}
