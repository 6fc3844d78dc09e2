package mutatingwebhook

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// Server defaults (admissionregistration.k8s.io/v1), shown in the plan so that
// what Terraform plans is what the server stores.
const (
	defaultFailurePolicy      = string(admissionregistrationv1.Fail)
	defaultMatchPolicy        = string(admissionregistrationv1.Equivalent)
	defaultReinvocationPolicy = string(admissionregistrationv1.NeverReinvocationPolicy)
	defaultTimeoutSeconds     = 10
	defaultScope              = string(admissionregistrationv1.AllScopes)
	defaultServicePort        = 443
)

// maxOne limits a block to a single occurrence, as hashicorp/kubernetes'
// MaxItems: 1 blocks do; the state keeps the same list shape, so references
// such as metadata[0].name carry over unchanged.
func maxOne() []validator.List { return []validator.List{listvalidator.SizeAtMost(1)} }

func exactlyOne() []validator.List {
	return []validator.List{listvalidator.IsRequired(), listvalidator.SizeBetween(1, 1)}
}

func stringList(desc string, required bool) schema.ListAttribute {
	return schema.ListAttribute{
		ElementType:         types.StringType,
		Required:            required,
		Optional:            !required,
		MarkdownDescription: desc,
	}
}

func stringMap(desc string) schema.MapAttribute {
	return schema.MapAttribute{ElementType: types.StringType, Optional: true, MarkdownDescription: desc}
}

func enum(desc, def string, values ...string) schema.StringAttribute {
	return schema.StringAttribute{
		Optional:            true,
		Computed:            true,
		Default:             stringdefault.StaticString(def),
		MarkdownDescription: desc + " One of " + quoteJoin(values) + ". Default: `" + def + "`.",
		Validators:          []validator.String{stringvalidator.OneOf(values...)},
	}
}

func quoteJoin(values []string) string {
	s := ""
	for i, v := range values {
		if i > 0 {
			s += ", "
		}
		s += "`" + v + "`"
	}
	return s
}

func resourceSchema() schema.Schema {
	return schema.Schema{
		Version: 0,
		MarkdownDescription: "A `MutatingWebhookConfiguration` (`admissionregistration.k8s.io/v1`): the webhooks the API server " +
			"calls to admit and change objects. Written with server-side apply, so Terraform owns exactly the fields in the " +
			"configuration; fields set by others (such as a `ca_bundle` injected by cert-manager) are left to them.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The object's name.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
		},
		Blocks: map[string]schema.Block{
			"metadata": metadataBlock(),
			"webhook":  webhookBlock(),
		},
	}
}

// withTimeouts adds the timeouts block of the resource (not of the data
// sources, which share the rest of the schema).
func withTimeouts(ctx context.Context, s schema.Schema) schema.Schema {
	s.Blocks["timeouts"] = timeouts.Block(ctx, timeouts.Opts{Create: true, Read: true, Update: true, Delete: true})
	return s
}

// buildBlockTypes gives each list block its object type once, built from
// its attributes and blocks (innermost first). Without it the framework
// builds the type of the whole nested block again each time it walks a
// value, which was about a third of the provider's CPU time on a plan.
func buildBlockTypes(blocks map[string]schema.Block) {
	for name, b := range blocks {
		lb, ok := b.(schema.ListNestedBlock)
		if !ok || lb.NestedObject.CustomType != nil {
			continue
		}
		buildBlockTypes(lb.NestedObject.Blocks)
		lb.NestedObject.CustomType = lb.NestedObject.Type()
		blocks[name] = lb
	}
}

func metadataBlock() schema.ListNestedBlock {
	return schema.ListNestedBlock{
		MarkdownDescription: "Standard object metadata. The object is cluster-scoped, so it has no namespace.",
		Validators:          exactlyOne(),
		NestedObject: schema.NestedBlockObject{
			Attributes: map[string]schema.Attribute{
				"name": schema.StringAttribute{
					Required:            true,
					MarkdownDescription: "Name of the object, unique in the cluster (a DNS subdomain). Changing it replaces the object.",
					PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
				},
				"labels": stringMap("Labels of the object. Only the labels set here are managed; labels that others add are left alone."),
				"annotations": stringMap("Annotations of the object. Only the annotations set here are managed; annotations that others add " +
					"(such as `cert-manager.io/inject-ca-from` read by cert-manager) are left alone."),
				"finalizers": stringList("Finalizers that must be removed before the object is deleted.", false),
				"uid": schema.StringAttribute{
					Computed:            true,
					MarkdownDescription: "Unique identifier the server gave the object.",
					PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
				},
				"resource_version": schema.StringAttribute{
					Computed:            true,
					MarkdownDescription: "Version of the object the server last stored; it changes on every write.",
				},
				"generation": schema.Int64Attribute{
					Computed:            true,
					MarkdownDescription: "Sequence number of the object's specification; the server increases it when the webhooks change.",
				},
				"creation_timestamp": schema.StringAttribute{
					Computed:            true,
					MarkdownDescription: "When the server created the object (RFC 3339).",
					PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
				},
			},
			Blocks: map[string]schema.Block{
				"owner_references": schema.ListNestedBlock{
					MarkdownDescription: "Objects this one depends on; when all owners are deleted, the garbage collector deletes this object.",
					NestedObject: schema.NestedBlockObject{
						Attributes: map[string]schema.Attribute{
							"api_version":          schema.StringAttribute{Required: true, MarkdownDescription: "API version of the owner, such as `apps/v1`."},
							"kind":                 schema.StringAttribute{Required: true, MarkdownDescription: "Kind of the owner."},
							"name":                 schema.StringAttribute{Required: true, MarkdownDescription: "Name of the owner."},
							"uid":                  schema.StringAttribute{Required: true, MarkdownDescription: "UID of the owner."},
							"block_owner_deletion": schema.BoolAttribute{Optional: true, MarkdownDescription: "If true, the owner cannot be deleted in the foreground until this object is gone."},
							"controller":           schema.BoolAttribute{Optional: true, MarkdownDescription: "If true, this owner is the managing controller. At most one owner may be."},
						},
					},
				},
			},
		},
	}
}

func webhookBlock() schema.ListNestedBlock {
	return schema.ListNestedBlock{
		MarkdownDescription: "A webhook the API server calls, with the requests it applies to. Webhooks are called in the order given.",
		NestedObject: schema.NestedBlockObject{
			Attributes: map[string]schema.Attribute{
				"name": schema.StringAttribute{
					Required: true,
					MarkdownDescription: "Name of the webhook, fully qualified (at least three dot-separated segments, such as " +
						"`sidecar-injector.example.com`) and unique in this configuration.",
				},
				"admission_review_versions": stringList("`AdmissionReview` versions the webhook accepts, in order of preference; "+
					"the API server sends the first it supports. Must include `v1` or `v1beta1`.", true),
				"side_effects": schema.StringAttribute{
					Required: true,
					MarkdownDescription: "Whether calling the webhook has side effects outside the object: `None`, or `NoneOnDryRun` " +
						"if it has side effects but skips them for dry-run requests.",
				},
				"failure_policy": enum("What happens when the webhook cannot be called or answers with an error: `Fail` rejects the request, `Ignore` lets it through.",
					defaultFailurePolicy, "Fail", "Ignore"),
				"match_policy": enum("How rules match requests made through another API version or group of the same resource: "+
					"`Exact` only matches the rules as written; `Equivalent` also sends requests for an equivalent resource, converted to a version the rules name.",
					defaultMatchPolicy, "Equivalent", "Exact"),
				"reinvocation_policy": enum("Whether the webhook is called again, once, when later mutating admission plugins change the object after it: `IfNeeded` or `Never`.",
					defaultReinvocationPolicy, "Never", "IfNeeded"),
				"timeout_seconds": schema.Int64Attribute{
					Optional:            true,
					Computed:            true,
					Default:             int64default.StaticInt64(defaultTimeoutSeconds),
					MarkdownDescription: "Seconds to wait for the webhook's answer, from 1 to 30; after that, `failure_policy` applies. Default: `10`.",
				},
			},
			Blocks: map[string]schema.Block{
				"client_config":      clientConfigBlock(),
				"rule":               ruleBlock(),
				"namespace_selector": selectorBlock("Selects, by the namespace's labels, the namespaced objects the webhook applies to. Absent or empty: every namespace. Cluster-scoped objects other than namespaces are never filtered by it."),
				"object_selector":    selectorBlock("Selects, by the object's own labels (old and new object), the objects the webhook applies to. Absent or empty: every object."),
				"match_conditions":   matchConditionsBlock(),
			},
		},
	}
}

func clientConfigBlock() schema.ListNestedBlock {
	return schema.ListNestedBlock{
		MarkdownDescription: "How to reach the webhook: exactly one of `url` and `service`.",
		Validators:          exactlyOne(),
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
					Validators:          maxOne(),
					NestedObject: schema.NestedBlockObject{
						Attributes: map[string]schema.Attribute{
							"namespace": schema.StringAttribute{Required: true, MarkdownDescription: "Namespace of the service."},
							"name":      schema.StringAttribute{Required: true, MarkdownDescription: "Name of the service."},
							"path":      schema.StringAttribute{Optional: true, MarkdownDescription: "URL path the API server sends requests to, such as `/mutate`."},
							"port": schema.Int64Attribute{
								Optional:            true,
								Computed:            true,
								Default:             int64default.StaticInt64(defaultServicePort),
								MarkdownDescription: "Port of the service, from 1 to 65535. Default: `443`.",
							},
						},
					},
				},
			},
		},
	}
}

func ruleBlock() schema.ListNestedBlock {
	return schema.ListNestedBlock{
		MarkdownDescription: "Operations on resources the webhook applies to. It applies to a request that matches any rule; with no rule it applies to none.",
		NestedObject: schema.NestedBlockObject{
			Attributes: map[string]schema.Attribute{
				"operations":   stringList("Operations: `CREATE`, `UPDATE`, `DELETE`, `CONNECT`, or `*` for all.", true),
				"api_groups":   stringList("API groups; `\"\"` is the core group and `*` all groups.", true),
				"api_versions": stringList("API versions; `*` is all versions.", true),
				"resources": stringList("Resources, such as `pods`; `pods/status` names a subresource, `*` all resources, "+
					"`*/*` all resources and subresources, `pods/*` all subresources of pods.", true),
				"scope": enum("Which objects the rule applies to by scope: `Cluster` (cluster-scoped), `Namespaced`, or `*` (both).",
					defaultScope, "*", "Cluster", "Namespaced"),
			},
		},
	}
}

func selectorBlock(desc string) schema.ListNestedBlock {
	return schema.ListNestedBlock{
		MarkdownDescription: desc,
		Validators:          maxOne(),
		NestedObject: schema.NestedBlockObject{
			Attributes: map[string]schema.Attribute{
				"match_labels": stringMap("Labels that must all be present with these values."),
			},
			Blocks: map[string]schema.Block{
				"match_expressions": schema.ListNestedBlock{
					MarkdownDescription: "Requirements on labels; all must hold.",
					NestedObject: schema.NestedBlockObject{
						Attributes: map[string]schema.Attribute{
							"key":      schema.StringAttribute{Required: true, MarkdownDescription: "The label key."},
							"operator": schema.StringAttribute{Required: true, MarkdownDescription: "`In`, `NotIn`, `Exists` or `DoesNotExist`."},
							"values":   stringList("Values for `In` and `NotIn` (at least one); empty for `Exists` and `DoesNotExist`.", false),
						},
					},
				},
			},
		},
	}
}

func matchConditionsBlock() schema.ListNestedBlock {
	return schema.ListNestedBlock{
		MarkdownDescription: "CEL conditions a request must all meet for the webhook to be called (at most 64). " +
			"An error in a condition is handled by `failure_policy`.",
		NestedObject: schema.NestedBlockObject{
			Attributes: map[string]schema.Attribute{
				"name": schema.StringAttribute{Required: true, MarkdownDescription: "Name of the condition, unique in the webhook (a qualified name, like a label key)."},
				"expression": schema.StringAttribute{
					Required: true,
					MarkdownDescription: "CEL expression that evaluates to a bool. It may use `object`, `oldObject`, `request` " +
						"(the `AdmissionRequest`), `namespaceObject` and `authorizer`.",
				},
			},
		},
	}
}
