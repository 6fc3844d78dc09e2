package core

import (
	"context"
	"slices"
	"strconv"
	"strings"

	dstimeouts "github.com/hashicorp/terraform-plugin-framework-timeouts/datasource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dsschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfschema"
)

// Every kind has two data sources: admission_<kind> reads one object by
// name, admission_<kinds> lists the objects that match a label selector.
// Both give up at once when no answer comes back (kube.FailFast), as the
// checks at plan do: a data source is read during plan.

// DataSources are the constructors of the two data sources of the kind d.
func DataSources[M Model, T any](d *Description[M, T]) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		func() datasource.DataSource { return &DataSource[M, T]{Kind: d.ready()} },
		func() datasource.DataSource { return &ListDataSource[M, T]{Kind: d.ready()} },
	}
}

// DataSource reads one object of a kind by name: admission_<TypeName>.
type DataSource[M Model, T any] struct {
	Kind   *Description[M, T]
	client ClientHolder
}

// ListDataSource lists the objects of a kind that match a label selector:
// admission_<TypeName>s.
type ListDataSource[M Model, T any] struct {
	Kind   *Description[M, T]
	client ClientHolder
}

// dataSourceExtra is what the data source that reads one object has beside
// the object's attributes.
type dataSourceExtra struct {
	Name     types.String     `tfsdk:"name"`
	Timeouts dstimeouts.Value `tfsdk:"timeouts"`
}

// listDataSourceModel is the list data source's value.
type listDataSourceModel[M Model] struct {
	LabelSelector types.String     `tfsdk:"label_selector"`
	ID            types.String     `tfsdk:"id"`
	Items         []M              `tfsdk:"items"`
	Timeouts      dstimeouts.Value `tfsdk:"timeouts"`
}

// ObjectAttributes is the resource's schema turned read-only.
func (d *Description[M, T]) ObjectAttributes() map[string]dsschema.Attribute {
	s := d.ResourceSchema()
	return tfschema.Computed(s.Attributes, s.Blocks)
}

func (ds *DataSource[M, T]) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + ds.Kind.TypeName
}

func (ds *DataSource[M, T]) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	ds.client.Set(req.ProviderData, &resp.Diagnostics)
}

func (ds *DataSource[M, T]) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	k := ds.Kind
	attrs := k.ObjectAttributes()
	attrs["name"] = dsschema.StringAttribute{Required: true, MarkdownDescription: "Name of the " + k.API.Kind + " to read."}
	resp.Schema = dsschema.Schema{
		MarkdownDescription: "Reads one " + k.API.Kind + " (`admissionregistration.k8s.io/v1`) by name, with every field as the server stores it, read-only metadata included.",
		Attributes:          attrs,
		Blocks:              map[string]dsschema.Block{"timeouts": dstimeouts.Block(ctx)},
	}
}

func (ds *DataSource[M, T]) types(ctx context.Context) *typeNode {
	return ds.Kind.schemas.dataSource.get(ctx, func() attr.Type {
		var resp datasource.SchemaResponse
		ds.Schema(ctx, datasource.SchemaRequest{}, &resp)
		return resp.Schema.Type()
	})
}

func (ds *DataSource[M, T]) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m M
	var extra dataSourceExtra
	resp.Diagnostics.Append(decode(ctx, ds.types(ctx), req.Config.Raw, &m, &extra)...)
	ctx, cancel, c := ds.client.Begin(kube.FailFast(ctx), extra.Timeouts.Read, DefaultReadTimeout, &resp.Diagnostics)
	defer cancel()
	if c == nil {
		return
	}
	k, name := ds.Kind, extra.Name.ValueString()
	obj, err := k.API.Objects(c).Get(ctx, name)
	if err != nil {
		k.report.APIError(&resp.Diagnostics, "read", name, err)
		return
	}
	if obj == nil {
		resp.Diagnostics.AddAttributeError(path.Root("name"), k.API.Kind+" not found",
			"There is no "+k.API.Kind+" named "+strconv.Quote(name)+" in the cluster.")
		return
	}
	m = k.FlattenStored(obj)
	raw, diags := encode(ctx, ds.types(ctx), &m, &extra)
	if resp.Diagnostics.Append(diags...); !diags.HasError() {
		resp.State.Raw = raw
	}
}

func (ds *ListDataSource[M, T]) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + Plural(ds.Kind.TypeName)
}

func (ds *ListDataSource[M, T]) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	ds.client.Set(req.ProviderData, &resp.Diagnostics)
}

func (ds *ListDataSource[M, T]) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	k := ds.Kind
	resp.Schema = dsschema.Schema{
		MarkdownDescription: "Lists " + Plural(k.API.Kind) + " (`admissionregistration.k8s.io/v1`), optionally filtered by a label selector, sorted by name.",
		Attributes: map[string]dsschema.Attribute{
			"label_selector": dsschema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Label selector in the `kubectl -l` syntax, such as `" + k.SelectorExample + "`. All objects when left out.",
			},
			"id": dsschema.StringAttribute{Computed: true, MarkdownDescription: "The label selector used (empty for all)."},
			"items": dsschema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The matching objects.",
				NestedObject:        dsschema.NestedAttributeObject{Attributes: k.ObjectAttributes()},
			},
		},
		Blocks: map[string]dsschema.Block{"timeouts": dstimeouts.Block(ctx)},
	}
}

func (ds *ListDataSource[M, T]) types(ctx context.Context) *typeNode {
	return ds.Kind.schemas.listDataSource.get(ctx, func() attr.Type {
		var resp datasource.SchemaResponse
		ds.Schema(ctx, datasource.SchemaRequest{}, &resp)
		return resp.Schema.Type()
	})
}

func (ds *ListDataSource[M, T]) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg listDataSourceModel[M]
	resp.Diagnostics.Append(decode(ctx, ds.types(ctx), req.Config.Raw, &cfg)...)
	ctx, cancel, c := ds.client.Begin(kube.FailFast(ctx), cfg.Timeouts.Read, DefaultReadTimeout, &resp.Diagnostics)
	defer cancel()
	if c == nil {
		return
	}
	selector := cfg.LabelSelector.ValueString()
	items, ok := ds.Kind.list(ctx, c, selector, &resp.Diagnostics)
	if !ok {
		return
	}
	cfg.ID = types.StringValue(selector)
	cfg.Items = make([]M, 0, len(items))
	items = Pick(ds.Kind, items, types.StringNull(), 0)
	for i := range items {
		cfg.Items = append(cfg.Items, ds.Kind.FlattenStored(&items[i]))
	}
	raw, diags := encode(ctx, ds.types(ctx), &cfg)
	if resp.Diagnostics.Append(diags...); !diags.HasError() {
		resp.State.Raw = raw
	}
}

// list lists the objects that match a label selector. A selector the
// server rejects is reported on label_selector, any other failure as an API
// error that names the selector; it returns false when it reported one.
func (d *Description[M, T]) list(ctx context.Context, c *kube.Client, selector string, diags *diag.Diagnostics) ([]T, bool) {
	items, err := d.API.Objects(c).List(ctx, selector)
	if err != nil {
		d.listError(selector, err, diags)
		return nil, false
	}
	return items, true
}

// listError reports a failed list of the objects that match selector.
func (d *Description[M, T]) listError(selector string, err error, diags *diag.Diagnostics) {
	if apierrors.IsBadRequest(err) {
		diags.AddAttributeError(path.Root("label_selector"), "Invalid label selector", err.Error())
		return
	}
	summary := "Cannot list " + Plural(d.API.Kind)
	if selector != "" {
		summary += " with label selector " + strconv.Quote(selector)
	}
	diags.AddError(summary, Explain(err, d.API.Resource))
}

// Pick keeps the objects named name (all when name is null), sorted by
// name, at most limit of them (all when limit is not positive). It sorts
// items in place and returns the part kept.
func Pick[M Model, T any](d *Description[M, T], items []T, name types.String, limit int64) []T {
	if !name.IsNull() {
		items = slices.DeleteFunc(items, func(o T) bool { return d.Meta(&o).Name != name.ValueString() })
	}
	slices.SortFunc(items, func(a, b T) int { return strings.Compare(d.Meta(&a).Name, d.Meta(&b).Name) })
	if limit > 0 && int64(len(items)) > limit {
		items = items[:limit]
	}
	return items
}

// Plural is the plural of a kind or type name: policies, bindings,
// configurations.
func Plural(name string) string {
	if base, ok := strings.CutSuffix(name, "y"); ok {
		return base + "ies"
	}
	if base, ok := strings.CutSuffix(name, "Y"); ok {
		return base + "IES"
	}
	return name + "s"
}
