package tfschema_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dsschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfschema"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/webhook"
)

// TestReadOnlyDescription lists each resource description that a data source
// shows differently (internal/metadata, internal/matchschema, internal/webhook),
// and descriptions that must come through unchanged.
func TestReadOnlyDescription(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{
			"metadata.name",
			"Name of the object, unique in the cluster (a DNS subdomain). Changing it replaces the object.",
			"Name of the object, unique in the cluster (a DNS subdomain).",
		},
		{
			"metadata.labels",
			"Labels of the object. Only the labels set here are managed; labels that others add are left alone.",
			"Labels of the object.",
		},
		{
			"metadata.annotations",
			"Annotations of the object. Only the annotations set here are managed; annotations that others add " +
				"(such as `cert-manager.io/inject-ca-from` read by cert-manager) are left alone.",
			"Annotations of the object.",
		},
		{
			"webhook.failure_policy",
			"What happens when the webhook cannot be called or answers with an error: `Fail` rejects the request, " +
				"`Ignore` lets it through. One of `Fail`, `Ignore`. Default: `Fail`.",
			"What happens when the webhook cannot be called or answers with an error: `Fail` rejects the request, " +
				"`Ignore` lets it through. One of `Fail`, `Ignore`.",
		},
		{
			"webhook.match_policy",
			"How rules match requests made through another API version or group of the same resource: " +
				"`Exact` only matches the rules as written; `Equivalent` also sends requests for an equivalent resource, " +
				"converted to a version the rules name. One of `Equivalent`, `Exact`. Default: `Equivalent`.",
			"How rules match requests made through another API version or group of the same resource: " +
				"`Exact` only matches the rules as written; `Equivalent` also sends requests for an equivalent resource, " +
				"converted to a version the rules name. One of `Equivalent`, `Exact`.",
		},
		{
			"webhook.timeout_seconds",
			"Seconds to wait for the webhook's answer, from 1 to 30; after that, `failure_policy` applies. Default: `10`.",
			"Seconds to wait for the webhook's answer, from 1 to 30; after that, `failure_policy` applies.",
		},
		{
			"webhook.reinvocation_policy",
			"Whether the webhook is called again, once, when later mutating admission plugins change the object after it: " +
				"`IfNeeded` or `Never`. One of `Never`, `IfNeeded`. Default: `Never`.",
			"Whether the webhook is called again, once, when later mutating admission plugins change the object after it: " +
				"`IfNeeded` or `Never`. One of `Never`, `IfNeeded`.",
		},
		{
			"webhook.rule.scope",
			"Which objects the rule applies to by scope: `Cluster` (cluster-scoped), `Namespaced`, or `*` (both). " +
				"One of `*`, `Cluster`, `Namespaced`. Default: `*`.",
			"Which objects the rule applies to by scope: `Cluster` (cluster-scoped), `Namespaced`, or `*` (both). " +
				"One of `*`, `Cluster`, `Namespaced`.",
		},
		{
			"webhook.client_config.ca_bundle",
			"PEM certificates that sign the webhook's serving certificate; the API server's trust roots when empty. " +
				"Leave it out when another controller (such as cert-manager's CA injector) fills it: its value is then read but never changed.",
			"PEM certificates that sign the webhook's serving certificate; the API server's trust roots when empty.",
		},
		{
			"webhook.client_config.service.port",
			"Port of the service, from 1 to 65535. Default: `443`.",
			"Port of the service, from 1 to 65535.",
		},

		// Unchanged: no sentence about configuring, periods inside code spans.
		{
			"webhook.client_config.url",
			"Where the webhook runs outside the cluster, as `https://host[:port][/path]`; no user information, query or fragment.",
			"Where the webhook runs outside the cluster, as `https://host[:port][/path]`; no user information, query or fragment.",
		},
		{
			"webhook.name",
			"Name of the webhook, fully qualified (at least three dot-separated segments, such as " +
				"`sidecar-injector.example.com`) and unique in this configuration.",
			"Name of the webhook, fully qualified (at least three dot-separated segments, such as " +
				"`sidecar-injector.example.com`) and unique in this configuration.",
		},
		{
			"metadata.owner_references.controller",
			"If true, this owner is the managing controller. At most one owner may be.",
			"If true, this owner is the managing controller. At most one owner may be.",
		},
		{"empty", "", ""},
		{"no final period", "Default: `x`. The rest", "The rest"},
		{"a period inside a code span ends no sentence", "Run `a. Leave it out when b`. Default: `1`.", "Run `a. Leave it out when b`."},
	}
	for _, c := range cases {
		if got := tfschema.ReadOnlyDescription(c.in); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// TestComputedDescriptions checks that Computed rewrites the descriptions of
// attributes, of blocks and of what is nested in blocks.
func TestComputedDescriptions(t *testing.T) {
	attrs := map[string]schema.Attribute{
		"mode": tfschema.Enum("The mode.", "A", "A", "B"),
		"name": schema.StringAttribute{Required: true, MarkdownDescription: "The name. Changing it replaces the object."},
	}
	blocks := map[string]schema.Block{
		"inner": schema.ListNestedBlock{
			MarkdownDescription: "Inner things. Default: `[]`.",
			NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
				"port": schema.Int64Attribute{Optional: true, MarkdownDescription: "A port. Default: `443`."},
			}},
		},
	}
	out := tfschema.Computed(attrs, blocks)
	inner, ok := out["inner"].(dsschema.ListNestedAttribute)
	if !ok {
		t.Fatalf("inner is a %T, want a list nested attribute", out["inner"])
	}
	for name, got := range map[string]string{
		"mode":       out["mode"].GetMarkdownDescription(),
		"name":       out["name"].GetMarkdownDescription(),
		"inner":      inner.GetMarkdownDescription(),
		"inner.port": inner.NestedObject.Attributes["port"].GetMarkdownDescription(),
	} {
		want := map[string]string{
			"mode":       "The mode. One of `A`, `B`.",
			"name":       "The name.",
			"inner":      "Inner things.",
			"inner.port": "A port.",
		}[name]
		if got != want {
			t.Errorf("%s: got %q, want %q", name, got, want)
		}
	}
}

// TestDataSourceDescriptions walks every data source's schema: no
// description keeps a sentence about configuring a resource.
func TestDataSourceDescriptions(t *testing.T) {
	resourceOnly := []string{"Default: `", "Changing it replaces", "set here are managed", "Leave it out"}
	walked := 0
	var walk func(path string, attrs map[string]dsschema.Attribute)
	walk = func(path string, attrs map[string]dsschema.Attribute) {
		for name, a := range attrs {
			walked++
			p := path + "." + name
			for _, s := range resourceOnly {
				if strings.Contains(a.GetMarkdownDescription(), s) {
					t.Errorf("%s: description keeps %q: %q", p, s, a.GetMarkdownDescription())
				}
			}
			if l, ok := a.(dsschema.ListNestedAttribute); ok {
				walk(p, l.NestedObject.Attributes)
			}
		}
	}
	for _, newDataSource := range webhook.DataSources() {
		d := newDataSource()
		var meta datasource.MetadataResponse
		d.Metadata(context.Background(), datasource.MetadataRequest{ProviderTypeName: "admission"}, &meta)
		var resp datasource.SchemaResponse
		d.Schema(context.Background(), datasource.SchemaRequest{}, &resp)
		walk(meta.TypeName, resp.Schema.Attributes)
	}
	if walked < 100 {
		t.Fatalf("walked %d attributes of the data sources; the schemas were not read", walked)
	}
}
