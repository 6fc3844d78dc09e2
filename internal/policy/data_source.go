package policy

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

// start bounds ctx by the read timeout of the configuration's timeouts
// block. It returns the kind's API calls, or nil when diags say why not.
func (d *dataSourceBase[S, T]) start(ctx context.Context, req datasource.ReadRequest, diags *diag.Diagnostics) (context.Context, context.CancelFunc, object.API[T]) {
	var t dstimeouts.Value
	diags.Append(req.Config.GetAttribute(ctx, path.Root("timeouts"), &t)...)
	client := d.client.Ready(diags)
	if diags.HasError() {
		return ctx, func() {}, nil
	}
	ctx, cancel, timeoutDiags := object.WithTimeout(ctx, t.Read, object.DefaultReadTimeout)
	if diags.Append(timeoutDiags...); diags.HasError() {
		return ctx, cancel, nil
	}
	return ctx, cancel, d.kind.api.objects(client)
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
	attrs := d.kind.objectAttributes()
	attrs["name"] = dsschema.StringAttribute{Required: true, MarkdownDescription: "Name of the " + d.kind.api.name + " to read."}
	resp.Schema = dsschema.Schema{
		MarkdownDescription: "Reads one " + d.kind.api.name + " (`admissionregistration.k8s.io/v1`) by name, with every field as the server stores it, read-only metadata included.",
		Attributes:          attrs,
		Blocks:              map[string]dsschema.Block{"timeouts": dstimeouts.Block(ctx)},
	}
}

func (d *oneDataSource[S, T]) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	ctx, cancel, objects := d.start(ctx, req, &resp.Diagnostics)
	defer cancel()
	if objects == nil {
		return
	}
	var name types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("name"), &name)...)
	obj, err := objects.Get(ctx, name.ValueString())
	if err != nil {
		d.kind.report.APIError(&resp.Diagnostics, "read", name.ValueString(), err)
		return
	}
	if obj == nil {
		resp.Diagnostics.AddAttributeError(path.Root("name"), d.kind.api.name+" not found",
			"There is no "+d.kind.api.name+" named "+strconv.Quote(name.ValueString())+" in the cluster.")
		return
	}
	resp.State.Raw = req.Config.Raw
	resp.Diagnostics.Append(d.kind.write(ctx, &resp.State, obj, nil)...)
}

func (d *listDataSource[S, T]) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + plural(d.kind.typeName)
}

func (d *listDataSource[S, T]) itemAttributes() map[string]dsschema.Attribute {
	return d.kind.objectAttributes()
}

func (d *listDataSource[S, T]) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = dsschema.Schema{
		MarkdownDescription: "Lists " + plural(d.kind.api.name) + " (`admissionregistration.k8s.io/v1`), optionally filtered by a label selector, sorted by name.",
		Attributes: map[string]dsschema.Attribute{
			"label_selector": dsschema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Label selector in the `kubectl -l` syntax, such as `team=platform,tier!=test`. All objects when left out.",
			},
			"id": dsschema.StringAttribute{Computed: true, MarkdownDescription: "The label selector used (empty for all)."},
			"items": dsschema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The matching objects.",
				NestedObject:        dsschema.NestedAttributeObject{Attributes: d.itemAttributes()},
			},
		},
		Blocks: map[string]dsschema.Block{"timeouts": dstimeouts.Block(ctx)},
	}
}

func (d *listDataSource[S, T]) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	ctx, cancel, objects := d.start(ctx, req, &resp.Diagnostics)
	defer cancel()
	if objects == nil {
		return
	}
	var selector types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("label_selector"), &selector)...)
	items, err := objects.List(ctx, selector.ValueString())
	switch {
	case apierrors.IsBadRequest(err):
		resp.Diagnostics.AddAttributeError(path.Root("label_selector"), "Invalid label selector", err.Error())
		return
	case err != nil:
		d.kind.report.APIError(&resp.Diagnostics, "list", selector.ValueString(), err)
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

// plural is the plural of a kind or type name: policies, bindings.
func plural(name string) string {
	if base, ok := strings.CutSuffix(name, "y"); ok {
		return base + "ies"
	}
	if base, ok := strings.CutSuffix(name, "Y"); ok {
		return base + "IES"
	}
	return name + "s"
}
