package validation

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestAttributePath(t *testing.T) {
	webhook := func(i int) path.Path { return path.Root("webhook").AtListIndex(i) }
	meta := path.Root("metadata").AtListIndex(0)
	cases := []struct {
		in   string
		want path.Path
	}{
		{"metadata", path.Root("metadata").AtListIndex(0)},
		{"metadata.name", meta.AtName("name")},
		{"metadata.generateName", meta.AtName("generate_name")},
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
		got, ok := AttributePath(tc.in)
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
	} {
		if p, ok := AttributePath(in); ok {
			t.Errorf("%q: mapped to %s, want no mapping", in, p)
		}
	}
}

func TestMessage(t *testing.T) {
	p := field.NewPath("webhooks").Index(0)
	cases := []struct {
		err  *field.Error
		want string
	}{
		{field.NotSupported(p.Child("failurePolicy"), "Always", supportedFailurePolicies),
			`Unsupported value: "Always": supported values: "Fail", "Ignore"`},
		{field.Required(p.Child("name"), ""), "Required value"},
		{field.Required(p.Child("sideEffects"), "must specify one of None, NoneOnDryRun"),
			"Required value: must specify one of None, NoneOnDryRun"},
		{field.Invalid(p.Child("timeoutSeconds"), int32(0), "the timeout value must be between 1 and 30 seconds"),
			"Invalid value: 0: the timeout value must be between 1 and 30 seconds"},
		{field.TooMany(p.Child("matchConditions"), 65, 64), "Too many: 65: must have at most 64 items"},
		{field.Duplicate(p.Child("name"), "a.b.c"), `Duplicate value: "a.b.c"`},
		{nil, ""},
	}
	for _, tc := range cases {
		if got := Message(tc.err); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}
