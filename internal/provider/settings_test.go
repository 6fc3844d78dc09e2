package provider

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestKubernetesVersionSetting(t *testing.T) {
	cases := []struct {
		in              types.String
		want            string
		errors, warning bool
	}{
		{types.StringNull(), "", false, false},
		{types.StringUnknown(), "", false, false},
		{types.StringValue("1.33"), "1.33", false, false},
		{types.StringValue("v1.31.4"), "v1.31.4", false, false},
		{types.StringValue("1.29"), "1.29", false, true},
		{types.StringValue("1.45"), "1.45", false, true},
		{types.StringValue("133"), "", true, false},
		{types.StringValue("latest"), "", true, false},
	}
	for _, c := range cases {
		var diags diag.Diagnostics
		got := kubernetesVersion(c.in, &diags)
		if got != c.want || diags.HasError() != c.errors || (diags.WarningsCount() > 0) != c.warning {
			t.Errorf("%s: %q, %v", c.in, got, diags)
		}
	}
}

func TestImpactBoundsSettings(t *testing.T) {
	cases := []struct {
		max     types.Int64
		timeout types.String
		wantMax int
		wantDur time.Duration
		errors  bool
	}{
		{types.Int64Null(), types.StringNull(), 0, 0, false},
		{types.Int64Value(5000), types.StringValue("30s"), 5000, 30 * time.Second, false},
		{types.Int64Value(0), types.StringNull(), -1, 0, false}, // off
		{types.Int64Unknown(), types.StringUnknown(), 0, 0, false},
		{types.Int64Value(-1), types.StringNull(), 0, 0, true},
		{types.Int64Null(), types.StringValue("ten seconds"), 0, 0, true},
		{types.Int64Null(), types.StringValue("-5s"), 0, 0, true},
	}
	for _, c := range cases {
		var diags diag.Diagnostics
		n, d := impactBounds(c.max, c.timeout, &diags)
		if n != c.wantMax || d != c.wantDur || diags.HasError() != c.errors {
			t.Errorf("%s, %s: %d, %s, %v", c.max, c.timeout, n, d, diags)
		}
		for _, e := range diags.Errors() {
			if p, ok := e.(diag.DiagnosticWithPath); !ok || (p.Path().String() != "impact_max_objects" && p.Path().String() != "impact_timeout") {
				t.Errorf("the error is not on the attribute: %v", e)
			}
		}
	}
}

func TestCABundleExpiryWarningSetting(t *testing.T) {
	cases := []struct {
		in     types.String
		want   time.Duration
		errors bool
	}{
		{types.StringNull(), 0, false},
		{types.StringUnknown(), 0, false},
		{types.StringValue("720h"), 720 * time.Hour, false},
		{types.StringValue("168h30m"), 168*time.Hour + 30*time.Minute, false},
		{types.StringValue("30d"), 0, true}, // Go durations have no days
		{types.StringValue("0s"), 0, true},
		{types.StringValue("-1h"), 0, true},
	}
	for _, c := range cases {
		var diags diag.Diagnostics
		got := caBundleExpiryWarning(c.in, &diags)
		if got != c.want || diags.HasError() != c.errors {
			t.Errorf("%s: %s, %v", c.in, got, diags)
		}
		for _, e := range diags.Errors() {
			if p, ok := e.(diag.DiagnosticWithPath); !ok || p.Path().String() != "ca_bundle_expiry_warning" || !strings.Contains(e.Detail(), `"720h"`) {
				t.Errorf("the error is not on the attribute or does not say what is expected: %v", e)
			}
		}
	}
}

// prove_webhooks: the configuration wins over the environment, which wins over the default
// (on); a value of the environment that is not a boolean is an error on the attribute.
func TestProveWebhooks(t *testing.T) {
	cases := []struct {
		setting types.Bool
		env     string
		want    bool
		errors  bool
	}{
		{types.BoolNull(), "", true, false},
		{types.BoolValue(false), "", false, false},
		{types.BoolNull(), "false", false, false},
		{types.BoolValue(true), "false", true, false},
		{types.BoolUnknown(), "0", false, false},
		{types.BoolNull(), "maybe", true, true},
	}
	for _, c := range cases {
		t.Setenv(proveWebhooksEnv, c.env)
		var diags diag.Diagnostics
		got := proveWebhooks(c.setting, &diags)
		if got != c.want || diags.HasError() != c.errors {
			t.Errorf("%s, %q: %v, %v", c.setting, c.env, got, diags)
		}
		for _, e := range diags.Errors() {
			if p, ok := e.(diag.DiagnosticWithPath); !ok || p.Path().String() != "prove_webhooks" {
				t.Errorf("the error is not on the attribute: %v", e)
			}
		}
	}
}
