package provider_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// A webhook's service whose name (or namespace) is known only at apply, as when it comes from
// the Service's own resource, is no error at plan: the server reports an empty name at
// service.namespace, so that a known namespace beside an unknown name is not judged either.
func TestPlanWithoutClusterUnknownServiceName(t *testing.T) {
	srv, schemas := offlineServer(t)
	for _, service := range []map[string]any{
		{"namespace": "webhooks", "name": tftypes.UnknownValue},
		{"namespace": tftypes.UnknownValue, "name": "hooks"},
	} {
		diags := planDiagnostics(t, srv, schemas, "admission_validating_webhook_configuration", map[string]any{
			"metadata": []any{map[string]any{"name": "unknown-service.example.com"}},
			"webhook": []any{map[string]any{
				"name": "a.example.com", "admission_review_versions": []string{"v1"}, "side_effects": "None", "failure_policy": "Fail",
				"client_config": []any{map[string]any{"service": []any{service}}},
			}},
		})
		if len(diags) != 0 {
			t.Errorf("service %v: want no diagnostic:%s", service, describeDiags(diags))
		}
	}
	// Both known and one empty is the server's error, at the field it names.
	errs := planErrors(t, srv, schemas, "admission_validating_webhook_configuration", map[string]any{
		"metadata": []any{map[string]any{"name": "unknown-service.example.com"}},
		"webhook": []any{map[string]any{
			"name": "a.example.com", "admission_review_versions": []string{"v1"}, "side_effects": "None", "failure_policy": "Fail",
			"client_config": []any{map[string]any{"service": []any{map[string]any{"namespace": "webhooks", "name": ""}}}},
		}},
	})
	if len(errs) != 1 || attributePath(errs[0].Attribute) != "webhook[0].client_config[0].service[0].namespace" {
		t.Errorf("an empty name: want the server's error at namespace:%s", describeDiags(errs))
	}
}
