package webhook

import (
	"context"

	dstimeouts "github.com/hashicorp/terraform-plugin-framework-timeouts/datasource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dsschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/object"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfschema"
)

// DataSources are the data sources of this family: per kind, one object by
// name (admission_<kind>) and the objects matching a label selector
// (admission_<kind>s).
func DataSources() []func() datasource.DataSource {
	return []func() datasource.DataSource{
		func() datasource.DataSource {
			return &webhookDataSource[mutatingHook]{dataSourceBase[mutatingHook]{kind: mutating}}
		},
		func() datasource.DataSource {
			return &webhookListDataSource[mutatingHook]{dataSourceBase[mutatingHook]{kind: mutating}}
		},
		func() datasource.DataSource {
			return &webhookDataSource[webhookModel]{dataSourceBase[webhookModel]{kind: validating}}
		},
		func() datasource.DataSource {
			return &webhookListDataSource[webhookModel]{dataSourceBase[webhookModel]{kind: validating}}
		},
	}
}

type webhookDataSource[H hook] struct{ dataSourceBase[H] }

type webhookListDataSource[H hook] struct{ dataSourceBase[H] }

// dataSourceBase is what both data sources of a kind share: the kind and
// the provider's client.
type dataSourceBase[H hook] struct {
	kind   *kind[H]
	client object.ClientHolder
}

func (d *dataSourceBase[H]) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.client.Set(req.ProviderData, &resp.Diagnostics)
}

type dataSourceModel[H hook] struct {
	Name types.String `tfsdk:"name"`
	objectModel[H]
	Timeouts dstimeouts.Value `tfsdk:"timeouts"`
}

type listDataSourceModel[H hook] struct {
	LabelSelector types.String     `tfsdk:"label_selector"`
	ID            types.String     `tfsdk:"id"`
	Items         []objectModel[H] `tfsdk:"items"`
	Timeouts      dstimeouts.Value `tfsdk:"timeouts"`
}

func (d *webhookDataSource[H]) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + d.kind.typeName
}

func (d *webhookDataSource[H]) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = d.kind.object.DataSourceSchema(ctx, d.kind.objectAttributes())
}

func (d *webhookDataSource[H]) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg dataSourceModel[H]
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	ctx, cancel, c := d.client.Begin(ctx, cfg.Timeouts.Read, object.DefaultReadTimeout, &resp.Diagnostics)
	defer cancel()
	if c == nil {
		return
	}
	obj := d.kind.object.Find(ctx, c, cfg.Name.ValueString(), &resp.Diagnostics)
	if obj == nil {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, dataSourceModel[H]{Name: cfg.Name, objectModel: d.kind.flatten(obj, nil), Timeouts: cfg.Timeouts})...)
}

func (d *webhookListDataSource[H]) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + object.Plural(d.kind.typeName)
}

func (d *webhookListDataSource[H]) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = d.kind.object.ListDataSourceSchema(ctx, "app=injector,tier!=test", d.kind.objectAttributes())
}

func (d *webhookListDataSource[H]) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg listDataSourceModel[H]
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	ctx, cancel, c := d.client.Begin(ctx, cfg.Timeouts.Read, object.DefaultReadTimeout, &resp.Diagnostics)
	defer cancel()
	if c == nil {
		return
	}
	selector := cfg.LabelSelector.ValueString()
	items, ok := d.kind.object.List(ctx, c, selector, &resp.Diagnostics)
	if !ok {
		return
	}
	cfg.ID = types.StringValue(selector)
	cfg.Items = make([]objectModel[H], 0, len(items))
	items = pick(items, types.StringNull(), 0)
	for i := range items {
		cfg.Items = append(cfg.Items, d.kind.flatten(&items[i], nil))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, cfg)...)
}

// objectAttributes is the resource's schema turned read-only.
func (k *kind[H]) objectAttributes() map[string]dsschema.Attribute {
	s := k.resourceSchema()
	return tfschema.Computed(s.Attributes, s.Blocks)
}
