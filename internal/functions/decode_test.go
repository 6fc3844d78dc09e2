package functions

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	policyfamily "github.com/seed-a73d233f/terraform-provider-admission/internal/policy"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/simulate"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/webhook"
)

// terraformValue is a tree (as tree makes them) as Terraform passes it in a dynamic argument:
// objects as objects, lists as tuples, simulate.Unknown as an unknown value.
func terraformValue(t *testing.T, v any) tftypes.Value {
	t.Helper()
	switch x := v.(type) {
	case nil:
		return tftypes.NewValue(tftypes.DynamicPseudoType, nil)
	case simulate.Unknown:
		return tftypes.NewValue(tftypes.DynamicPseudoType, tftypes.UnknownValue)
	case string:
		return tftypes.NewValue(tftypes.String, x)
	case bool:
		return tftypes.NewValue(tftypes.Bool, x)
	case float64:
		return tftypes.NewValue(tftypes.Number, big.NewFloat(x))
	case json.Number:
		f, _, err := big.ParseFloat(string(x), 10, 512, big.ToNearestEven)
		if err != nil {
			t.Fatal(err)
		}
		return tftypes.NewValue(tftypes.Number, f)
	case map[string]any:
		types, values := map[string]tftypes.Type{}, map[string]tftypes.Value{}
		for k, e := range x {
			values[k] = terraformValue(t, e)
			types[k] = values[k].Type()
		}
		return tftypes.NewValue(tftypes.Object{AttributeTypes: types}, values)
	case []any:
		var types []tftypes.Type
		var values []tftypes.Value
		for _, e := range x {
			ev := terraformValue(t, e)
			types, values = append(types, ev.Type()), append(values, ev)
		}
		return tftypes.NewValue(tftypes.Tuple{ElementTypes: types}, values)
	}
	t.Fatalf("no Terraform value for %T", v)
	return tftypes.Value{}
}

// Bad values of the resource form are errors that name the API field, never panics; a value
// not known yet where it decides the answer makes the answer unknown.
func TestResourceFormErrors(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name string
		in   map[string]any
		want string
	}{
		{"wrong type", map[string]any{"metadata": []any{}, "spec": []any{map[string]any{"validations": "x"}}}, "spec.validations: want a list"},
		{"block of strings", map[string]any{"metadata": []any{"x"}}, "metadata: want an object"},
		{"number for a string", map[string]any{"spec": []any{map[string]any{"failure_policy": json.Number("1")}}}, "spec.failurePolicy: want a string, got a number"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := expandForm(ctx, terraformValue(t, c.in), policyfamily.ValidatingPolicyForm())
			var ie *simulate.InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an input error saying %q", err, c.want)
			}
		})
	}
	for in, want := range map[string]string{
		`{"metadata": [{"labels": {"a": "?"}}]}`: "metadata.labels[a]",
		`{"metadata": [{"name": "?"}]}`:          "metadata.name",
		`{"metadata": "?"}`:                      "metadata",
		`{"spec": [{"validations": "?"}]}`:       "spec.validations",
		`{"spec": [{"validations": ["?"]}]}`:     "spec.validations[0]",
		`{"spec": [{"match_constraints": [{"resource_rules": [{"resources": ["pods", "?"]}]}]}]}`: "spec.matchConstraints.resourceRules[0].resources[1]",
	} {
		_, err := expandForm(ctx, terraformValue(t, unknownAt(t, in)), policyfamily.ValidatingPolicyForm())
		var u *simulate.ErrUnknown
		if !errors.As(err, &u) || u.Path != want {
			t.Errorf("%s: got %v, want the answer unknown for %s", in, err, want)
		}
	}
}

// unknownAt is the JSON doc as a tree, with simulate.Unknown where it has "?".
func unknownAt(t *testing.T, doc string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatal(err)
	}
	var mark func(any) any
	mark = func(v any) any {
		switch x := v.(type) {
		case string:
			if x == "?" {
				return simulate.Unknown{}
			}
		case map[string]any:
			for k, e := range x {
				x[k] = mark(e)
			}
		case []any:
			for i, e := range x {
				x[i] = mark(e)
			}
		}
		return v
	}
	return mark(v)
}

// A policy in the shape of its resource, as a reference to one gives it at plan: what is
// computed is not known yet and changes nothing of admission.
func TestResourceFormPolicy(t *testing.T) {
	ctx := context.Background()
	spec := map[string]any{
		"failure_policy": "Ignore",
		"param_kind":     []any{},
		"match_constraints": []any{map[string]any{
			"match_policy":       "Equivalent",
			"namespace_selector": []any{},
			"resource_rules": []any{map[string]any{"api_groups": []any{"apps"}, "api_versions": []any{"v1"}, "operations": []any{"CREATE"},
				"resources": []any{"deployments"}, "scope": "*", "resource_names": nil}},
		}},
		"validations": []any{map[string]any{"expression": "true", "message": nil, "message_expression": nil, "reason": nil}},
	}
	model := map[string]any{
		"id":       simulate.Unknown{},
		"status":   simulate.Unknown{},
		"timeouts": nil,
		"metadata": []any{map[string]any{"name": "p", "labels": nil, "uid": simulate.Unknown{}}},
		"spec":     []any{spec},
	}
	p, err := expandForm(ctx, terraformValue(t, model), policyfamily.ValidatingPolicyForm())
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "p" || *p.Spec.FailurePolicy != "Ignore" || p.Spec.MatchConstraints.ResourceRules[0].Resources[0] != "deployments" || p.Spec.Validations[0].Expression != "true" {
		t.Fatalf("%+v", p)
	}
	spec["validations"] = []any{map[string]any{"expression": simulate.Unknown{}}}
	_, err = expandForm(ctx, terraformValue(t, model), policyfamily.ValidatingPolicyForm())
	var u *simulate.ErrUnknown
	if !errors.As(err, &u) || u.Path != "spec.validations[0].expression" {
		t.Fatalf("unknown expression: %v", err)
	}
	// A binding whose policy name is not known yet binds the policy it is given.
	b, err := expandForm(ctx, terraformValue(t, unknownAt(t, `{"metadata": [{"name": "b"}], "spec": [{"policy_name": "?", "validation_actions": ["Deny"]}]}`)),
		policyfamily.ValidatingBindingForm())
	if err != nil || b.Name != "b" || b.Spec.PolicyName != "" || len(b.Spec.ValidationActions) != 1 {
		t.Fatalf("binding: %+v, %v", b, err)
	}
}

// A webhook configuration in the shape of its resource, with the schema's names where they are
// not the API's (webhook, rule, client_config), a block written as its object, and a ca_bundle
// as PEM text, which the API has as bytes.
func TestResourceFormWebhooks(t *testing.T) {
	ctx := context.Background()
	cfg, err := expandForm(ctx, terraformValue(t, unknownAt(t, `{
  "metadata": [{"name": "pods"}],
  "webhook": [{
    "name": "pods.example.com", "side_effects": "None", "admission_review_versions": ["v1"], "timeout_seconds": "?",
    "client_config": {"url": "https://example.com", "ca_bundle": "-----BEGIN CERTIFICATE-----\n"},
    "rule": [{"api_groups": [""], "api_versions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}],
    "namespace_selector": [{"match_expressions": [{"key": "team", "operator": "In", "values": ["a"]}]}],
    "object_selector": [],
    "reinvocation_policy": "IfNeeded"
  }]}`)), webhook.Form("MutatingWebhookConfiguration"))
	if err != nil {
		t.Fatal(err)
	}
	h := cfg.Webhooks[0]
	if cfg.Name != "pods" || h.Name != "pods.example.com" || *h.ClientConfig.URL != "https://example.com" || string(h.ClientConfig.CABundle) != "-----BEGIN CERTIFICATE-----\n" ||
		h.Rules[0].Resources[0] != "pods" || h.NamespaceSelector.MatchExpressions[0].Values[0] != "a" || h.ObjectSelector != nil ||
		h.TimeoutSeconds != nil || string(*h.ReinvocationPolicy) != "IfNeeded" {
		t.Fatalf("%+v", cfg)
	}
}

// FuzzResourceForm: no value makes reading the resource form panic; what goes wrong is an input
// error or an unknown answer.
func FuzzResourceForm(f *testing.F) {
	f.Add(`{"metadata":[{"name":"p"}],"spec":[{"match_constraints":[{"resource_rules":[{"api_groups":["*"],"api_versions":["*"],"operations":["*"],"resources":["*"]}]}],"validations":[{"expression":"false"}]}]}`)
	f.Add(`{"metadata":[{"name":"p","labels":{"a":1}}],"spec":{"variables":[{"name":"?"}],"param_kind":[[]]}}`)
	f.Add(`{"webhook":[{"rule":{"scope":true},"client_config":[{"service":[{"port":"x"}]}]}],"metadata":[null]}`)
	f.Fuzz(func(t *testing.T, doc string) {
		var probe any
		if json.Unmarshal([]byte(doc), &probe) != nil {
			return
		}
		in := terraformValue(t, unknownAt(t, doc))
		check := func(err error) {
			var ie *simulate.InputError
			var ue *simulate.ErrUnknown
			if err != nil && !errors.As(err, &ie) && !errors.As(err, &ue) {
				t.Fatalf("neither an input error nor unknown: %v", err)
			}
		}
		_, err := expandForm(context.Background(), in, policyfamily.ValidatingPolicyForm())
		check(err)
		_, err = expandForm(context.Background(), in, policyfamily.MutatingPolicyForm())
		check(err)
		_, err = expandForm(context.Background(), in, policyfamily.ValidatingBindingForm())
		check(err)
		_, err = expandForm(context.Background(), in, webhook.Form("MutatingWebhookConfiguration"))
		check(err)
	})
}
