package webhook

import (
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/core"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/matchschema"
)

// objectModel is the object: what the resource and the data sources hold.
// Blocks are slices, so an absent block is an empty slice.
type objectModel[H hook] struct {
	core.Header
	Webhook []H `tfsdk:"webhook"`
	// WaitForEndpoints is a setting of the resource, not of the object
	// (wait.go): null in the data sources.
	WaitForEndpoints types.Bool `tfsdk:"wait_for_endpoints"`
}

// hook is the model of one webhook block of a kind: the fields that every
// webhook has, and what the kind adds.
type hook interface {
	base() webhookModel
	// reinvocation is the reinvocation policy, which only mutating webhooks
	// have; null for the others.
	reinvocation() types.String
}

// webhookModel is a webhook block with the fields of both kinds; on its own
// it is the webhook of a ValidatingWebhookConfiguration.
type webhookModel struct {
	Name                    types.String                 `tfsdk:"name"`
	AdmissionReviewVersions types.List                   `tfsdk:"admission_review_versions"`
	SideEffects             types.String                 `tfsdk:"side_effects"`
	FailurePolicy           types.String                 `tfsdk:"failure_policy"`
	MatchPolicy             types.String                 `tfsdk:"match_policy"`
	TimeoutSeconds          types.Int64                  `tfsdk:"timeout_seconds"`
	ClientConfig            []clientConfigModel          `tfsdk:"client_config"`
	Rule                    []matchschema.RuleModel      `tfsdk:"rule"`
	NamespaceSelector       []matchschema.SelectorModel  `tfsdk:"namespace_selector"`
	ObjectSelector          []matchschema.SelectorModel  `tfsdk:"object_selector"`
	MatchConditions         []matchschema.ConditionModel `tfsdk:"match_conditions"`
}

func (w webhookModel) base() webhookModel       { return w }
func (webhookModel) reinvocation() types.String { return types.StringNull() }

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
