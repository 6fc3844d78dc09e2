package provider

import (
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/protocol"
)

// NewServer serves the provider at version over plugin protocol 6 in the
// mode that TF_ADMISSION_PROTOCOL names (protocol.ModeVariable), as the
// acceptance tests serve it: by default the framework's server, with the
// calls that internal/protocol answers before the framework's walks. It
// panics on a value of TF_ADMISSION_PROTOCOL that names no mode: main.go
// reads it first and exits with the error.
func NewServer(version string) func() tfprotov6.ProviderServer {
	mode, err := protocol.ModeFromEnvironment()
	if err != nil {
		panic(err)
	}
	return NewServerMode(version, mode)
}

// NewServerMode serves the provider at version over plugin protocol 6 in
// mode (protocol.NewServerMode).
func NewServerMode(version string, mode protocol.Mode) func() tfprotov6.ProviderServer {
	return protocol.NewServerMode(New(version), mode)
}
