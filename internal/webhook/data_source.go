package webhook

import (
	"context"
	"strconv"

	dstimeouts "github.com/hashicorp/terraform-plugin-framework-timeouts/datasource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dsschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

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

// start reads the configuration into cfg and bounds ctx by its read
// timeout. It returns the kind's API calls, or nil when diags say why not.
func (d *dataSourceBase[H]) start(ctx context.Context, req datasource.ReadRequest, cfg any, readTimeout func() dstimeouts.Value,
	diags *diag.Diagnostics) (context.Context, context.CancelFunc, object.API[configuration]) {
	diags.Append(req.Config.Get(ctx, cfg)...)
	client := d.client.Ready(diags)
	if diags.HasError() {
		return ctx, func() {}, nil
	}
	ctx, cancel, timeoutDiags := object.WithTimeout(ctx, readTimeout().Read, object.DefaultReadTimeout)
	if diags.Append(timeoutDiags...); diags.HasError() {
		return ctx, cancel, nil
	}
	return ctx, cancel, d.kind.api.objects(client)
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
	attrs := d.kind.objectAttributes()
	attrs["name"] = dsschema.StringAttribute{Required: true, MarkdownDescription: "Name of the " + d.kind.api.name + " to read."}
	resp.Schema = dsschema.Schema{
		MarkdownDescription: "Reads one " + d.kind.api.name + " (`admissionregistration.k8s.io/v1`) by name, with every field as the server stores it, read-only metadata included.",
		Attributes:          attrs,
		Blocks:              map[string]dsschema.Block{"timeouts": dstimeouts.Block(ctx)},
	}
}

func (d *webhookDataSource[H]) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg dataSourceModel[H]
	ctx, cancel, objects := d.start(ctx, req, &cfg, func() dstimeouts.Value { return cfg.Timeouts }, &resp.Diagnostics)
	defer cancel()
	if objects == nil {
		return
	}
	name := cfg.Name.ValueString()
	obj, err := objects.Get(ctx, name)
	if err != nil {
		d.kind.report.APIError(&resp.Diagnostics, "read", name, err)
		return
	}
	if obj == nil {
		resp.Diagnostics.AddAttributeError(path.Root("name"), d.kind.api.name+" not found",
			"There is no "+d.kind.api.name+" named "+strconv.Quote(name)+" in the cluster.")
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, dataSourceModel[H]{Name: cfg.Name, objectModel: d.kind.flatten(obj, nil), Timeouts: cfg.Timeouts})...)
}

func (d *webhookListDataSource[H]) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + d.kind.typeName + "s"
}

func (d *webhookListDataSource[H]) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = dsschema.Schema{
		MarkdownDescription: "Lists " + d.kind.api.name + "s (`admissionregistration.k8s.io/v1`), optionally filtered by a label selector, sorted by name.",
		Attributes: map[string]dsschema.Attribute{
			"label_selector": dsschema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Label selector in the `kubectl -l` syntax, such as `app=injector,tier!=test`. All objects when left out.",
			},
			"id": dsschema.StringAttribute{Computed: true, MarkdownDescription: "The label selector used (empty for all)."},
			"items": dsschema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The matching objects.",
				NestedObject:        dsschema.NestedAttributeObject{Attributes: d.kind.objectAttributes()},
			},
		},
		Blocks: map[string]dsschema.Block{"timeouts": dstimeouts.Block(ctx)},
	}
}

func (d *webhookListDataSource[H]) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg listDataSourceModel[H]
	ctx, cancel, objects := d.start(ctx, req, &cfg, func() dstimeouts.Value { return cfg.Timeouts }, &resp.Diagnostics)
	defer cancel()
	if objects == nil {
		return
	}
	selector := cfg.LabelSelector.ValueString()
	items, ok := d.kind.listByLabels(ctx, objects, selector, &resp.Diagnostics)
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

// listByLabels lists the kind's objects that match a label selector. A
// selector the server rejects is reported on label_selector, any other
// failure as an API error; it returns false when it reported one.
func (k *kind[H]) listByLabels(ctx context.Context, objs object.API[configuration], selector string, diags *diag.Diagnostics) ([]configuration, bool) {
	items, err := objs.List(ctx, selector)
	switch {
	case err == nil:
		return items, true
	case apierrors.IsBadRequest(err):
		diags.AddAttributeError(path.Root("label_selector"), "Invalid label selector", err.Error())
	default:
		k.report.APIError(diags, "list", selector, err)
	}
	return nil, false
}

// objectAttributes is the resource's schema turned read-only.
func (k *kind[H]) objectAttributes() map[string]dsschema.Attribute {
	s := k.resourceSchema()
	return tfschema.Computed(s.Attributes, s.Blocks)
}
