// Package kubernetesstandin is a test provider that stands in for
// hashicorp/kubernetes: its kubernetes_mutating_webhook_configuration_v1,
// kubernetes_validating_webhook_configuration_v1 and
// kubernetes_validating_admission_policy_v1 resources have that provider's
// schemas and write state of the same shape, so that tests can move
// resources from it to this provider with a moved block.
//
// The schemas and state it reproduces are recorded in its testdata
// directory; the tests of this package compare them.
package kubernetesstandin

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// ProviderFactories serve the stand-in as "kubernetes", which
// terraform-plugin-testing addresses as registry.terraform.io/hashicorp/kubernetes.
func ProviderFactories() map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"kubernetes": func() (tfprotov6.ProviderServer, error) {
			return sdkv2Server{providerserver.NewProtocol6(&kubernetesProvider{})()}, nil
		},
	}
}

type kubernetesProvider struct{}

type providerModel struct {
	ConfigPath    types.String `tfsdk:"config_path"`
	ConfigContext types.String `tfsdk:"config_context"`
}

func (p *kubernetesProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "kubernetes"
}

func (p *kubernetesProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		Attributes: map[string]schema.Attribute{
			"config_path":    schema.StringAttribute{Optional: true},
			"config_context": schema.StringAttribute{Optional: true},
		},
	}
}

// Configure builds the client from a kubeconfig file, like the provider's
// config_path and config_context settings (KUBECONFIG or ~/.kube/config
// when config_path is not set).
func (p *kubernetesProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var m providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if path := m.ConfigPath.ValueString(); path != "" {
		if rest, ok := strings.CutPrefix(path, "~/"); ok {
			home, err := os.UserHomeDir()
			if err != nil {
				resp.Diagnostics.AddError("Cannot expand config_path", err.Error())
				return
			}
			path = filepath.Join(home, rest)
		}
		rules.ExplicitPath = path
	}
	overrides := &clientcmd.ConfigOverrides{CurrentContext: m.ConfigContext.ValueString()}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
	if err != nil {
		resp.Diagnostics.AddError("Cannot load the kubeconfig", err.Error())
		return
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		resp.Diagnostics.AddError("Cannot create the Kubernetes client", err.Error())
		return
	}
	resp.ResourceData = kubernetes.Interface(client)
}

func (p *kubernetesProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		func() resource.Resource { return &webhookResource{mutating: true} },
		func() resource.Resource { return &webhookResource{mutating: false} },
		func() resource.Resource { return &policyResource{} },
	}
}

func (p *kubernetesProvider) DataSources(context.Context) []func() datasource.DataSource {
	return nil
}

// sdkv2Server adds to the framework's protocol server what a provider on the
// plugin SDK v2 says and the framework cannot:
//   - the min_items and max_items of blocks (helper/schema's MinItems and
//     MaxItems, which the framework leaves to validators), from itemLimits;
//   - UnsafeToUseLegacyTypeSystem on plans and applies, as
//     helper/schema.GRPCProviderServer sets it, so that Terraform accepts
//     planned defaults for attributes that are not computed and computed
//     values that change on apply, with warnings in its log.
type sdkv2Server struct {
	tfprotov6.ProviderServer
}

func (s sdkv2Server) GetProviderSchema(ctx context.Context, req *tfprotov6.GetProviderSchemaRequest) (*tfprotov6.GetProviderSchemaResponse, error) {
	resp, err := s.ProviderServer.GetProviderSchema(ctx, req)
	if err != nil || resp == nil {
		return resp, err
	}
	for _, name := range []string{mutatingType, validatingType} {
		if sch := resp.ResourceSchemas[name]; sch != nil {
			setItemLimits(sch.Block, "")
		}
	}
	return resp, nil
}

func setItemLimits(b *tfprotov6.SchemaBlock, prefix string) {
	for _, nb := range b.BlockTypes {
		path := prefix + nb.TypeName
		if l, ok := itemLimits[path]; ok {
			nb.MinItems, nb.MaxItems = l.min, l.max
		}
		setItemLimits(nb.Block, path+".")
	}
}

// sdkv2Types are the resource types that hashicorp/kubernetes serves from
// the plugin SDK v2; its kubernetes_validating_admission_policy_v1 is a
// plugin framework resource, served as is.
var sdkv2Types = map[string]bool{mutatingType: true, validatingType: true}

func (s sdkv2Server) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	resp, err := s.ProviderServer.PlanResourceChange(ctx, req)
	if resp != nil && sdkv2Types[req.TypeName] {
		resp.UnsafeToUseLegacyTypeSystem = true //nolint:staticcheck // the stand-in behaves as an SDKv2 provider does
	}
	return resp, err
}

func (s sdkv2Server) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	resp, err := s.ProviderServer.ApplyResourceChange(ctx, req)
	if resp != nil && sdkv2Types[req.TypeName] {
		resp.UnsafeToUseLegacyTypeSystem = true //nolint:staticcheck // the stand-in behaves as an SDKv2 provider does
	}
	return resp, err
}
