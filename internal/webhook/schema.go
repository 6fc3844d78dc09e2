package webhook

import (
	"fmt"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/matchschema"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfschema"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// webhookBlocks are the blocks of the kind k beside metadata: its webhooks.
// The block layout and names are those of hashicorp/kubernetes'
// kubernetes_<kind>_v1 resources.
func webhookBlocks[H hook](k webhookKind[H]) map[string]schema.Block {
	return map[string]schema.Block{"webhook": webhookBlock(k)}
}

func webhookBlock[H hook](k webhookKind[H]) schema.ListNestedBlock {
	attrs := map[string]schema.Attribute{
		"name": schema.StringAttribute{
			Required: true,
			MarkdownDescription: "Name of the webhook, fully qualified (at least three dot-separated segments, such as " +
				"`sidecar-injector.example.com`) and unique in this configuration.",
		},
		"admission_review_versions": tfschema.StringList("`AdmissionReview` versions the webhook accepts, in order of preference; "+
			"the API server sends the first it supports. Must include `v1` or `v1beta1`.", true),
		"side_effects": schema.StringAttribute{
			Required: true,
			MarkdownDescription: "Whether calling the webhook has side effects outside the object: `None`, or `NoneOnDryRun` " +
				"if it has side effects but skips them for dry-run requests.",
		},
		"failure_policy": tfschema.Enum("What happens when the webhook cannot be called or answers with an error: `Fail` rejects the request, `Ignore` lets it through.",
			string(validation.DefaultFailurePolicy), "Fail", "Ignore"),
		"match_policy": tfschema.Enum("How rules match requests made through another API version or group of the same resource: "+
			"`Exact` only matches the rules as written; `Equivalent` also sends requests for an equivalent resource, converted to a version the rules name.",
			string(validation.DefaultMatchPolicy), "Equivalent", "Exact"),
		"timeout_seconds": schema.Int64Attribute{
			Optional:            true,
			Computed:            true,
			Default:             int64default.StaticInt64(int64(validation.DefaultTimeoutSeconds)),
			MarkdownDescription: fmt.Sprintf("Seconds to wait for the webhook's answer, from 1 to 30; after that, `failure_policy` applies. Default: `%d`.", validation.DefaultTimeoutSeconds),
		},
	}
	maps.Copy(attrs, k.hookAttributes)
	return schema.ListNestedBlock{
		MarkdownDescription: "A webhook the API server calls, with the requests it applies to. " + k.order,
		NestedObject: schema.NestedBlockObject{
			Attributes: attrs,
			Blocks: map[string]schema.Block{
				"client_config": clientConfigBlock(),
				"rule": schema.ListNestedBlock{
					MarkdownDescription: "Operations on resources the webhook applies to. It applies to a request that matches any rule; with no rule it applies to none.",
					NestedObject:        schema.NestedBlockObject{Attributes: matchschema.RuleAttributes()},
				},
				"namespace_selector": matchschema.SelectorBlock("Selects, by the namespace's labels, the namespaced objects the webhook applies to. Absent or empty: every namespace. Cluster-scoped objects other than namespaces are never filtered by it."),
				"object_selector":    matchschema.SelectorBlock("Selects, by the object's own labels (old and new object), the objects the webhook applies to. Absent or empty: every object."),
				"match_conditions": matchschema.ConditionsBlock("CEL conditions a request must all meet for the webhook to be called (at most 64). "+
					"An error in a condition is handled by `failure_policy`.", "the webhook",
					"`object`, `oldObject`, `request` (the `AdmissionRequest`), `namespaceObject` and `authorizer`"),
			},
		},
	}
}

func clientConfigBlock() schema.ListNestedBlock {
	return schema.ListNestedBlock{
		MarkdownDescription: "How to reach the webhook: exactly one of `url` and `service`.",
		Validators:          tfschema.ExactlyOne(),
		NestedObject: schema.NestedBlockObject{
			Attributes: map[string]schema.Attribute{
				"url": schema.StringAttribute{
					Optional: true,
					MarkdownDescription: "Where the webhook runs outside the cluster, as `https://host[:port][/path]`; no user information, " +
						"query or fragment.",
				},
				"ca_bundle": schema.StringAttribute{
					Optional: true,
					Computed: true,
					MarkdownDescription: "PEM certificates that sign the webhook's serving certificate; the API server's trust roots when empty. " +
						"Leave it out when another controller (such as cert-manager's CA injector) fills it: its value is then read but never changed.",
					PlanModifiers: []planmodifier.String{caBundlePlanModifier{}},
				},
			},
			Blocks: map[string]schema.Block{
				"service": schema.ListNestedBlock{
					MarkdownDescription: "The Kubernetes service in front of the webhook. The API server connects over HTTPS.",
					Validators:          tfschema.MaxOne(),
					NestedObject: schema.NestedBlockObject{
						Attributes: map[string]schema.Attribute{
							"namespace": schema.StringAttribute{Required: true, MarkdownDescription: "Namespace of the service."},
							"name":      schema.StringAttribute{Required: true, MarkdownDescription: "Name of the service."},
							"path":      schema.StringAttribute{Optional: true, MarkdownDescription: "URL path the API server sends requests to, such as `/mutate`."},
							"port": schema.Int64Attribute{
								Optional:            true,
								Computed:            true,
								Default:             int64default.StaticInt64(int64(validation.DefaultServicePort)),
								MarkdownDescription: fmt.Sprintf("Port of the service, from 1 to 65535. Default: `%d`.", validation.DefaultServicePort),
							},
						},
					},
				},
			},
		},
	}
}
