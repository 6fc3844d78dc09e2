// Package protocol serves the provider over plugin protocol 6 and answers,
// with the framework's own answer, the calls it can answer before
// terraform-plugin-framework's walks.
//
// Every call goes to the framework's server (providerserver.NewProtocol6)
// but these, which this package answers itself where it can:
//
//   - GetProviderSchema: the framework's schema, with the number of blocks
//     each list of blocks allows (min_items, max_items) stated;
//   - ValidateResourceConfig (validate.go), ReadResource (read.go),
//     PlanResourceChange (plan.go) and ApplyResourceChange (apply.go): the
//     framework's answer, computed without its walks over every value of
//     the request;
//   - UpgradeResourceState (upgrade.go) of a state at the schema's version:
//     the framework's answer, read from the JSON in one pass.
//
// The framework decodes every configuration, plan and state a request
// carries with walks that resolve each value's schema path from the root
// (fromproto6.DynamicValue: fwschemadata.(*Data).NullifyCollectionBlocks),
// then walks the values again to validate them, or for defaults, unknown
// values and plan modifiers: for a webhook configuration of three webhooks,
// three quarters of the provider's CPU per call. This package walks schema
// and value together once (tree.go, values.go), calls the resource's own
// methods (ValidateConfig, Read, ModifyPlan, Create, Update, Delete) with
// the framework's public request and response types, and encodes the
// answer as the framework does. It answers only for schemas whose every
// element it knows (treeOf) and only requests whose every value is one the
// framework would take without a diagnostic of its own; it leaves any
// other to the framework, before calling the resource. The tests compare
// both answers on generated requests of every resource type
// (TestFastPlansAnswerAsTheFramework), and TestAccProtocolBothWays
// runs Terraform on every resource type both ways.
//
// TF_ADMISSION_PROTOCOL=framework (ModeVariable, mode.go) serves every call
// with the framework's own server instead; FrameworkVersion
// (framework.go) is the framework version these answers were checked
// against. DESIGN.md at the repository root says why and how to upgrade.
package protocol

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfschema"
)

// Configured is a provider that tells what its last Configure answered:
// what it gave its resources (provider.ConfigureResponse.ResourceData),
// which the framework passes to each resource's Configure before each call,
// and whether it deferred them all (ConfigureResponse.Deferred), which the
// framework then answers for. Without it the fast paths do not answer.
type Configured interface {
	Configuration() (resourceData any, deferred bool)
}

// NewServer serves the provider that newProvider makes over plugin
// protocol 6 (see the package documentation).
func NewServer(newProvider func() provider.Provider) func() tfprotov6.ProviderServer {
	return func() tfprotov6.ProviderServer {
		p := newProvider()
		srv := providerserver.NewProtocol6(p)()
		s := &Server{ProviderServer: srv, provider: p}
		// The calls of list resources (terraform query), which
		// tfprotov6.ProviderServer does not include yet, go to the
		// framework's server too.
		s.list, _ = srv.(tfprotov6.ListResourceServer)
		return s
	}
}

// Server is the provider's server: the framework's, with the calls this
// package answers itself.
type Server struct {
	tfprotov6.ProviderServer
	list     tfprotov6.ListResourceServer
	provider provider.Provider

	typesOnce sync.Once
	types     map[string]*resourceType

	answered answered

	// The calls in progress, which StopProvider cancels, as the
	// framework's server cancels its own (proto6server.registerContext).
	cancelsMu sync.Mutex
	cancels   map[uint64]context.CancelFunc
	nextCall  uint64
}

var _ tfprotov6.ListResourceServer = (*Server)(nil)

// answered counts the calls this package answered itself.
type answered struct {
	validations, reads, plans, applies, upgrades atomic.Int64
}

// errNoListResources is the error of a list resource call when the
// framework's server does not serve them.
var errNoListResources = fmt.Errorf("protocol: the framework's server (%T) does not serve list resources", (*Server)(nil))

func (s *Server) ValidateListResourceConfig(ctx context.Context, req *tfprotov6.ValidateListResourceConfigRequest) (*tfprotov6.ValidateListResourceConfigResponse, error) {
	if s.list == nil {
		return nil, errNoListResources
	}
	return s.list.ValidateListResourceConfig(ctx, req)
}

func (s *Server) ListResource(ctx context.Context, req *tfprotov6.ListResourceRequest) (*tfprotov6.ListResourceServerStream, error) {
	if s.list == nil {
		return nil, errNoListResources
	}
	return s.list.ListResource(ctx, req)
}

func (s *Server) GetProviderSchema(ctx context.Context, req *tfprotov6.GetProviderSchemaRequest) (*tfprotov6.GetProviderSchemaResponse, error) {
	resp, err := s.ProviderServer.GetProviderSchema(ctx, req)
	if err != nil || resp == nil {
		return resp, err
	}
	for typeName, rt := range s.resourceTypes(ctx) {
		if protocol, ok := resp.ResourceSchemas[typeName]; ok && protocol.Block != nil {
			setBlockCounts(protocol.Block, rt.schema.Blocks)
		}
	}
	return resp, nil
}

// setBlockCounts copies the counts of the framework's blocks onto the
// protocol block of the same name, at every depth. terraform-plugin-framework
// states 0 for every list block and leaves the counts to list validators,
// which run only after Terraform has decoded the configuration; with the
// counts in the schema, Terraform checks them itself (one error, on the
// block), and the docs list a required block as required.
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

func (s *Server) StopProvider(ctx context.Context, req *tfprotov6.StopProviderRequest) (*tfprotov6.StopProviderResponse, error) {
	s.cancelsMu.Lock()
	for _, cancel := range s.cancels {
		cancel()
	}
	s.cancels = nil
	s.cancelsMu.Unlock()
	return s.ProviderServer.StopProvider(ctx, req)
}

// call is the context of a call this package answers, cancelled by
// StopProvider; done forgets it.
func (s *Server) call(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	s.cancelsMu.Lock()
	defer s.cancelsMu.Unlock()
	if s.cancels == nil {
		s.cancels = map[uint64]context.CancelFunc{}
	}
	id := s.nextCall
	s.nextCall++
	s.cancels[id] = cancel
	return ctx, func() {
		s.cancelsMu.Lock()
		delete(s.cancels, id)
		s.cancelsMu.Unlock()
		cancel()
	}
}

// resourceData is what the provider's Configure gave its resources; ok is
// false when the provider does not say (Configured) or deferred every
// resource.
func (s *Server) resourceData() (any, bool) {
	c, ok := s.provider.(Configured)
	if !ok {
		return nil, false
	}
	data, deferred := c.Configuration()
	return data, !deferred
}

// answers reports whether the fast paths may answer: the provider says
// what it configured, and deferred nothing.
func (s *Server) answers() bool {
	_, ok := s.resourceData()
	return ok
}

// configure configures a new resource as the framework does before each
// call; ok is false when Configure reports a diagnostic, which the
// framework's answer then has.
func (s *Server) configure(ctx context.Context, r resource.Resource) bool {
	rc, ok := r.(resource.ResourceWithConfigure)
	if !ok {
		return true
	}
	data, ok := s.resourceData()
	if !ok {
		return false
	}
	var resp resource.ConfigureResponse
	rc.Configure(ctx, resource.ConfigureRequest{ProviderData: data}, &resp)
	return len(resp.Diagnostics) == 0
}
