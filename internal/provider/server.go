package provider

import (
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/protocol"
)

// NewServer serves the provider at version over plugin protocol 6, as
// main.go and the acceptance tests serve it: the framework's server, with
// the calls that internal/protocol answers before the framework's walks.
func NewServer(version string) func() tfprotov6.ProviderServer {
	return protocol.NewServer(New(version))
}
