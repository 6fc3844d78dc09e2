package provider

import (
	"testing"

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
