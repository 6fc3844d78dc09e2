package webhook

import (
	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
)

// clientHolder keeps the provider's client for a resource or data source.
type clientHolder struct{ c *kube.Client }

func (h *clientHolder) set(data any, diags *diag.Diagnostics) { h.c = clientFrom(data, diags) }

// ready returns the client, or reports on diags why there is none.
func (h *clientHolder) ready(diags *diag.Diagnostics) *kube.Client {
	switch {
	case h.c == nil:
		diags.AddError("Provider not configured", "The admission provider has no connection to a cluster. This is a bug in the provider.")
	case h.c.Ready() != nil:
		diags.AddError("Provider not configured", h.c.Ready().Error())
	}
	return h.c
}
