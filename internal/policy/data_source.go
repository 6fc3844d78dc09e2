package policy

import (
	"context"
	"slices"

	dstimeouts "github.com/hashicorp/terraform-plugin-framework-timeouts/datasource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dsschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/object"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfschema"
)

// DataSources are the data sources of this family: per kind, one object by
// name (admission_<kind>) and the objects matching a label selector
// (admission_<kind>s).
func DataSources() []func() datasource.DataSource {
	return slices.Concat(
		dataSources(validatingPolicies),
		dataSources(validatingBindings),
		dataSources(mutatingPolicies),
		dataSources(mutatingBindings),
	)
}

// dataSources are the two data sources of kind k.
func dataSources[S, T any](k *kind[S, T]) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		func() datasource.DataSource { return &oneDataSource[S, T]{dataSourceBase[S, T]{kind: k}} },
		func() datasource.DataSource { return &listDataSource[S, T]{dataSourceBase[S, T]{kind: k}} },
	}
}

// dataSourceBase is what both data sources of a kind share: the kind and
// the provider's client.
type dataSourceBase[S, T any] struct {
	kind   *kind[S, T]
	client object.ClientHolder
}

type oneDataSource[S, T any] struct{ dataSourceBase[S, T] }

type listDataSource[S, T any] struct{ dataSourceBase[S, T] }

func (d *dataSourceBase[S, T]) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.client.Set(req.ProviderData, &resp.Diagnostics)
}

// begin bounds ctx by the read timeout of the configuration's timeouts
// block (object.ClientHolder.Begin). It returns the client, or nil when
// diags say why not.
func (d *dataSourceBase[S, T]) begin(ctx context.Context, req datasource.ReadRequest, diags *diag.Diagnostics) (context.Context, context.CancelFunc, *kube.Client) {
	var t dstimeouts.Value
	diags.Append(req.Config.GetAttribute(ctx, path.Root("timeouts"), &t)...)
	return d.client.Begin(ctx, t.Read, object.DefaultReadTimeout, diags)
}

// objectAttributes is the resource's schema turned read-only.
func (k *kind[S, T]) objectAttributes() map[string]dsschema.Attribute {
	s := k.resourceSchema()
	return tfschema.Computed(s.Attributes, s.Blocks)
}

func (d *oneDataSource[S, T]) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + d.kind.typeName
}

func (d *oneDataSource[S, T]) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = d.kind.object.DataSourceSchema(ctx, d.kind.objectAttributes())
}

func (d *oneDataSource[S, T]) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	ctx, cancel, c := d.begin(ctx, req, &resp.Diagnostics)
	defer cancel()
	if c == nil {
		return
	}
	var name types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("name"), &name)...)
	obj := d.kind.object.Find(ctx, c, name.ValueString(), &resp.Diagnostics)
	if obj == nil {
		return
	}
	resp.State.Raw = req.Config.Raw
	resp.Diagnostics.Append(d.kind.write(ctx, &resp.State, obj, nil)...)
}

func (d *listDataSource[S, T]) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + object.Plural(d.kind.typeName)
}

func (d *listDataSource[S, T]) itemAttributes() map[string]dsschema.Attribute {
	return d.kind.objectAttributes()
}

func (d *listDataSource[S, T]) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = d.kind.object.ListDataSourceSchema(ctx, "team=platform,tier!=test", d.itemAttributes())
}

func (d *listDataSource[S, T]) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	ctx, cancel, c := d.begin(ctx, req, &resp.Diagnostics)
	defer cancel()
	if c == nil {
		return
	}
	var selector types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("label_selector"), &selector)...)
	items, ok := d.kind.object.List(ctx, c, selector.ValueString(), &resp.Diagnostics)
	if !ok {
		return
	}
	itemType := dsschema.NestedAttributeObject{Attributes: d.itemAttributes()}.Type().(types.ObjectType)
	values := make([]attr.Value, 0, len(items))
	for i := range items { // the server lists them by name
		v, diags := d.kind.objectValue(ctx, itemType.AttrTypes, &items[i])
		if resp.Diagnostics.Append(diags...); diags.HasError() {
			return
		}
		values = append(values, v)
	}
	list, diags := types.ListValue(itemType, values)
	resp.Diagnostics.Append(diags...)
	resp.State.Raw = req.Config.Raw
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), selector.ValueString())...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("items"), list)...)
}
