package simulate

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/apipath"
)

// Unknown stands for a value that is not known yet (a computed attribute
// during plan). Inputs hold it where Terraform passes an unknown value.
type Unknown struct{}

// ErrUnknown is returned when an input holds an unknown value where its
// value decides the answer; the caller answers "unknown" then.
type ErrUnknown struct{ Path string }

func (e *ErrUnknown) Error() string { return e.Path + " is not known yet" }

// InputError is an error in an input, at the path of the field in that input
// ("spec.validations[0].expression", "spec[0].validations[0]").
type InputError struct {
	Path string
	Err  error
}

func (e *InputError) Error() string {
	if e.Path == "" {
		return e.Err.Error()
	}
	return e.Path + ": " + e.Err.Error()
}

func inputErr(path string, format string, args ...any) error {
	return &InputError{Path: path, Err: fmt.Errorf(format, args...)}
}

// The kinds the functions take, decoded from either form.
type (
	ValidatingPolicy  = admissionregistrationv1.ValidatingAdmissionPolicy
	ValidatingBinding = admissionregistrationv1.ValidatingAdmissionPolicyBinding
	ValidationAction  = admissionregistrationv1.ValidationAction
	MutatingPolicy    = admissionregistrationv1.MutatingAdmissionPolicy
	MutatingBinding   = admissionregistrationv1.MutatingAdmissionPolicyBinding
)

// isAPIForm tells the two forms of an object apart by shape: the API form
// (yamldecode of a manifest) has apiVersion or kind, or metadata and spec as
// objects; the provider's resource form has its blocks as lists.
func isAPIForm(v map[string]any) bool {
	if _, ok := v["apiVersion"]; ok {
		return true
	}
	if _, ok := v["kind"]; ok {
		return true
	}
	for _, k := range []string{"metadata", "spec", "webhooks"} {
		if _, ok := v[k].(map[string]any); ok {
			return true
		}
		if _, ok := v[k].([]any); ok && k == "webhooks" {
			return true
		}
	}
	return false
}

// Decode turns an input in either form into the API object out (a pointer
// to one of the admissionregistration/v1 types); kind is the API kind
// expected. Unknown values are dropped where they do not change what
// admission does (computed metadata, status, a binding's policy name, a
// webhook's ca_bundle); elsewhere Decode returns an *ErrUnknown.
func Decode(in any, kind string, out any) error {
	m, ok := in.(map[string]any)
	if !ok {
		return inputErr("", "want an object (a resource of this provider, or an API object such as yamldecode(file(\"x.yaml\"))), got %s", describe(in))
	}
	var tree any
	var err error
	if isAPIForm(m) {
		if k, ok := m["kind"].(string); ok && k != kind {
			return inputErr("kind", "want %s, got %s", kind, k)
		}
		if av, ok := m["apiVersion"].(string); ok && av != admissionregistrationv1.SchemeGroupVersion.String() {
			return inputErr("apiVersion", "want %s, got %s", admissionregistrationv1.SchemeGroupVersion.String(), av)
		}
		tree, err = dropUnknown(m, "")
	} else {
		tree, err = fromModel(m, reflect.TypeOf(out).Elem(), "")
	}
	if err != nil {
		return err
	}
	data, err := json.Marshal(tree)
	if err != nil {
		return inputErr("", "%v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		return inputErr("", "%s", strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

// ignorableUnknown reports whether an unknown value at path (API path of
// the object) does not change what admission does.
func ignorableUnknown(path string) bool {
	switch {
	case path == "id", path == "status", strings.HasPrefix(path, "status."), path == "spec.policyName":
		return true
	case strings.HasPrefix(path, "metadata.") && path != "metadata.name" && !strings.HasPrefix(path, "metadata.labels"):
		return true
	case strings.HasSuffix(path, "clientConfig.caBundle"), strings.HasSuffix(path, "timeoutSeconds"):
		return true
	}
	return false
}

// dropUnknown is an API-form value without its ignorable unknowns.
func dropUnknown(v any, path string) (any, error) {
	switch t := v.(type) {
	case Unknown:
		if ignorableUnknown(stripIndexes(path)) {
			return nil, nil
		}
		return nil, &ErrUnknown{Path: path}
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			c, err := dropUnknown(e, join(path, k))
			if err != nil {
				return nil, err
			}
			if c != nil {
				out[k] = c
			}
		}
		return out, nil
	case []any:
		out := make([]any, 0, len(t))
		for i, e := range t {
			c, err := dropUnknown(e, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		}
		return out, nil
	}
	return v, nil
}

// stripIndexes is path without list indexes: "webhooks[1].name" → "webhooks.name".
func stripIndexes(path string) string {
	var b strings.Builder
	skip := false
	for _, r := range path {
		switch {
		case r == '[':
			skip = true
		case r == ']':
			skip = false
		case !skip:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// modelAliases are the attribute names of the provider's schema that are not
// the snake_case of the API field (apipath.SingularBlocks), by attribute name.
var modelAliases = func() map[string]string {
	out := map[string]string{}
	for field, block := range apipath.SingularBlocks {
		out[block] = field
	}
	return out
}()

// fromModel turns a value of the provider's resource form into the API
// form (a JSON tree) of type t, driven by t's JSON field names: an
// attribute is the snake_case of its field, a block with at most one
// element is the field's object. Attributes the API type does not have (id,
// status, timeouts) are left out. path is the API path, for errors.
func fromModel(v any, t reflect.Type, path string) (any, error) {
	if _, ok := v.(Unknown); ok {
		if ignorableUnknown(stripIndexes(path)) {
			return nil, nil
		}
		return nil, &ErrUnknown{Path: path}
	}
	if v == nil {
		return nil, nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == timeType {
		return v, nil
	}
	switch t.Kind() {
	case reflect.Struct:
		if l, ok := v.([]any); ok {
			// A block: a list of at most one object.
			if len(l) == 0 {
				return nil, nil
			}
			v = l[0]
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, inputErr(path, "want an object, got %s", describe(v))
		}
		fields := jsonFields(t)
		out := map[string]any{}
		for _, k := range sortedKeys(m) {
			name := k
			if a, ok := modelAliases[k]; ok {
				name = a
			}
			f, ok := fields[name]
			if !ok {
				continue
			}
			c, err := fromModel(m[k], f.typ, join(path, f.json))
			if err != nil {
				return nil, err
			}
			if c != nil {
				out[f.json] = c
			}
		}
		return out, nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			// ca_bundle: PEM text in the resource, base64 in the API.
			s, ok := v.(string)
			if !ok {
				return nil, inputErr(path, "want a string, got %s", describe(v))
			}
			return base64.StdEncoding.EncodeToString([]byte(s)), nil
		}
		l, ok := v.([]any)
		if !ok {
			return nil, inputErr(path, "want a list, got %s", describe(v))
		}
		out := make([]any, 0, len(l))
		for i, e := range l {
			c, err := fromModel(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		}
		return out, nil
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, inputErr(path, "want a map, got %s", describe(v))
		}
		out := map[string]any{}
		for k, e := range m {
			if _, ok := e.(Unknown); ok {
				return nil, &ErrUnknown{Path: join(path, k)}
			}
			if e != nil {
				out[k] = e
			}
		}
		return out, nil
	}
	return v, nil
}

var timeType = reflect.TypeFor[metav1.Time]()

type jsonField struct {
	json string
	typ  reflect.Type
}

// jsonFields maps the snake_case of each JSON field name of t (with its
// inline structs) to the field.
func jsonFields(t reflect.Type) map[string]jsonField {
	out := map[string]jsonField{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if name == "" && f.Anonymous {
			for k, v := range jsonFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			continue
		}
		out[apipath.SnakeCase(name)] = jsonField{json: name, typ: f.Type}
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return "a string"
	case bool:
		return "a bool"
	case json.Number, float64, int, int64:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}
