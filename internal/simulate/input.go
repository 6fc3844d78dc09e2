package simulate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
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

// DecodeAPIObject decodes an object in API form (yamldecode of a manifest: apiVersion, kind,
// metadata, spec as objects) into out, a pointer to one of the admissionregistration/v1
// types; kind is the API kind expected. Unknown values are dropped where they do not change
// what admission does (IgnorableUnknown); elsewhere it returns an *ErrUnknown.
func DecodeAPIObject(in any, kind string, out any) error {
	m, ok := in.(map[string]any)
	if !ok {
		return inputErr("", "want an object (a resource of this provider, or an API object such as yamldecode(file(\"x.yaml\"))), got %s", describe(in))
	}
	if k, ok := m["kind"].(string); ok && k != kind {
		return inputErr("kind", "want %s, got %s", kind, k)
	}
	if av, ok := m["apiVersion"].(string); ok && av != admissionregistrationv1.SchemeGroupVersion.String() {
		return inputErr("apiVersion", "want %s, got %s", admissionregistrationv1.SchemeGroupVersion.String(), av)
	}
	tree, err := dropUnknown(m, "")
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

// DecodeAPIWebhookConfiguration decodes a mutating or a validating webhook configuration in
// API form, as its kind says.
func DecodeAPIWebhookConfiguration(in any) (*admissionregistrationv1.MutatingWebhookConfiguration, *admissionregistrationv1.ValidatingWebhookConfiguration, error) {
	m, ok := in.(map[string]any)
	if !ok {
		return nil, nil, inputErr("", "want an object (a webhook configuration resource of this provider, or one in API form), got %s", describe(in))
	}
	switch k := str(m["kind"]); k {
	case "MutatingWebhookConfiguration":
		cfg := &admissionregistrationv1.MutatingWebhookConfiguration{}
		return cfg, nil, DecodeAPIObject(in, k, cfg)
	case "ValidatingWebhookConfiguration":
		cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{}
		return nil, cfg, DecodeAPIObject(in, k, cfg)
	default:
		return nil, nil, inputErr("kind", "want MutatingWebhookConfiguration or ValidatingWebhookConfiguration, got %q", k)
	}
}

// IgnorableUnknown reports whether an unknown value at path, an API path of
// the object ("metadata.uid", "webhooks[0].clientConfig.caBundle"), does not
// change what admission does.
func IgnorableUnknown(path string) bool {
	path = stripIndexes(path)
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
		if IgnorableUnknown(path) {
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
