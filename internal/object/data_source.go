package object

import (
	"context"
	"strconv"
	"strings"

	dstimeouts "github.com/hashicorp/terraform-plugin-framework-timeouts/datasource/timeouts"
	dsschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
)

// Every kind has two data sources: admission_<kind> reads one object by
// name, admission_<kinds> lists the objects that match a label selector.

// DataSourceSchema is the schema of the data source that reads one object
// of the kind by name: the object's attributes attrs, read-only, and name.
func (k Kind[T]) DataSourceSchema(ctx context.Context, attrs map[string]dsschema.Attribute) dsschema.Schema {
	attrs["name"] = dsschema.StringAttribute{Required: true, MarkdownDescription: "Name of the " + k.Report.Kind + " to read."}
	return dsschema.Schema{
		MarkdownDescription: "Reads one " + k.Report.Kind + " (`admissionregistration.k8s.io/v1`) by name, with every field as the server stores it, read-only metadata included.",
		Attributes:          attrs,
		Blocks:              map[string]dsschema.Block{"timeouts": dstimeouts.Block(ctx)},
	}
}

// ListDataSourceSchema is the schema of the data source that lists the
// objects of the kind: item is the attributes of one, read-only, and
// selectorExample a label selector to show.
func (k Kind[T]) ListDataSourceSchema(ctx context.Context, selectorExample string, item map[string]dsschema.Attribute) dsschema.Schema {
	return dsschema.Schema{
		MarkdownDescription: "Lists " + Plural(k.Report.Kind) + " (`admissionregistration.k8s.io/v1`), optionally filtered by a label selector, sorted by name.",
		Attributes: map[string]dsschema.Attribute{
			"label_selector": dsschema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Label selector in the `kubectl -l` syntax, such as `" + selectorExample + "`. All objects when left out.",
			},
			"id": dsschema.StringAttribute{Computed: true, MarkdownDescription: "The label selector used (empty for all)."},
			"items": dsschema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The matching objects.",
				NestedObject:        dsschema.NestedAttributeObject{Attributes: item},
			},
		},
		Blocks: map[string]dsschema.Block{"timeouts": dstimeouts.Block(ctx)},
	}
}

// Find reads the object named name for a data source: nil, with the
// reason on diags, when it cannot, or when there is none (on name).
func (k Kind[T]) Find(ctx context.Context, c *kube.Client, name string, diags *diag.Diagnostics) *T {
	obj, err := k.API(c).Get(ctx, name)
	if err != nil {
		k.Report.APIError(diags, "read", name, err)
		return nil
	}
	if obj == nil {
		diags.AddAttributeError(path.Root("name"), k.Report.Kind+" not found",
			"There is no "+k.Report.Kind+" named "+strconv.Quote(name)+" in the cluster.")
	}
	return obj
}

// List lists the objects that match a label selector. A selector the
// server rejects is reported on label_selector, any other failure as an API
// error; it returns false when it reported one.
func (k Kind[T]) List(ctx context.Context, c *kube.Client, selector string, diags *diag.Diagnostics) ([]T, bool) {
	items, err := k.API(c).List(ctx, selector)
	switch {
	case err == nil:
		return items, true
	case apierrors.IsBadRequest(err):
		diags.AddAttributeError(path.Root("label_selector"), "Invalid label selector", err.Error())
	default:
		k.Report.APIError(diags, "list", selector, err)
	}
	return nil, false
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
