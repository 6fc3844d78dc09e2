package webhook

import (
	"encoding/json"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/advice"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// TestAttributePath checks the mapping derived from the mutating kind's
// schema and API type (internal/apipath) on every field.
func TestAttributePath(t *testing.T) {
	webhook := func(i int) path.Path { return path.Root("webhook").AtListIndex(i) }
	meta := path.Root("metadata").AtListIndex(0)
	cases := []struct {
		in   string
		want path.Path
	}{
		{"metadata", path.Root("metadata").AtListIndex(0)},
		{"metadata.name", meta.AtName("name")},
		{"metadata.labels", meta.AtName("labels")},
		{"metadata.labels[example.com/a.b]", meta.AtName("labels").AtMapKey("example.com/a.b")},
		{"metadata.annotations", meta.AtName("annotations")},
		{"metadata.finalizers", meta.AtName("finalizers")},
		{"metadata.finalizers[1]", meta.AtName("finalizers").AtListIndex(1)},
		{"metadata.ownerReferences", meta.AtName("owner_references")},
		{"metadata.ownerReferences[1].apiVersion", meta.AtName("owner_references").AtListIndex(1).AtName("api_version")},
		{"metadata.ownerReferences[0].uid", meta.AtName("owner_references").AtListIndex(0).AtName("uid")},
		{"webhooks", path.Root("webhook")},
		{"webhooks[3]", webhook(3)},
		{"webhooks[0].name", webhook(0).AtName("name")},
		{"webhooks[0].rules", webhook(0).AtName("rule")},
		{"webhooks[0].rules[1]", webhook(0).AtName("rule").AtListIndex(1)},
		{"webhooks[0].rules[1].resources[2]", webhook(0).AtName("rule").AtListIndex(1).AtName("resources").AtListIndex(2)},
		{"webhooks[0].rules[1].resources", webhook(0).AtName("rule").AtListIndex(1).AtName("resources")},
		{"webhooks[0].rules[0].operations[0]", webhook(0).AtName("rule").AtListIndex(0).AtName("operations").AtListIndex(0)},
		{"webhooks[0].rules[0].apiGroups", webhook(0).AtName("rule").AtListIndex(0).AtName("api_groups")},
		{"webhooks[0].rules[0].apiVersions[1]", webhook(0).AtName("rule").AtListIndex(0).AtName("api_versions").AtListIndex(1)},
		{"webhooks[0].rules[0].scope", webhook(0).AtName("rule").AtListIndex(0).AtName("scope")},
		{"webhooks[1].failurePolicy", webhook(1).AtName("failure_policy")},
		{"webhooks[1].matchPolicy", webhook(1).AtName("match_policy")},
		{"webhooks[1].sideEffects", webhook(1).AtName("side_effects")},
		{"webhooks[1].timeoutSeconds", webhook(1).AtName("timeout_seconds")},
		{"webhooks[1].reinvocationPolicy", webhook(1).AtName("reinvocation_policy")},
		{"webhooks[1].admissionReviewVersions", webhook(1).AtName("admission_review_versions")},
		{"webhooks[1].admissionReviewVersions[1]", webhook(1).AtName("admission_review_versions").AtListIndex(1)},
		{"webhooks[0].clientConfig", webhook(0).AtName("client_config").AtListIndex(0)},
		{"webhooks[0].clientConfig.url", webhook(0).AtName("client_config").AtListIndex(0).AtName("url")},
		{"webhooks[0].clientConfig.caBundle", webhook(0).AtName("client_config").AtListIndex(0).AtName("ca_bundle")},
		{"webhooks[0].clientConfig.service", webhook(0).AtName("client_config").AtListIndex(0).AtName("service").AtListIndex(0)},
		{"webhooks[2].clientConfig.service.port", webhook(2).AtName("client_config").AtListIndex(0).AtName("service").AtListIndex(0).AtName("port")},
		{"webhooks[0].namespaceSelector", webhook(0).AtName("namespace_selector").AtListIndex(0)},
		{"webhooks[0].namespaceSelector.matchLabels", webhook(0).AtName("namespace_selector").AtListIndex(0).AtName("match_labels")},
		{"webhooks[0].objectSelector.matchLabels[app]", webhook(0).AtName("object_selector").AtListIndex(0).AtName("match_labels").AtMapKey("app")},
		{"webhooks[0].objectSelector.matchExpressions[2].values[1]",
			webhook(0).AtName("object_selector").AtListIndex(0).AtName("match_expressions").AtListIndex(2).AtName("values").AtListIndex(1)},
		{"webhooks[0].namespaceSelector.matchExpressions[0].operator",
			webhook(0).AtName("namespace_selector").AtListIndex(0).AtName("match_expressions").AtListIndex(0).AtName("operator")},
		{"webhooks[0].matchConditions", webhook(0).AtName("match_conditions")},
		{"webhooks[0].matchConditions[63].expression", webhook(0).AtName("match_conditions").AtListIndex(63).AtName("expression")},
		{"webhooks[0].matchConditions[1].name", webhook(0).AtName("match_conditions").AtListIndex(1).AtName("name")},
	}
	for _, tc := range cases {
		got, ok := mutating.Paths().AttributePath(tc.in)
		if !ok {
			t.Errorf("%s: not mapped", tc.in)
			continue
		}
		if !got.Equal(tc.want) {
			t.Errorf("%s: got %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestAttributePathUnknown(t *testing.T) {
	for _, in := range []string{
		"", ".", "metadata.", ".metadata", "metadata..name", "metadata.name[0]", "metadata[0]", "metadata[0].name",
		"webhook[0].name", "webhooks.name", "webhooks[x]", "webhooks[-1]", "webhooks[0][1]", "webhooks[0",
		"webhooks[0].clientConfig[0]", "webhooks[0].rules[0].resources[1].x", "webhooks[0].rules[0].resources[a]",
		"webhooks[0].timeoutSeconds.x", "webhooks[0].nope", "metadata.managedFields[0].operation", "spec",
		"webhooks[0]x", "webhooks[0].name]", "webhooks[0].rules[0].scope[0]", "metadata.labels[a][b]",
		"webhooks[99999999999999999999999]",
		// Fields of the API that the schema does not have.
		"metadata.generateName", "metadata.namespace", "metadata.managedFields", "kind", "apiVersion",
	} {
		if p, ok := mutating.Paths().AttributePath(in); ok {
			t.Errorf("%q: mapped to %s, want no mapping", in, p)
		}
	}
}

// The validating kind's mapping is the same but for reinvocationPolicy,
// which its webhooks do not have.
func TestAttributePathValidating(t *testing.T) {
	got, ok := validating.Paths().AttributePath("webhooks[2].clientConfig.service.port")
	want := path.Root("webhook").AtListIndex(2).AtName("client_config").AtListIndex(0).AtName("service").AtListIndex(0).AtName("port")
	if !ok || !got.Equal(want) {
		t.Errorf("got %s, %v; want %s", got, ok, want)
	}
	if p, ok := validating.Paths().AttributePath("webhooks[0].reinvocationPolicy"); ok {
		t.Errorf("reinvocationPolicy mapped to %s for the validating kind", p)
	}
	if _, ok := mutating.Paths().AttributePath("webhooks[0].reinvocationPolicy"); !ok {
		t.Error("reinvocationPolicy not mapped for the mutating kind")
	}
}

// Every error of a broken object and every warning has an attribute to
// point at, for both kinds.
func TestEveryValidationPathHasAnAttribute(t *testing.T) {
	for _, seed := range []string{validationSeedJSON, `{"metadata":{"name":"Bad_Name","labels":{"a b":"-"},"annotations":{"A B":"x"},"finalizers":["a b"],"ownerReferences":[{}]},"webhooks":[{"name":"x","clientConfig":{"url":"http://h?q","caBundle":"bm90IHBlbQ=="},"rules":[{"operations":["X","*"],"apiGroups":["*","a"],"apiVersions":["","*"],"resources":["","*/*","pods"],"scope":"x"}],"failurePolicy":"x","matchPolicy":"x","sideEffects":"Some","timeoutSeconds":0,"admissionReviewVersions":["x","x"],"reinvocationPolicy":"x","namespaceSelector":{"matchLabels":{"-":"-"},"matchExpressions":[{"key":"","operator":"x","values":["-"]}]},"objectSelector":{"matchExpressions":[{"key":"a","operator":"Exists","values":["x"]}]},"matchConditions":[{"name":"","expression":"1"},{"name":"a","expression":"object.x["}]},{"name":"x","clientConfig":{"service":{"name":"","namespace":"","path":"x//","port":0}}}]}`} {
		var obj configuration
		if err := json.Unmarshal([]byte(seed), &obj); err != nil {
			t.Fatal(err)
		}
		defaulted := validation.Default(&obj)
		errs := validation.Validate(defaulted)
		if len(errs) < 10 {
			t.Fatalf("expected many errors, got %v", errs)
		}
		for _, k := range []interface {
			AttributePath(string) (path.Path, bool)
		}{mutating.Paths(), validating.Paths()} {
			for _, e := range errs {
				if e.Field == "webhooks[0].reinvocationPolicy" && k == validating.Paths() {
					continue // a validating webhook cannot have one
				}
				if _, ok := k.AttributePath(e.Field); !ok {
					t.Errorf("no attribute path for %q", e.Field)
				}
			}
			for _, w := range append(advice.Advice(defaulted, nil, true), validation.ServerWarnings(validation.Assumed, defaulted, false)...) {
				if _, ok := k.AttributePath(w.Path.String()); !ok {
					t.Errorf("no attribute path for warning at %q", w.Path)
				}
			}
		}
	}
}

const validationSeedJSON = `{"metadata":{"name":"m"},"webhooks":[{"name":"","clientConfig":{},"namespaceSelector":{"matchLabels":{"":""},"matchExpressions":[{"key":"","operator":"in","values":["-"]},{"key":"a","operator":"Exists","values":["x"]},{"key":"b","operator":"In"}]},"objectSelector":{},"admissionReviewVersions":[]},{"name":"","clientConfig":{"url":"https://h","service":{"name":"","namespace":"","port":0,"path":"//"}}}]}`
