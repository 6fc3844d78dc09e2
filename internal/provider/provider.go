// Package provider is the admission provider: its connection settings and the
// resources, data sources and list resources it serves.
package provider

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/functions"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/policy"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/protocol"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/webhook"
)

// New returns a constructor of the provider at the given version.
func New(version string) func() provider.Provider {
	return func() provider.Provider { return &admissionProvider{version: version} }
}

type admissionProvider struct {
	version string
	// configured is what the last Configure answered, which the protocol
	// server passes to the resources it calls (protocol.Configured).
	configured atomic.Pointer[configuration]
}

type configuration struct {
	resourceData any
	deferred     bool
}

// Configuration is what the last Configure gave the resources, and whether
// it deferred them (protocol.Configured).
func (p *admissionProvider) Configuration() (resourceData any, deferred bool) {
	if c := p.configured.Load(); c != nil {
		return c.resourceData, c.deferred
	}
	return nil, false
}

var (
	_ provider.Provider                  = (*admissionProvider)(nil)
	_ provider.ProviderWithListResources = (*admissionProvider)(nil)
	_ protocol.Configured                = (*admissionProvider)(nil)
)

type providerModel struct {
	Host                  types.String `tfsdk:"host"`
	Username              types.String `tfsdk:"username"`
	Password              types.String `tfsdk:"password"`
	Token                 types.String `tfsdk:"token"`
	Insecure              types.Bool   `tfsdk:"insecure"`
	TLSServerName         types.String `tfsdk:"tls_server_name"`
	ClientCertificate     types.String `tfsdk:"client_certificate"`
	ClientKey             types.String `tfsdk:"client_key"`
	ClusterCACertificate  types.String `tfsdk:"cluster_ca_certificate"`
	ConfigPath            types.String `tfsdk:"config_path"`
	ConfigPaths           types.List   `tfsdk:"config_paths"`
	ConfigContext         types.String `tfsdk:"config_context"`
	ConfigContextAuthInfo types.String `tfsdk:"config_context_auth_info"`
	ConfigContextCluster  types.String `tfsdk:"config_context_cluster"`
	ProxyURL              types.String `tfsdk:"proxy_url"`
	Exec                  []execModel  `tfsdk:"exec"`
	FieldManager          types.String `tfsdk:"field_manager"`
	ForceConflicts        types.Bool   `tfsdk:"force_conflicts"`
	DryRunOnPlan          types.Bool   `tfsdk:"dry_run_on_plan"`
	KubernetesVersion     types.String `tfsdk:"kubernetes_version"`
	ImpactMaxObjects      types.Int64  `tfsdk:"impact_max_objects"`
	ImpactTimeout         types.String `tfsdk:"impact_timeout"`
	CABundleExpiryWarning types.String `tfsdk:"ca_bundle_expiry_warning"`
	WebhookTLSCheck       types.Bool   `tfsdk:"webhook_tls_check_on_plan"`
	ProveWebhooks         types.Bool   `tfsdk:"prove_webhooks"`
	WaitForEnforcement    types.Bool   `tfsdk:"wait_for_enforcement"`
}

type execModel struct {
	APIVersion types.String `tfsdk:"api_version"`
	Command    types.String `tfsdk:"command"`
	Args       types.List   `tfsdk:"args"`
	Env        types.Map    `tfsdk:"env"`
}

func (p *admissionProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "admission"
	resp.Version = p.version
}

func (p *admissionProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	str := func(desc string, sensitive bool) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, Sensitive: sensitive, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Manages Kubernetes admission control objects (`admissionregistration.k8s.io/v1`). " +
			"The connection settings are those of the `hashicorp/kubernetes` provider, with the same environment variables; " +
			"a value in the configuration wins over the environment.",
		Attributes: map[string]schema.Attribute{
			"host":                     str("The address of the Kubernetes API server, as a URL or `host:port`. Environment: `KUBE_HOST`.", false),
			"username":                 str("Username for HTTP basic authentication. Environment: `KUBE_USER`.", false),
			"password":                 str("Password for HTTP basic authentication. Environment: `KUBE_PASSWORD`.", true),
			"token":                    str("Bearer token to authenticate with. Environment: `KUBE_TOKEN`.", true),
			"tls_server_name":          str("Server name to check the server's certificate against, when it differs from the host. Environment: `KUBE_TLS_SERVER_NAME`.", false),
			"client_certificate":       str("PEM client certificate for TLS authentication. Environment: `KUBE_CLIENT_CERT_DATA`.", false),
			"client_key":               str("PEM private key of `client_certificate`. Environment: `KUBE_CLIENT_KEY_DATA`.", true),
			"cluster_ca_certificate":   str("PEM certificate authority that signed the API server's certificate. Environment: `KUBE_CLUSTER_CA_CERT_DATA`.", false),
			"config_path":              str("Path to a kubeconfig file. Environment: `KUBE_CONFIG_PATH`. Conflicts with `config_paths`.", false),
			"config_context":           str("Context of the kubeconfig to use instead of its current context. Environment: `KUBE_CTX`.", false),
			"config_context_auth_info": str("User of the kubeconfig to use instead of the context's. Environment: `KUBE_CTX_AUTH_INFO`.", false),
			"config_context_cluster":   str("Cluster of the kubeconfig to use instead of the context's. Environment: `KUBE_CTX_CLUSTER`.", false),
			"proxy_url":                str("URL of a proxy to reach the API server through. Environment: `KUBE_PROXY_URL`.", false),
			"insecure": schema.BoolAttribute{
				Optional:            true,
				MarkdownDescription: "Skip verification of the server's TLS certificate. Only for throwaway clusters: anyone on the path can read and change the traffic. Environment: `KUBE_INSECURE`.",
			},
			"config_paths": schema.ListAttribute{
				Optional:            true,
				ElementType:         types.StringType,
				MarkdownDescription: "Paths to kubeconfig files, merged in order as kubectl merges `KUBECONFIG`. Environment: `KUBE_CONFIG_PATHS` (separated by `:`). Conflicts with `config_path`.",
			},
			"field_manager": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Field manager name for server-side apply. Default: `" + kube.DefaultFieldManager + "`.",
			},
			"force_conflicts": schema.BoolAttribute{
				Optional:            true,
				MarkdownDescription: "Take over fields that another field manager owns instead of failing on the conflict. Default: `false`.",
			},
			"kubernetes_version": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: kubernetesVersionDescription,
			},
			"impact_max_objects":        schema.Int64Attribute{Optional: true, MarkdownDescription: impactMaxObjectsDescription},
			"impact_timeout":            schema.StringAttribute{Optional: true, MarkdownDescription: impactTimeoutDescription},
			"ca_bundle_expiry_warning":  schema.StringAttribute{Optional: true, MarkdownDescription: caBundleExpiryWarningDescription},
			"webhook_tls_check_on_plan": schema.BoolAttribute{Optional: true, MarkdownDescription: webhookTLSCheckDescription},
			"prove_webhooks":            schema.BoolAttribute{Optional: true, MarkdownDescription: proveWebhooksDescription},
			"wait_for_enforcement":      schema.BoolAttribute{Optional: true, MarkdownDescription: waitForEnforcementDescription},
			"dry_run_on_plan": schema.BoolAttribute{
				Optional:            true,
				MarkdownDescription: "During plan, send each planned object to the API server as a dry-run apply, so that anything the server would reject fails the plan. Skipped when the server cannot be reached or forbids it. Default: `true`.",
			},
		},
		Blocks: map[string]schema.Block{
			"exec": schema.ListNestedBlock{
				MarkdownDescription: "A client-go credential plugin that prints an `ExecCredential`, as in a kubeconfig's `users[].user.exec`.",
				Validators:          []validator.List{listvalidator.SizeAtMost(1)},
				NestedObject: schema.NestedBlockObject{
					Attributes: map[string]schema.Attribute{
						"api_version": schema.StringAttribute{Required: true, MarkdownDescription: "API version of the `ExecCredential`, for example `client.authentication.k8s.io/v1`."},
						"command":     schema.StringAttribute{Required: true, MarkdownDescription: "Command to run."},
						"args":        schema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Arguments of the command."},
						"env":         schema.MapAttribute{Optional: true, Sensitive: true, ElementType: types.StringType, MarkdownDescription: "Environment variables for the command."},
					},
				},
			},
		},
	}
}

func (p *admissionProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	// The framework keeps what Configure answered, errors or not
	// (fwserver.(*Server).ConfigureProvider): so does the provider.
	defer func() {
		p.configured.Store(&configuration{resourceData: resp.ResourceData, deferred: resp.Deferred != nil})
	}()
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}

	opts := kube.Options{
		FieldManager:   cfg.FieldManager.ValueString(),
		ForceConflicts: cfg.ForceConflicts.ValueBool(),
		DryRunOnPlan:   cfg.DryRunOnPlan.IsNull() || cfg.DryRunOnPlan.ValueBool(),
		// On unless set to false.
		WaitForEnforcement: cfg.WaitForEnforcement.IsNull() || cfg.WaitForEnforcement.ValueBool(),
		UserAgent:          fmt.Sprintf("terraform-provider-admission/%s", p.version),
		KubernetesVersion:  kubernetesVersion(cfg.KubernetesVersion, &resp.Diagnostics),
	}
	opts.NoWebhookProof = !proveWebhooks(cfg.ProveWebhooks, &resp.Diagnostics)
	opts.ImpactMaxObjects, opts.ImpactTimeout = impactBounds(cfg.ImpactMaxObjects, cfg.ImpactTimeout, &resp.Diagnostics)
	opts.CABundleExpiryWarning = caBundleExpiryWarning(cfg.CABundleExpiryWarning, &resp.Diagnostics)
	opts.NoWebhookTLSCheck = !cfg.WebhookTLSCheck.IsNull() && !cfg.WebhookTLSCheck.ValueBool()
	if resp.Diagnostics.HasError() {
		return
	}

	var client *kube.Client
	if unknown := unknownSetting(cfg); unknown != "" {
		// A cluster made in the same run: connect at apply, when it is known.
		tflog.Info(ctx, "provider configuration not known until apply", map[string]any{"attribute": unknown})
		client = kube.NotReady(fmt.Errorf("%w: %s depends on values known only after apply", kube.ErrNotReady, unknown))
		// The checks at plan still follow kubernetes_version, and those of certificates
		// their settings.
		client.KubernetesVersion = opts.KubernetesVersion
		client.CABundleExpiryWarning, client.NoWebhookTLSCheck = opts.CABundleExpiryWarning, opts.NoWebhookTLSCheck
	} else {
		settings, diags := settingsFrom(ctx, cfg)
		resp.Diagnostics.Append(diags...)
		if resp.Diagnostics.HasError() {
			return
		}
		if settings.Insecure != nil && *settings.Insecure {
			resp.Diagnostics.AddAttributeWarning(path.Root("insecure"), "TLS verification is off",
				"insecure = true skips verification of the API server's certificate: anyone on the network path can read and change the traffic, credentials included. Use cluster_ca_certificate instead.")
		}
		restCfg, err := kube.RESTConfig(settings)
		if err != nil {
			addSettingError(&resp.Diagnostics, err)
			return
		}
		client, err = kube.NewClient(restCfg, opts)
		if err != nil {
			resp.Diagnostics.AddError("Cannot create the Kubernetes client", err.Error())
			return
		}
	}
	resp.ResourceData = client
	resp.DataSourceData = client
	resp.ListResourceData = client
}

func (p *admissionProvider) Resources(context.Context) []func() resource.Resource {
	return append(webhook.Resources(), policy.Resources()...)
}

func (p *admissionProvider) DataSources(context.Context) []func() datasource.DataSource {
	return append(append(webhook.DataSources(), policy.DataSources()...), functions.DataSources()...)
}

func (p *admissionProvider) ListResources(context.Context) []func() list.ListResource {
	return append(webhook.ListResources(), policy.ListResources()...)
}

// unknownSetting names a connection setting whose value is not known yet.
func unknownSetting(cfg providerModel) string {
	values := map[string]attr.Value{
		"host": cfg.Host, "username": cfg.Username, "password": cfg.Password, "token": cfg.Token,
		"insecure": cfg.Insecure, "tls_server_name": cfg.TLSServerName,
		"client_certificate": cfg.ClientCertificate, "client_key": cfg.ClientKey,
		"cluster_ca_certificate": cfg.ClusterCACertificate, "config_path": cfg.ConfigPath,
		"config_paths": cfg.ConfigPaths, "config_context": cfg.ConfigContext,
		"config_context_auth_info": cfg.ConfigContextAuthInfo, "config_context_cluster": cfg.ConfigContextCluster,
		"proxy_url": cfg.ProxyURL,
	}
	for _, e := range cfg.Exec {
		values["exec"] = e.Command
		values["exec.args"] = e.Args
		values["exec.env"] = e.Env
		values["exec.api_version"] = e.APIVersion
	}
	for name, v := range values {
		if !isKnown(v) {
			return name
		}
	}
	return ""
}

// isKnown reports whether a value and, for a collection, all its elements are known.
func isKnown(v attr.Value) bool {
	if v.IsUnknown() {
		return false
	}
	var elems []attr.Value
	switch c := v.(type) {
	case types.List:
		elems = c.Elements()
	case types.Map:
		for _, e := range c.Elements() {
			elems = append(elems, e)
		}
	}
	for _, e := range elems {
		if !isKnown(e) {
			return false
		}
	}
	return true
}
