package core

import (
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	fwlist "github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
)

// ListResource finds the objects of a kind for `terraform query`
// (Terraform 1.14 and later): the list resource under the resource's type
// name, which `terraform query -generate-config-out` turns into import
// blocks and configuration.
type ListResource[M Model, T any] struct {
	Kind *Description[M, T]
	ClientHolder
	resource Resource[M, T]
}

// NewListResource is the constructor of the list resource of the kind d.
func NewListResource[M Model, T any](d *Description[M, T]) func() fwlist.ListResource {
	return func() fwlist.ListResource {
		return &ListResource[M, T]{Kind: d.ready(), resource: Resource[M, T]{Kind: d.ready()}}
	}
}

var _ fwlist.ListResourceWithConfigure = (*ListResource[Header, struct{}])(nil)

// listConfig is the config block of a list block.
type listConfig struct {
	LabelSelector types.String `tfsdk:"label_selector"`
	Name          types.String `tfsdk:"name"`
}

func (l *ListResource[M, T]) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + l.Kind.TypeName
}

func (l *ListResource[M, T]) ListResourceConfigSchema(_ context.Context, _ fwlist.ListResourceSchemaRequest, resp *fwlist.ListResourceSchemaResponse) {
	resp.Schema = listschema.Schema{
		MarkdownDescription: "Finds the " + Plural(l.Kind.API.Kind) + " (`admissionregistration.k8s.io/v1`) in the cluster, sorted by name, " +
			"optionally filtered by a label selector and a name, for `terraform query`. Each result is identified by the object's name; " +
			"`terraform query -generate-config-out=FILE` writes an import block and the configuration of each, " +
			"to take over objects made by other tools (such as a Helm chart) without re-creating them.",
		Attributes: map[string]listschema.Attribute{
			"label_selector": listschema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Label selector in the `kubectl -l` syntax, such as `app.kubernetes.io/managed-by=Helm,app.kubernetes.io/instance=istio`. All objects when left out.",
			},
			"name": listschema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Exact name of the object to find: at most one result, or none when it does not exist or does not match `label_selector`. " +
					"Useful to generate the configuration of one known object. All names when left out.",
			},
		},
	}
}

func (l *ListResource[M, T]) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	l.Set(req.ProviderData, &resp.Diagnostics)
}

// List lists the objects that match the label selector on the server and
// keeps those with the name asked for, if any (objects of these kinds are
// few, and a list keeps the server's label selector syntax and errors for
// both cases). Results are sorted by name, at most req.Limit of them. Like a
// data source, it gives up at once when no answer comes back.
func (l *ListResource[M, T]) List(ctx context.Context, req fwlist.ListRequest, stream *fwlist.ListResultsStream) {
	var cfg listConfig
	diags := req.Config.Get(ctx, &cfg)
	client := l.Ready(&diags)
	if diags.HasError() {
		stream.Results = fwlist.ListResultsStreamDiagnostics(diags)
		return
	}
	// A list block has no timeouts block: retries stop after the default
	// timeout of a read.
	ctx, cancel := context.WithTimeout(kube.FailFast(ctx), DefaultReadTimeout)
	defer cancel()
	items, ok := l.Kind.list(ctx, client, cfg.LabelSelector.ValueString(), &diags)
	if !ok {
		stream.Results = fwlist.ListResultsStreamDiagnostics(diags)
		return
	}
	items = Pick(l.Kind, items, cfg.Name, req.Limit)
	results := make([]fwlist.ListResult, 0, len(items))
	for i := range items {
		results = append(results, l.Result(ctx, req, &items[i]))
	}
	stream.Results = slices.Values(results)
}

// Result is one listed object: its identity, its name to show, and, when
// Terraform asks for it, the object as the resource would import it, with
// no timeouts block.
func (l *ListResource[M, T]) Result(ctx context.Context, req fwlist.ListRequest, obj *T) fwlist.ListResult {
	r := req.NewListResult(ctx)
	name := l.Kind.Meta(obj).Name
	r.DisplayName = name
	r.Diagnostics.Append(r.Identity.Set(ctx, IdentityModel{Name: types.StringValue(name)})...)
	if req.IncludeResource {
		m := l.Kind.FlattenObject(obj, nil)
		raw, diags := l.resource.Encode(ctx, &m, nullTimeouts(ctx))
		if r.Diagnostics.Append(diags...); !diags.HasError() {
			r.Resource.Raw = raw
		}
	}
	return r
}

// nullTimeouts is a timeouts block left out.
func nullTimeouts(ctx context.Context) timeouts.Value {
	typ := TimeoutsBlock(ctx).Type()
	v, err := typ.ValueFromTerraform(ctx, tftypes.NewValue(typ.TerraformType(ctx), nil))
	if t, ok := v.(timeouts.Value); ok && err == nil {
		return t
	}
	return timeouts.Value{}
}
