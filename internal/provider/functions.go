package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/provider"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/functions"
)

var _ provider.ProviderWithFunctions = (*admissionProvider)(nil)

// Functions are the provider's functions (internal/functions): validate,
// mutate, webhooks and admit, which answer offline what the API server does
// with an admission request.
func (p *admissionProvider) Functions(context.Context) []func() function.Function {
	return functions.All()
}
