package kubernetesstandin

import (
	"strings"
	"testing"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/jsontest"
)

// TestCompareValues checks that the comparison used on the state reports
// what it should, against the fixture itself.
func TestCompareValues(t *testing.T) {
	fresh := func() map[string]any { return loadFixtureState(t, "state.json")[0].Instances[0].Attributes }
	want := fresh()

	if diffs := compareValues("", fresh(), want, true); len(diffs) != 0 {
		t.Errorf("fixture against itself: %v", diffs)
	}

	webhook := func(m map[string]any, i int) map[string]any { return jsontest.Object(t, m, "webhook", i) }
	clientConfig := func(m map[string]any, i int) map[string]any {
		return jsontest.Object(t, m, "webhook", i, "client_config", 0)
	}
	metadata := func(m map[string]any) map[string]any { return jsontest.Object(t, m, "metadata", 0) }

	for _, tc := range []struct {
		name   string
		change func(map[string]any)
		values bool
		report string // empty: no difference
	}{
		{"missing key", func(m map[string]any) { delete(clientConfig(m, 1), "url") }, false, "webhook.1.client_config.0.url: missing"},
		{"extra key", func(m map[string]any) { webhook(m, 0)["reinvocation"] = "x" }, false, "webhook.0.reinvocation: not in the fixture"},
		{"null for empty string", func(m map[string]any) { metadata(m)["generate_name"] = nil }, false, "metadata.0.generate_name: null"},
		{"null for empty block", func(m map[string]any) { webhook(m, 1)["object_selector"] = nil }, false, "webhook.1.object_selector: null"},
		{"string for number", func(m map[string]any) { metadata(m)["generation"] = "1" }, false, "metadata.0.generation: string"},
		{"one block more", func(m map[string]any) {
			cc := clientConfig(m, 1)
			cc["service"] = append(jsontest.List(t, cc, "service"), map[string]any{})
		}, false, "webhook.1.client_config.0.service: 1 elements"},
		{"other value", func(m map[string]any) { webhook(m, 0)["failure_policy"] = "Fail" }, true, "webhook.0.failure_policy:"},
		{"other value, shape only", func(m map[string]any) { webhook(m, 0)["failure_policy"] = "Fail" }, false, ""},
		{"value chosen by the server", func(m map[string]any) { metadata(m)["uid"] = "other" }, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := fresh()
			tc.change(got)
			diffs := compareValues("", got, want, tc.values)
			switch {
			case tc.report == "" && len(diffs) != 0:
				t.Errorf("unexpected differences: %v", diffs)
			case tc.report != "" && (len(diffs) != 1 || !strings.HasPrefix(diffs[0], tc.report)):
				t.Errorf("differences %q, want one starting with %q", diffs, tc.report)
			}
		})
	}
}
