package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfschema"
)

// NewServer serves the provider over plugin protocol 6, with the number of
// blocks each block list allows (min_items, max_items) in the schema that
// Terraform gets. terraform-plugin-framework states 0 for every list block
// and leaves the counts to list validators, which run only after Terraform
// has decoded the configuration; with the counts in the schema, Terraform
// checks them itself (one error, on the block), and the docs list a
// required block as required. The calls of list resources, which
// tfprotov6.ProviderServer does not include yet, go to the framework's
// server too (tfprotov6.ListResourceServer).
func NewServer(version string) func() tfprotov6.ProviderServer {
	return func() tfprotov6.ProviderServer {
		p := New(version)()
		srv := providerserver.NewProtocol6(p)()
		return blockCounts{srv, srv.(tfprotov6.ListResourceServer), p}
	}
}

type blockCounts struct {
	tfprotov6.ProviderServer
	tfprotov6.ListResourceServer
	provider interface {
		Resources(context.Context) []func() resource.Resource
	}
}

func (s blockCounts) GetProviderSchema(ctx context.Context, req *tfprotov6.GetProviderSchemaRequest) (*tfprotov6.GetProviderSchemaResponse, error) {
	resp, err := s.ProviderServer.GetProviderSchema(ctx, req)
	if err != nil || resp == nil {
		return resp, err
	}
	for _, newResource := range s.provider.Resources(ctx) {
		r := newResource()
		var meta resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "admission"}, &meta)
		var sch resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &sch)
		if protocol, ok := resp.ResourceSchemas[meta.TypeName]; ok && protocol.Block != nil {
			setBlockCounts(protocol.Block, sch.Schema.Blocks)
		}
	}
	return resp, nil
}

// setBlockCounts copies the counts of the framework's blocks onto the
// protocol block of the same name, at every depth.
func setBlockCounts(protocol *tfprotov6.SchemaBlock, blocks map[string]schema.Block) {
	for _, nb := range protocol.BlockTypes {
		lb, ok := blocks[nb.TypeName].(schema.ListNestedBlock)
		if !ok || nb.Block == nil {
			continue
		}
		nb.MinItems, nb.MaxItems = tfschema.Counts(lb.Validators)
		setBlockCounts(nb.Block, lb.NestedObject.Blocks)
	}
}
