package provider_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/provider"
)

// What kube-apiserver rejects fails the plan without a cluster, on the
// attribute to change, also where Terraform's own schema checks say nothing
// (a block the schema does not require). The provider is configured as a
// plan in CI is: an address nothing listens at, no dry run, and the
// server's version given.

// value builds a value of type typ from plain Go values: maps for objects
// and blocks (left-out attributes are null), slices for lists, strings,
// numbers and bools.
func value(t *testing.T, typ tftypes.Type, v any) tftypes.Value {
	t.Helper()
	if v == nil {
		return tftypes.NewValue(typ, nil)
	}
	switch typ := typ.(type) {
	case tftypes.Object:
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("want a map for %s, got %T", typ, v)
		}
		for k := range m {
			if _, ok := typ.AttributeTypes[k]; !ok {
				t.Fatalf("no attribute %q in %s", k, typ)
			}
		}
		vals := map[string]tftypes.Value{}
		for k, at := range typ.AttributeTypes {
			vals[k] = value(t, at, m[k])
		}
		return tftypes.NewValue(typ, vals)
	case tftypes.List:
		var elems []tftypes.Value
		switch l := v.(type) {
		case []any:
			for _, e := range l {
				elems = append(elems, value(t, typ.ElementType, e))
			}
		case []string:
			for _, e := range l {
				elems = append(elems, value(t, typ.ElementType, e))
			}
		default:
			t.Fatalf("want a slice for %s, got %T", typ, v)
		}
		return tftypes.NewValue(typ, elems)
	}
	return tftypes.NewValue(typ, v)
}

// offlineServer is the provider server configured for a plan without a
// cluster.
func offlineServer(t *testing.T) (tfprotov6.ProviderServer, *tfprotov6.GetProviderSchemaResponse) {
	t.Helper()
	ctx := context.Background()
	srv := provider.NewServer("test")()
	schemas, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	typ := schemas.Provider.ValueType()
	cfg, err := tfprotov6.NewDynamicValue(typ, value(t, typ, map[string]any{
		"host":               "https://127.0.0.1:1",
		"token":              "unused",
		"dry_run_on_plan":    false,
		"kubernetes_version": "1.37",
	}))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{TerraformVersion: "1.14.0", Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			t.Fatalf("configure: %s: %s", d.Summary, d.Detail)
		}
	}
	return srv, schemas
}

// planErrors validates the configuration of a resource and plans its
// creation, as `terraform plan` does, and returns the error diagnostics.
func planErrors(t *testing.T, srv tfprotov6.ProviderServer, schemas *tfprotov6.GetProviderSchemaResponse, typeName string, config map[string]any) []*tfprotov6.Diagnostic {
	t.Helper()
	var errs []*tfprotov6.Diagnostic
	for _, d := range planDiagnostics(t, srv, schemas, typeName, config) {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			errs = append(errs, d)
		}
	}
	return errs
}

// planDiagnostics is every diagnostic of the validation and, when it has no
// error, of the plan.
func planDiagnostics(t *testing.T, srv tfprotov6.ProviderServer, schemas *tfprotov6.GetProviderSchemaResponse, typeName string, config map[string]any) []*tfprotov6.Diagnostic {
	t.Helper()
	ctx := context.Background()
	typ := schemas.ResourceSchemas[typeName].ValueType()
	cfg, err := tfprotov6.NewDynamicValue(typ, value(t, typ, config))
	if err != nil {
		t.Fatal(err)
	}
	v, err := srv.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: typeName, Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	diags := v.Diagnostics
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			return diags // Terraform stops before the plan
		}
	}
	prior, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, nil))
	if err != nil {
		t.Fatal(err)
	}
	p, err := srv.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
		TypeName: typeName, PriorState: &prior, ProposedNewState: &cfg, Config: &cfg,
	})
	if err != nil {
		t.Fatal(err)
	}
	return append(diags, p.Diagnostics...)
}

func describeDiags(diags []*tfprotov6.Diagnostic) string {
	var b strings.Builder
	for _, d := range diags {
		fmt.Fprintf(&b, "\n  %s [%v]: %s", d.Summary, d.Attribute, d.Detail)
	}
	return b.String()
}

// attributePath is the path of a diagnostic as written in HCL, such as
// spec[0].match_constraints[0].resource_rules.
func attributePath(p *tftypes.AttributePath) string {
	if p == nil {
		return ""
	}
	var b strings.Builder
	for _, s := range p.Steps() {
		switch s := s.(type) {
		case tftypes.AttributeName:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(string(s))
		case tftypes.ElementKeyInt:
			fmt.Fprintf(&b, "[%d]", int64(s))
		case tftypes.ElementKeyString:
			fmt.Fprintf(&b, "[%q]", string(s))
		}
	}
	return b.String()
}

func TestPlanWithoutClusterFailsWhereTheServerRejects(t *testing.T) {
	srv, schemas := offlineServer(t)
	rule := map[string]any{
		"api_groups": []string{"apps"}, "api_versions": []string{"v1"},
		"operations": []string{"CREATE"}, "resources": []string{"deployments"},
	}
	meta := []any{map[string]any{"name": "offline.example.com"}}
	validation := []any{map[string]any{"expression": "object.spec.replicas <= 5"}}
	mutation := []any{map[string]any{
		"patch_type":          "ApplyConfiguration",
		"apply_configuration": []any{map[string]any{"expression": "Object{spec: Object.spec{replicas: 3}}"}},
	}}
	service := []any{map[string]any{"namespace": "default", "name": "hook"}}
	webhook := func(clientConfig map[string]any) map[string]any {
		return map[string]any{
			"metadata": meta,
			"webhook": []any{map[string]any{
				"name": "hook.example.com", "side_effects": "None", "admission_review_versions": []string{"v1"},
				"client_config": []any{clientConfig},
			}},
		}
	}
	cases := []struct {
		name, typeName string
		config         map[string]any
		path, detail   string
	}{
		{
			"a validating policy with neither validations nor audit annotations",
			"admission_validating_admission_policy",
			map[string]any{"metadata": meta, "spec": []any{map[string]any{
				"match_constraints": []any{map[string]any{"resource_rules": []any{rule}}},
			}}},
			"spec[0].validations", "set at least one validations or audit_annotations block",
		},
		{
			"a mutating policy with no mutations",
			"admission_mutating_admission_policy",
			map[string]any{"metadata": meta, "spec": []any{map[string]any{
				"reinvocation_policy": "Never",
				"match_constraints":   []any{map[string]any{"resource_rules": []any{rule}}},
			}}},
			"spec[0].mutations", "set at least one mutations block",
		},
		{
			"an empty match_constraints block of a validating policy",
			"admission_validating_admission_policy",
			map[string]any{"metadata": meta, "spec": []any{map[string]any{
				"match_constraints": []any{map[string]any{}},
				"validations":       validation,
			}}},
			"spec[0].match_constraints[0].resource_rules", "set at least one resource_rules block",
		},
		{
			"an empty match_constraints block of a mutating policy",
			"admission_mutating_admission_policy",
			map[string]any{"metadata": meta, "spec": []any{map[string]any{
				"reinvocation_policy": "Never",
				"match_constraints":   []any{map[string]any{}},
				"mutations":           mutation,
			}}},
			"spec[0].match_constraints[0].resource_rules", "set at least one resource_rules block",
		},
		{
			"a webhook with both url and service",
			"admission_validating_webhook_configuration",
			webhook(map[string]any{"url": "https://hook.example.com/validate", "service": service}),
			"webhook[0].client_config[0]", "set one of url or a service block, not both",
		},
		{
			"a webhook with neither url nor service",
			"admission_mutating_webhook_configuration",
			webhook(map[string]any{}),
			"webhook[0].client_config[0]", "set one of url or a service block",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			errs := planErrors(t, srv, schemas, c.typeName, c.config)
			if len(errs) != 1 {
				t.Fatalf("want one error, got %d:%s", len(errs), describeDiags(errs))
			}
			d := errs[0]
			if got := attributePath(d.Attribute); got != c.path {
				t.Errorf("error on %q, want %q:%s", got, c.path, describeDiags(errs))
			}
			if !strings.Contains(d.Detail, c.detail) {
				t.Errorf("error says %q, want it to say %q", d.Detail, c.detail)
			}
			if c.detail == "set one of url or a service block" && strings.Contains(d.Detail, "not both") {
				t.Errorf("neither url nor service is set, but the error says %q", d.Detail)
			}
		})
	}
	t.Run("the same policies, complete, plan", func(t *testing.T) {
		errs := planErrors(t, srv, schemas, "admission_validating_admission_policy", map[string]any{"metadata": meta, "spec": []any{map[string]any{
			"match_constraints": []any{map[string]any{"resource_rules": []any{rule}}},
			"validations":       validation,
		}}})
		errs = append(errs, planErrors(t, srv, schemas, "admission_mutating_admission_policy", map[string]any{"metadata": meta, "spec": []any{map[string]any{
			"reinvocation_policy": "Never",
			"match_constraints":   []any{map[string]any{"resource_rules": []any{rule}}},
			"mutations":           mutation,
		}}})...)
		errs = append(errs, planErrors(t, srv, schemas, "admission_validating_webhook_configuration",
			webhook(map[string]any{"service": service}))...)
		if len(errs) != 0 {
			t.Fatalf("want no error:%s", describeDiags(errs))
		}
	})
	t.Run("a block the schema requires is left to Terraform", func(t *testing.T) {
		// Terraform reports the missing spec block itself (min_items 1).
		errs := planErrors(t, srv, schemas, "admission_validating_admission_policy", map[string]any{"metadata": meta})
		for _, d := range errs {
			if strings.Contains(d.Detail, "API field spec.") {
				t.Errorf("an error of the server's checks under the missing spec block:%s", describeDiags(errs))
			}
		}
	})
}

// Mistakes whose words at the server do not say what to change, or that
// the server accepts: a hint at plan, on the expression.
func TestPlanWithoutClusterHints(t *testing.T) {
	srv, schemas := offlineServer(t)
	meta := []any{map[string]any{"name": "hints.example.com"}}
	rules := []any{map[string]any{"resource_rules": []any{map[string]any{
		"api_groups": []string{"apps"}, "api_versions": []string{"v1"},
		"operations": []string{"CREATE"}, "resources": []string{"deployments"},
	}}}}
	t.Run("params without param_kind", func(t *testing.T) {
		errs := planErrors(t, srv, schemas, "admission_validating_admission_policy", map[string]any{"metadata": meta, "spec": []any{map[string]any{
			"match_constraints": rules,
			"validations":       []any{map[string]any{"expression": "object.spec.replicas <= int(params.data.max)"}},
		}}})
		if len(errs) != 1 || attributePath(errs[0].Attribute) != "spec[0].validations[0].expression" ||
			!strings.Contains(errs[0].Detail, "undeclared reference to 'params'") || !strings.Contains(errs[0].Detail, "add a param_kind block") {
			t.Errorf("want one error on the expression that says to add param_kind:%s", describeDiags(errs))
		}
	})
	mutating := func(path string) map[string]any {
		return map[string]any{"metadata": meta, "spec": []any{map[string]any{
			"reinvocation_policy": "Never",
			"match_constraints":   rules,
			"mutations": []any{map[string]any{
				"patch_type": "JSONPatch",
				"json_patch": []any{map[string]any{"expression": fmt.Sprintf("[JSONPatch{op: \"replace\", path: %q, value: 3}]", path)}},
			}},
		}}}
	}
	t.Run("a JSON patch path that is not a JSON pointer", func(t *testing.T) {
		diags := planDiagnostics(t, srv, schemas, "admission_mutating_admission_policy", mutating("spec/replicas"))
		var found []*tfprotov6.Diagnostic
		for _, d := range diags {
			if d.Severity == tfprotov6.DiagnosticSeverityError {
				t.Errorf("the server accepts the policy, but:%s", describeDiags(diags))
			}
			if d.Summary == "JSON patch path is not a JSON pointer" {
				found = append(found, d)
			}
		}
		if len(found) != 1 || found[0].Severity != tfprotov6.DiagnosticSeverityWarning ||
			attributePath(found[0].Attribute) != "spec[0].mutations[0].json_patch[0].expression" ||
			!strings.Contains(found[0].Detail, `Write "/spec/replicas"`) {
			t.Errorf("want one warning on the expression:%s", describeDiags(diags))
		}
	})
	t.Run("a JSON pointer", func(t *testing.T) {
		if diags := planDiagnostics(t, srv, schemas, "admission_mutating_admission_policy", mutating("/spec/replicas")); len(diags) != 0 {
			t.Errorf("want no diagnostic:%s", describeDiags(diags))
		}
	})
}
