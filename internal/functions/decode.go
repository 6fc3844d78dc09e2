package functions

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/core"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/simulate"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/webhook"
)

// An object argument comes in either of two forms: the API form (yamldecode of a manifest),
// which the simulator reads as the API's JSON (simulate.DecodeAPIObject), or the resource
// form (a resource of this provider, such as admission_validating_admission_policy.x, or an
// object in its shape), which the kind's own family reads, through its model and expansion
// (core.Description.ExpandValue): the one mapping between the schema's names and the API's.

// isAPIForm tells the two forms of an object apart by shape: the API form (yamldecode of a
// manifest) has apiVersion or kind, or metadata and spec as objects; the provider's resource
// form has its blocks as lists.
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

// decodeObject decodes the object argument v, whose tree is t, into out, an object of the API
// kind kind, whose resource form is form.
func decodeObject[T any](ctx context.Context, v types.Dynamic, t any, kind string, form core.FormReader[T], out *T) error {
	if m, ok := t.(map[string]any); !ok || isAPIForm(m) {
		return simulate.DecodeAPIObject(t, kind, out)
	}
	tv, err := v.UnderlyingValue().ToTerraformValue(ctx)
	if err != nil {
		return err
	}
	obj, err := expandForm(ctx, tv, form)
	if err != nil {
		return err
	}
	*out = *obj
	return nil
}

// expandForm is the API object of v, a value of the resource form form. A value not known yet
// where it changes what admission does is an *simulate.ErrUnknown.
func expandForm[T any](ctx context.Context, v tftypes.Value, form core.FormReader[T]) (*T, error) {
	exp, err := form.ExpandValue(ctx, v)
	var fe *core.FormError
	switch {
	case errors.As(err, &fe):
		where := ""
		if fe.Path != nil {
			where = fe.Path.String()
		}
		return nil, &simulate.InputError{Path: where, Err: fe.Err}
	case err != nil:
		return nil, err
	}
	for _, u := range exp.Unknown {
		if !simulate.IgnorableUnknown(u.String()) {
			return nil, &simulate.ErrUnknown{Path: u.String()}
		}
	}
	return exp.Object, nil
}

// decodeWebhookConfiguration decodes a mutating or a validating webhook configuration in
// either form: the API form says its kind; in the resource form, webhooks with a
// reinvocation_policy are mutating.
func decodeWebhookConfiguration(ctx context.Context, v types.Dynamic, t any) (*admissionregistrationv1.MutatingWebhookConfiguration,
	*admissionregistrationv1.ValidatingWebhookConfiguration, error) {
	m, ok := t.(map[string]any)
	if !ok || isAPIForm(m) {
		return simulate.DecodeAPIWebhookConfiguration(t)
	}
	mutating := false
	if hooks, ok := m["webhook"].([]any); ok {
		for _, h := range hooks {
			if hm, ok := h.(map[string]any); ok {
				if _, ok := hm["reinvocation_policy"]; ok {
					mutating = true
				}
			}
		}
	}
	kind := "ValidatingWebhookConfiguration"
	if mutating {
		kind = "MutatingWebhookConfiguration"
	}
	tv, err := v.UnderlyingValue().ToTerraformValue(ctx)
	if err != nil {
		return nil, nil, err
	}
	// The family holds both kinds as a MutatingWebhookConfiguration (internal/webhook).
	cfg, err := expandForm(ctx, tv, webhook.Form(kind))
	switch {
	case err != nil:
		return nil, nil, err
	case mutating:
		return cfg, nil, nil
	}
	validating, err := core.As[admissionregistrationv1.ValidatingWebhookConfiguration](cfg)
	return nil, validating, err
}
