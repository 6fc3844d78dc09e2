package webhook

import (
	"context"
	"slices"
	"strings"

	fwlist "github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/object"
)

// ListResources are the list resources of this family, one per kind under
// the resource's type name: what `terraform query` (Terraform 1.14 and
// later) calls for a list block, and what `terraform query
// -generate-config-out` turns into import blocks and configuration.
func ListResources() []func() fwlist.ListResource {
	return []func() fwlist.ListResource{
		func() fwlist.ListResource { return &webhookListResource[mutatingHook]{kind: mutating} },
		func() fwlist.ListResource { return &webhookListResource[webhookModel]{kind: validating} },
	}
}

type webhookListResource[H hook] struct {
	kind *kind[H]
	object.ClientHolder
}

var _ fwlist.ListResourceWithConfigure = (*webhookListResource[webhookModel])(nil)

// listConfigModel is the config block of a list block.
type listConfigModel struct {
	LabelSelector types.String `tfsdk:"label_selector"`
	Name          types.String `tfsdk:"name"`
}

func (l *webhookListResource[H]) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + l.kind.typeName
}

func (l *webhookListResource[H]) ListResourceConfigSchema(_ context.Context, _ fwlist.ListResourceSchemaRequest, resp *fwlist.ListResourceSchemaResponse) {
	resp.Schema = listschema.Schema{
		MarkdownDescription: "Finds the " + l.kind.api.name + "s (`admissionregistration.k8s.io/v1`) in the cluster, sorted by name, " +
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

func (l *webhookListResource[H]) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	l.Set(req.ProviderData, &resp.Diagnostics)
}

// List lists the objects that match the label selector on the server and
// keeps those with the name asked for, if any (webhook configurations are
// few, and a list keeps the server's label selector syntax and errors for
// both cases). Results are sorted by name, at most req.Limit of them.
func (l *webhookListResource[H]) List(ctx context.Context, req fwlist.ListRequest, stream *fwlist.ListResultsStream) {
	var cfg listConfigModel
	diags := req.Config.Get(ctx, &cfg)
	client := l.Ready(&diags)
	if diags.HasError() {
		stream.Results = fwlist.ListResultsStreamDiagnostics(diags)
		return
	}
	// A list block has no timeouts block: retries stop after the default
	// timeout of a read.
	ctx, cancel := context.WithTimeout(ctx, object.DefaultReadTimeout)
	defer cancel()
	items, ok := l.kind.object.List(ctx, client, cfg.LabelSelector.ValueString(), &diags)
	if !ok {
		stream.Results = fwlist.ListResultsStreamDiagnostics(diags)
		return
	}
	items = pick(items, cfg.Name, req.Limit)
	results := make([]fwlist.ListResult, 0, len(items))
	for i := range items {
		results = append(results, l.result(ctx, req, &items[i]))
	}
	stream.Results = slices.Values(results)
}

// pick keeps the items named name (all when it is null), sorted by name, at
// most limit of them (all when limit is not positive).
func pick(items []configuration, name types.String, limit int64) []configuration {
	if !name.IsNull() {
		items = slices.DeleteFunc(items, func(c configuration) bool { return c.Name != name.ValueString() })
	}
	slices.SortFunc(items, func(a, b configuration) int { return strings.Compare(a.Name, b.Name) })
	if limit > 0 && int64(len(items)) > limit {
		items = items[:limit]
	}
	return items
}

// result is one listed object: its identity, its name to show, and, when
// Terraform asks for it, the object as the resource would import it (the
// timeouts block left out).
func (l *webhookListResource[H]) result(ctx context.Context, req fwlist.ListRequest, obj *configuration) fwlist.ListResult {
	r := req.NewListResult(ctx)
	r.DisplayName = obj.Name
	r.Diagnostics.Append(r.Identity.Set(ctx, object.IdentityModel{Name: types.StringValue(obj.Name)})...)
	if req.IncludeResource {
		m := l.kind.flatten(obj, nil)
		r.Diagnostics.Append(r.Resource.SetAttribute(ctx, path.Root("id"), m.ID)...)
		r.Diagnostics.Append(r.Resource.SetAttribute(ctx, path.Root("metadata"), m.Metadata)...)
		r.Diagnostics.Append(r.Resource.SetAttribute(ctx, path.Root("webhook"), m.Webhook)...)
	}
	return r
}
