package webhook

import (
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
)

// validating is admission_validating_webhook_configuration: webhooks that
// admit or reject objects, called in parallel after every mutation; their
// webhook block is the common one.
var validating = newKind(kube.ValidatingWebhookConfigurations, webhookKind[webhookModel]{
	typeName: "validating_webhook_configuration",
	does:     "admit or reject objects, after every mutation",
	order:    "Webhooks are called in parallel, in no set order.",
	newHook:  func(base webhookModel, _ types.String) webhookModel { return base },
})
