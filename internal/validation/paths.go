package validation

import (
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// kind is how an API field is laid out in the Terraform schema.
type kind int

const (
	scalar      kind = iota // an attribute holding one value
	list                    // a list attribute of scalars: [k] is a list index
	mapAttr                 // a map attribute: [key] is a map key
	block                   // a block of at most one: the API object is element 0 of a list
	repeatBlock             // a repeated block: [k] is a list index, then the block's fields
)

// node describes one API field: its attribute name in our schema, how it is laid out, and, for
// blocks, its fields by API name.
type node struct {
	name     string
	kind     kind
	children map[string]*node
}

func leaf(name string, k kind) *node { return &node{name: name, kind: k} }

func blockOf(name string, k kind, children map[string]*node) *node {
	return &node{name: name, kind: k, children: children}
}

// selectorNode is a label selector block (namespaceSelector, objectSelector).
func selectorNode(name string) *node {
	return blockOf(name, block, map[string]*node{
		"matchLabels": leaf("match_labels", mapAttr),
		"matchExpressions": blockOf("match_expressions", repeatBlock, map[string]*node{
			"key":      leaf("key", scalar),
			"operator": leaf("operator", scalar),
			"values":   leaf("values", list),
		}),
	})
}

// schemaRoot is the resource schema as the API's field paths see it: block layout and names as in
// hashicorp/kubernetes' kubernetes_mutating_webhook_configuration_v1.
var schemaRoot = map[string]*node{
	"metadata": blockOf("metadata", block, map[string]*node{
		"name":              leaf("name", scalar),
		"generateName":      leaf("generate_name", scalar),
		"namespace":         leaf("namespace", scalar),
		"labels":            leaf("labels", mapAttr),
		"annotations":       leaf("annotations", mapAttr),
		"finalizers":        leaf("finalizers", list),
		"resourceVersion":   leaf("resource_version", scalar),
		"uid":               leaf("uid", scalar),
		"generation":        leaf("generation", scalar),
		"creationTimestamp": leaf("creation_timestamp", scalar),
		"ownerReferences": blockOf("owner_references", repeatBlock, map[string]*node{
			"apiVersion":         leaf("api_version", scalar),
			"kind":               leaf("kind", scalar),
			"name":               leaf("name", scalar),
			"uid":                leaf("uid", scalar),
			"controller":         leaf("controller", scalar),
			"blockOwnerDeletion": leaf("block_owner_deletion", scalar),
		}),
	}),
	"webhooks": blockOf("webhook", repeatBlock, map[string]*node{
		"name": leaf("name", scalar),
		"clientConfig": blockOf("client_config", block, map[string]*node{
			"url":      leaf("url", scalar),
			"caBundle": leaf("ca_bundle", scalar),
			"service": blockOf("service", block, map[string]*node{
				"namespace": leaf("namespace", scalar),
				"name":      leaf("name", scalar),
				"path":      leaf("path", scalar),
				"port":      leaf("port", scalar),
			}),
		}),
		"rules": blockOf("rule", repeatBlock, map[string]*node{
			"operations":  leaf("operations", list),
			"apiGroups":   leaf("api_groups", list),
			"apiVersions": leaf("api_versions", list),
			"resources":   leaf("resources", list),
			"scope":       leaf("scope", scalar),
		}),
		"failurePolicy":           leaf("failure_policy", scalar),
		"matchPolicy":             leaf("match_policy", scalar),
		"namespaceSelector":       selectorNode("namespace_selector"),
		"objectSelector":          selectorNode("object_selector"),
		"sideEffects":             leaf("side_effects", scalar),
		"timeoutSeconds":          leaf("timeout_seconds", scalar),
		"admissionReviewVersions": leaf("admission_review_versions", list),
		"reinvocationPolicy":      leaf("reinvocation_policy", scalar),
		"matchConditions": blockOf("match_conditions", repeatBlock, map[string]*node{
			"name":       leaf("name", scalar),
			"expression": leaf("expression", scalar),
		}),
	}),
}

// AttributePath returns the Terraform attribute path for a server field path such as
// "webhooks[0].rules[1].resources[2]" (→ webhook[0].rule[1].resources[2]) or "metadata.name"
// (→ metadata[0].name). Blocks of at most one get element 0; list indexes become AtListIndex and
// map keys ("metadata.labels[foo]") AtMapKey. It returns false for a path it cannot parse or that
// names no attribute of our schema, so that the caller can fall back to a resource-level
// diagnostic.
func AttributePath(apiPath string) (path.Path, bool) {
	segs, ok := parseFieldPath(apiPath)
	if !ok {
		return path.Empty(), false
	}
	var p path.Path
	children := schemaRoot
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
		switch n.kind {
		case scalar:
			if len(seg.subs) > 0 || !last {
				return path.Empty(), false
			}
		case list, mapAttr:
			if len(seg.subs) > 1 || !last {
				return path.Empty(), false
			}
			if len(seg.subs) == 1 {
				if n.kind == mapAttr {
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

// segment is one dot-separated part of a field path: a name and its bracketed subscripts.
type segment struct {
	name string
	subs []string
}

// parseFieldPath splits a field.Path string ("a.b[0].c[key]") into segments. Inside brackets any
// character but ']' is allowed, since map keys such as label keys contain '.' and '/'.
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

// Message gives a plain message for users: the error without its path, as the server puts it in
// a status cause (for example `Unsupported value: "Always": supported values: "Fail", "Ignore"`).
func Message(e *field.Error) string {
	if e == nil {
		return ""
	}
	return e.ErrorBody()
}
