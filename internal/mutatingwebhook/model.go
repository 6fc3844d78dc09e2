package mutatingwebhook

import (
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// resourceState is the resource's configuration, plan and state: the object
// and the operation timeouts.
type resourceState struct {
	resourceModel
	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

// resourceModel is the object: what the resource and the data sources hold.
// Blocks are slices, so an absent block is an empty slice.
type resourceModel struct {
	ID       types.String    `tfsdk:"id"`
	Metadata []metadataModel `tfsdk:"metadata"`
	Webhook  []webhookModel  `tfsdk:"webhook"`
}

type metadataModel struct {
	Name              types.String          `tfsdk:"name"`
	Labels            types.Map             `tfsdk:"labels"`
	Annotations       types.Map             `tfsdk:"annotations"`
	Finalizers        types.List            `tfsdk:"finalizers"`
	OwnerReferences   []ownerReferenceModel `tfsdk:"owner_references"`
	UID               types.String          `tfsdk:"uid"`
	ResourceVersion   types.String          `tfsdk:"resource_version"`
	Generation        types.Int64           `tfsdk:"generation"`
	CreationTimestamp types.String          `tfsdk:"creation_timestamp"`
}

type ownerReferenceModel struct {
	APIVersion         types.String `tfsdk:"api_version"`
	Kind               types.String `tfsdk:"kind"`
	Name               types.String `tfsdk:"name"`
	UID                types.String `tfsdk:"uid"`
	BlockOwnerDeletion types.Bool   `tfsdk:"block_owner_deletion"`
	Controller         types.Bool   `tfsdk:"controller"`
}

type webhookModel struct {
	Name                    types.String          `tfsdk:"name"`
	AdmissionReviewVersions types.List            `tfsdk:"admission_review_versions"`
	SideEffects             types.String          `tfsdk:"side_effects"`
	FailurePolicy           types.String          `tfsdk:"failure_policy"`
	MatchPolicy             types.String          `tfsdk:"match_policy"`
	ReinvocationPolicy      types.String          `tfsdk:"reinvocation_policy"`
	TimeoutSeconds          types.Int64           `tfsdk:"timeout_seconds"`
	ClientConfig            []clientConfigModel   `tfsdk:"client_config"`
	Rule                    []ruleModel           `tfsdk:"rule"`
	NamespaceSelector       []selectorModel       `tfsdk:"namespace_selector"`
	ObjectSelector          []selectorModel       `tfsdk:"object_selector"`
	MatchConditions         []matchConditionModel `tfsdk:"match_conditions"`
}

type clientConfigModel struct {
	URL      types.String   `tfsdk:"url"`
	CABundle types.String   `tfsdk:"ca_bundle"`
	Service  []serviceModel `tfsdk:"service"`
}

type serviceModel struct {
	Namespace types.String `tfsdk:"namespace"`
	Name      types.String `tfsdk:"name"`
	Path      types.String `tfsdk:"path"`
	Port      types.Int64  `tfsdk:"port"`
}

type ruleModel struct {
	Operations  types.List   `tfsdk:"operations"`
	APIGroups   types.List   `tfsdk:"api_groups"`
	APIVersions types.List   `tfsdk:"api_versions"`
	Resources   types.List   `tfsdk:"resources"`
	Scope       types.String `tfsdk:"scope"`
}

type selectorModel struct {
	MatchLabels      types.Map              `tfsdk:"match_labels"`
	MatchExpressions []matchExpressionModel `tfsdk:"match_expressions"`
}

type matchExpressionModel struct {
	Key      types.String `tfsdk:"key"`
	Operator types.String `tfsdk:"operator"`
	Values   types.List   `tfsdk:"values"`
}

type matchConditionModel struct {
	Name       types.String `tfsdk:"name"`
	Expression types.String `tfsdk:"expression"`
}
