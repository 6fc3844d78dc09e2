package acctest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	"sigs.k8s.io/yaml"
)

// ResourceHCL writes one admission object of a public project's YAML (or JSON) as the
// resource block a user writes for it: resource type "admission_<kind in snake case>", label
// label, each API field in snake case, objects and lists of objects as blocks (webhooks as
// webhook blocks, a webhook's rules as rule blocks), labels, annotations and match_labels as
// maps, every value a literal (a binding's policy_name is the policy's name, as
// `terraform query -generate-config-out` writes it). Status, and metadata the server sets,
// are left out.
func ResourceHCL(label string, doc []byte) (typ, name, hcl string, err error) {
	js, err := yaml.YAMLToJSON(doc)
	if err != nil {
		return "", "", "", err
	}
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil {
		return "", "", "", err
	}
	kind, _ := obj["kind"].(string)
	if kind == "" {
		return "", "", "", fmt.Errorf("no kind")
	}
	typ = "admission_" + snake(kind)
	meta, _ := obj["metadata"].(map[string]any)
	name, _ = meta["name"].(string)
	kept := map[string]any{}
	for _, k := range []string{"name", "labels", "annotations"} {
		if v, ok := meta[k]; ok {
			kept[k] = v
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "resource %q %q {\n", typ, label)
	block(&b, 1, "metadata", kept)
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		switch k {
		case "apiVersion", "kind", "metadata", "status":
			continue
		}
		field(&b, 1, k, obj[k])
	}
	b.WriteString("}\n")
	return typ, name, b.String(), nil
}

// renamed are the API fields whose blocks the schema names in the singular.
var renamed = map[string]string{"webhooks": "webhook", "rules": "rule"}

// stringMaps are the API fields that are maps of strings, attributes in the schema.
var stringMaps = map[string]bool{"labels": true, "annotations": true, "matchLabels": true}

func field(b *strings.Builder, depth int, key string, v any) {
	name := snake(key)
	if r, ok := renamed[key]; ok {
		name = r
	}
	indent := strings.Repeat("  ", depth)
	switch v := v.(type) {
	case nil:
	case map[string]any:
		if stringMaps[key] {
			fmt.Fprintf(b, "%s%s = {", indent, name)
			for i, k := range slices.Sorted(maps.Keys(v)) {
				if i > 0 {
					b.WriteString(",")
				}
				fmt.Fprintf(b, " %s = %s", quote(k), literal(v[k]))
			}
			b.WriteString(" }\n")
			return
		}
		block(b, depth, name, v)
	case []any:
		if len(v) > 0 {
			if _, ok := v[0].(map[string]any); ok {
				for _, e := range v {
					if m, ok := e.(map[string]any); ok {
						block(b, depth, name, m)
					}
				}
				return
			}
		}
		var items []string
		for _, e := range v {
			items = append(items, literal(e))
		}
		fmt.Fprintf(b, "%s%s = [%s]\n", indent, name, strings.Join(items, ", "))
	default:
		fmt.Fprintf(b, "%s%s = %s\n", indent, name, literal(v))
	}
}

func block(b *strings.Builder, depth int, name string, m map[string]any) {
	indent := strings.Repeat("  ", depth)
	fmt.Fprintf(b, "%s%s {\n", indent, name)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		field(b, depth+1, k, m[k])
	}
	fmt.Fprintf(b, "%s}\n", indent)
}

// literal is a scalar in HCL: a string quoted, with template sequences escaped.
func literal(v any) string {
	switch v := v.(type) {
	case string:
		return quote(v)
	case json.Number:
		return v.String()
	case bool:
		return fmt.Sprint(v)
	}
	return quote(fmt.Sprint(v))
}

func quote(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	q := strings.TrimSuffix(buf.String(), "\n")
	return strings.NewReplacer("${", "$${", "%{", "%%{").Replace(q)
}

// snake is an API name in snake case: "matchConstraints" is "match_constraints",
// "ValidatingAdmissionPolicy" "validating_admission_policy".
func snake(s string) string {
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
