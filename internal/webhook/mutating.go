package webhook

import (
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfschema"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// mutating is admission_mutating_webhook_configuration: webhooks that may
// change the object, and may be called again when later ones change it.
var mutating = newKind(kube.MutatingWebhookConfigurations, webhookKind[mutatingHook]{
	typeName: "mutating_webhook_configuration",
	does:     "admit and change objects",
	order:    "Webhooks are called in the order given.",
	hookAttributes: map[string]schema.Attribute{
		"reinvocation_policy": tfschema.Enum("Whether the webhook is called again, once, when later mutating admission plugins change the object after it: `IfNeeded` or `Never`.",
			string(validation.DefaultReinvocationPolicy), "Never", "IfNeeded"),
	},
	newHook: func(base webhookModel, reinvocation types.String) mutatingHook {
		return mutatingHook{base, reinvocation}
	},
})

type mutatingHook struct {
	webhookModel
	ReinvocationPolicy types.String `tfsdk:"reinvocation_policy"`
}

func (h mutatingHook) reinvocation() types.String { return h.ReinvocationPolicy }
