package policy

import (
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/metadata"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfschema"
)

// resourceSchema is the kind's resource schema, without timeouts: the
// metadata block, the spec block of the kind, and the status the server
// computes for kinds that have one.
func (k *kind[S, T]) resourceSchema() schema.Schema {
	attrs, blocks := k.spec()
	s := schema.Schema{
		MarkdownDescription: k.description + " Written with server-side apply, so Terraform owns exactly the fields in the configuration.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The object's name.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
		},
		Blocks: map[string]schema.Block{
			"metadata": metadata.Block(k.generationDoc),
			"spec": schema.ListNestedBlock{
				MarkdownDescription: k.specDescription,
				Validators:          tfschema.ExactlyOne(),
				NestedObject:        schema.NestedBlockObject{Attributes: attrs, Blocks: blocks},
			},
		},
	}
	if k.status != nil {
		s.Attributes["status"] = k.status.attribute
	}
	return s
}
