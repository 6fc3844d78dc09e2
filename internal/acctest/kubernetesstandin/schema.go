package kubernetesstandin

import (
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The schemas below copy those of hashicorp/terraform-provider-kubernetes,
// package kubernetes: resourceKubernetesMutatingWebhookConfigurationV1,
// resourceKubernetesValidatingWebhookConfigurationV1 and the helpers they use
// (metadataSchema, webhookClientConfigFields, serviceReferenceFields,
// labelSelectorFields, ruleWithOperationsFields), as the plugin SDK v2
// presents them to Terraform (helper/schema.Resource.CoreConfigSchema).
//
// Defaults of that SDK do not appear in a schema: ModifyPlan fills them in
// (fillDefaults). Block item limits cannot be declared in a framework
// schema: itemLimits holds them and sdkv2Server adds them to the schema it
// reports.

// itemLimits are the min_items and max_items of the blocks of both resource
// types, by path of block names; blocks not listed have neither.
var itemLimits = map[string]struct{ min, max int64 }{
	"metadata":                      {1, 1},
	"webhook":                       {1, 0},
	"webhook.client_config":         {1, 1},
	"webhook.client_config.service": {0, 1},
	"webhook.namespace_selector":    {0, 1},
	"webhook.object_selector":       {0, 1},
}

func optionalString() schema.StringAttribute { return schema.StringAttribute{Optional: true} }
func requiredString() schema.StringAttribute { return schema.StringAttribute{Required: true} }
func optionalInt() schema.Int64Attribute     { return schema.Int64Attribute{Optional: true} }
func stringList(required bool) schema.ListAttribute {
	return schema.ListAttribute{ElementType: types.StringType, Required: required, Optional: !required}
}
func stringMap() schema.MapAttribute {
	return schema.MapAttribute{ElementType: types.StringType, Optional: true}
}

// keepString keeps a computed string as it is in the state until the
// object is written again, as the plugin SDK v2 does for computed values.
var keepString = []planmodifier.String{stringplanmodifier.UseStateForUnknown()}

func webhookConfigurationSchema(mutating bool) schema.Schema {
	webhook := map[string]schema.Attribute{
		"admission_review_versions": stringList(false),
		"failure_policy":            optionalString(),
		"match_policy":              optionalString(),
		"name":                      requiredString(),
		"side_effects":              optionalString(),
		"timeout_seconds":           optionalInt(),
	}
	if mutating {
		webhook["reinvocation_policy"] = optionalString()
	}
	return schema.Schema{
		Version: 0,
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Optional: true, Computed: true, PlanModifiers: keepString},
		},
		Blocks: map[string]schema.Block{
			"metadata": schema.ListNestedBlock{NestedObject: schema.NestedBlockObject{
				Attributes: map[string]schema.Attribute{
					"annotations":   stringMap(),
					"generate_name": optionalString(),
					"generation": schema.Int64Attribute{Computed: true, PlanModifiers: []planmodifier.Int64{
						int64planmodifier.UseStateForUnknown(),
					}},
					"labels":           stringMap(),
					"name":             schema.StringAttribute{Optional: true, Computed: true, PlanModifiers: keepString},
					"resource_version": schema.StringAttribute{Computed: true, PlanModifiers: keepString},
					"uid":              schema.StringAttribute{Computed: true, PlanModifiers: keepString},
				},
			}},
			"webhook": schema.ListNestedBlock{NestedObject: schema.NestedBlockObject{
				Attributes: webhook,
				Blocks: map[string]schema.Block{
					"client_config": schema.ListNestedBlock{NestedObject: schema.NestedBlockObject{
						Attributes: map[string]schema.Attribute{
							"ca_bundle": optionalString(),
							"url":       optionalString(),
						},
						Blocks: map[string]schema.Block{
							"service": schema.ListNestedBlock{NestedObject: schema.NestedBlockObject{
								Attributes: map[string]schema.Attribute{
									"name":      requiredString(),
									"namespace": requiredString(),
									"path":      optionalString(),
									"port":      optionalInt(),
								},
							}},
						},
					}},
					"namespace_selector": labelSelectorBlock(),
					"object_selector":    labelSelectorBlock(),
					"rule": schema.ListNestedBlock{NestedObject: schema.NestedBlockObject{
						Attributes: map[string]schema.Attribute{
							"api_groups":   stringList(true),
							"api_versions": stringList(true),
							"operations":   stringList(true),
							"resources":    stringList(true),
							"scope":        optionalString(),
						},
					}},
				},
			}},
		},
	}
}

// labelSelectorBlock is hashicorp/terraform-provider-kubernetes's
// labelSelectorFields(true) as a block.
func labelSelectorBlock() schema.ListNestedBlock {
	return schema.ListNestedBlock{NestedObject: schema.NestedBlockObject{
		Attributes: map[string]schema.Attribute{
			"match_labels": stringMap(),
		},
		Blocks: map[string]schema.Block{
			"match_expressions": schema.ListNestedBlock{NestedObject: schema.NestedBlockObject{
				Attributes: map[string]schema.Attribute{
					"key":      optionalString(),
					"operator": optionalString(),
					"values":   schema.SetAttribute{ElementType: types.StringType, Optional: true},
				},
			}},
		},
	}}
}
