package mutatingwebhook

import (
	"context"
	"strconv"

	dstimeouts "github.com/hashicorp/terraform-plugin-framework-timeouts/datasource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dsschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// NewDataSource is the admission_mutating_webhook_configuration data source:
// one object, by name.
func NewDataSource() datasource.DataSource { return &webhookDataSource{} }

// NewListDataSource is the admission_mutating_webhook_configurations data
// source: the objects matching a label selector.
func NewListDataSource() datasource.DataSource { return &webhookListDataSource{} }

type webhookDataSource struct{ client clientHolder }

type webhookListDataSource struct{ client clientHolder }

type dataSourceModel struct {
	Name     types.String     `tfsdk:"name"`
	ID       types.String     `tfsdk:"id"`
	Metadata []metadataModel  `tfsdk:"metadata"`
	Webhook  []webhookModel   `tfsdk:"webhook"`
	Timeouts dstimeouts.Value `tfsdk:"timeouts"`
}

type listDataSourceModel struct {
	LabelSelector types.String     `tfsdk:"label_selector"`
	ID            types.String     `tfsdk:"id"`
	Items         []resourceModel  `tfsdk:"items"`
	Timeouts      dstimeouts.Value `tfsdk:"timeouts"`
}

func (d *webhookDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_mutating_webhook_configuration"
}

func (d *webhookDataSource) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := objectAttributes()
	attrs["name"] = dsschema.StringAttribute{Required: true, MarkdownDescription: "Name of the MutatingWebhookConfiguration to read."}
	resp.Schema = dsschema.Schema{
		MarkdownDescription: "Reads one MutatingWebhookConfiguration (`admissionregistration.k8s.io/v1`) by name, with every field as the server stores it, read-only metadata included.",
		Attributes:          attrs,
		Blocks:              map[string]dsschema.Block{"timeouts": dstimeouts.Block(ctx)},
	}
}

func (d *webhookDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.client.set(req.ProviderData, &resp.Diagnostics)
}

func (d *webhookDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg dataSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	client := d.client.ready(&resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, diags := withTimeout(ctx, cfg.Timeouts.Read, defaultReadTimeout)
	defer cancel()
	if resp.Diagnostics.Append(diags...); diags.HasError() {
		return
	}
	name := cfg.Name.ValueString()
	obj, err := client.GetMutatingWebhookConfiguration(ctx, name)
	if err != nil {
		addAPIError(&resp.Diagnostics, "read", name, err)
		return
	}
	if obj == nil {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "MutatingWebhookConfiguration not found",
			"There is no MutatingWebhookConfiguration named "+strconv.Quote(name)+" in the cluster.")
		return
	}
	m := flatten(obj, nil)
	resp.Diagnostics.Append(resp.State.Set(ctx, dataSourceModel{Name: cfg.Name, ID: m.ID, Metadata: m.Metadata, Webhook: m.Webhook, Timeouts: cfg.Timeouts})...)
}

func (d *webhookListDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_mutating_webhook_configurations"
}

func (d *webhookListDataSource) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = dsschema.Schema{
		MarkdownDescription: "Lists MutatingWebhookConfigurations (`admissionregistration.k8s.io/v1`), optionally filtered by a label selector, sorted by name.",
		Attributes: map[string]dsschema.Attribute{
			"label_selector": dsschema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Label selector in the `kubectl -l` syntax, such as `app=injector,tier!=test`. All objects when left out.",
			},
			"id": dsschema.StringAttribute{Computed: true, MarkdownDescription: "The label selector used (empty for all)."},
			"items": dsschema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The matching objects.",
				NestedObject:        dsschema.NestedAttributeObject{Attributes: objectAttributes()},
			},
		},
		Blocks: map[string]dsschema.Block{"timeouts": dstimeouts.Block(ctx)},
	}
}

func (d *webhookListDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.client.set(req.ProviderData, &resp.Diagnostics)
}

func (d *webhookListDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg listDataSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	client := d.client.ready(&resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, diags := withTimeout(ctx, cfg.Timeouts.Read, defaultReadTimeout)
	defer cancel()
	if resp.Diagnostics.Append(diags...); diags.HasError() {
		return
	}
	selector := cfg.LabelSelector.ValueString()
	items, err := client.ListMutatingWebhookConfigurations(ctx, selector)
	if err != nil {
		if apierrors.IsBadRequest(err) {
			resp.Diagnostics.AddAttributeError(path.Root("label_selector"), "Invalid label selector", err.Error())
			return
		}
		addAPIError(&resp.Diagnostics, "list", selector, err)
		return
	}
	cfg.ID = types.StringValue(selector)
	cfg.Items = make([]resourceModel, 0, len(items))
	sortByName(items)
	for i := range items {
		cfg.Items = append(cfg.Items, flatten(&items[i], nil))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, cfg)...)
}

// objectAttributes is the resource's schema turned read-only: every block
// becomes a computed list of objects with the same names.
func objectAttributes() map[string]dsschema.Attribute {
	s := resourceSchema()
	return computedAttributes(s.Attributes, s.Blocks)
}

func computedAttributes(attrs map[string]rschema.Attribute, blocks map[string]rschema.Block) map[string]dsschema.Attribute {
	out := make(map[string]dsschema.Attribute, len(attrs)+len(blocks))
	for name, a := range attrs {
		desc := a.GetMarkdownDescription()
		switch a := a.(type) {
		case rschema.StringAttribute:
			out[name] = dsschema.StringAttribute{Computed: true, MarkdownDescription: desc}
		case rschema.Int64Attribute:
			out[name] = dsschema.Int64Attribute{Computed: true, MarkdownDescription: desc}
		case rschema.BoolAttribute:
			out[name] = dsschema.BoolAttribute{Computed: true, MarkdownDescription: desc}
		case rschema.ListAttribute:
			out[name] = dsschema.ListAttribute{Computed: true, ElementType: a.ElementType, MarkdownDescription: desc}
		case rschema.MapAttribute:
			out[name] = dsschema.MapAttribute{Computed: true, ElementType: a.ElementType, MarkdownDescription: desc}
		default:
			panic("computedAttributes: no read-only form for attribute " + name)
		}
	}
	for name, b := range blocks {
		lb := b.(rschema.ListNestedBlock)
		out[name] = dsschema.ListNestedAttribute{
			Computed:            true,
			MarkdownDescription: lb.MarkdownDescription,
			NestedObject: dsschema.NestedAttributeObject{
				Attributes: computedAttributes(lb.NestedObject.Attributes, lb.NestedObject.Blocks),
			},
		}
	}
	return out
}
