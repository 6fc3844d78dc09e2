package protocol

import (
	"context"
	"fmt"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// ModeVariable is the environment variable that chooses the Mode the
// provider's process serves in, read once when it starts (main.go):
// "framework" serves every call with terraform-plugin-framework's own server
// (FrameworkOnly); unset, empty or "fast", the calls this package answers
// are answered here (Fast). It exists to tell whether a plan, a state or a
// diagnostic that looks wrong is this package's or the provider's: if it
// goes away with TF_ADMISSION_PROTOCOL=framework, it is this package's.
const ModeVariable = "TF_ADMISSION_PROTOCOL"

// Mode is how the provider's calls are served.
type Mode int

const (
	// Fast answers the calls listed in the package documentation here,
	// and leaves the others to the framework's server.
	Fast Mode = iota
	// FrameworkOnly serves every call with the framework's server
	// (providerserver.NewProtocol6) as it is. The one thing kept is the
	// block counts stated in the schema (GetProviderSchema): they are no
	// answer of the framework's walks, and without them Terraform would
	// validate another schema, so that the two modes would not be compared
	// on the same configurations.
	FrameworkOnly
)

func (m Mode) String() string {
	switch m {
	case Fast:
		return "fast"
	case FrameworkOnly:
		return "framework"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode is the Mode a value of ModeVariable names.
func ParseMode(value string) (Mode, error) {
	switch value {
	case "", "fast":
		return Fast, nil
	case "framework":
		return FrameworkOnly, nil
	}
	return Fast, fmt.Errorf("%s=%q: want \"framework\" (every call served by terraform-plugin-framework's own server) or \"fast\" (the default)", ModeVariable, value)
}

// ModeFromEnvironment is the Mode that ModeVariable names in the process's
// environment.
func ModeFromEnvironment() (Mode, error) {
	return ParseMode(os.Getenv(ModeVariable))
}

// NewServerMode serves the provider that newProvider makes over plugin
// protocol 6 in mode: NewServer's server for Fast, the framework's own for
// FrameworkOnly.
func NewServerMode(newProvider func() provider.Provider, mode Mode) func() tfprotov6.ProviderServer {
	if mode != FrameworkOnly {
		return NewServer(newProvider)
	}
	return func() tfprotov6.ProviderServer {
		p := newProvider()
		srv := providerserver.NewProtocol6(p)()
		fw := &FrameworkServer{ProviderServer: srv, provider: p}
		fw.list, _ = srv.(tfprotov6.ListResourceServer)
		return fw
	}
}

// FrameworkServer is the framework's server with the block counts stated
// in its schema, and nothing else of this package: it has no method that
// answers a call but GetProviderSchema, which asks the framework first.
type FrameworkServer struct {
	tfprotov6.ProviderServer
	list     tfprotov6.ListResourceServer
	provider provider.Provider
}

var _ tfprotov6.ListResourceServer = (*FrameworkServer)(nil)

func (s *FrameworkServer) GetProviderSchema(ctx context.Context, req *tfprotov6.GetProviderSchemaRequest) (*tfprotov6.GetProviderSchemaResponse, error) {
	resp, err := s.ProviderServer.GetProviderSchema(ctx, req)
	if err != nil || resp == nil {
		return resp, err
	}
	var meta provider.MetadataResponse
	s.provider.Metadata(ctx, provider.MetadataRequest{}, &meta)
	for _, newResource := range s.provider.Resources(ctx) {
		r := newResource()
		var md resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: meta.TypeName}, &md)
		var sr resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &sr)
		if sr.Diagnostics.HasError() {
			continue
		}
		if protocol, ok := resp.ResourceSchemas[md.TypeName]; ok && protocol.Block != nil {
			setBlockCounts(protocol.Block, sr.Schema.Blocks)
		}
	}
	return resp, nil
}

func (s *FrameworkServer) ValidateListResourceConfig(ctx context.Context, req *tfprotov6.ValidateListResourceConfigRequest) (*tfprotov6.ValidateListResourceConfigResponse, error) {
	if s.list == nil {
		return nil, errNoListResources
	}
	return s.list.ValidateListResourceConfig(ctx, req)
}

func (s *FrameworkServer) ListResource(ctx context.Context, req *tfprotov6.ListResourceRequest) (*tfprotov6.ListResourceServerStream, error) {
	if s.list == nil {
		return nil, errNoListResources
	}
	return s.list.ListResource(ctx, req)
}
