package webhook

import (
	"context"
	"slices"
	"testing"

	fwlist "github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/core"
)

// Terraform pairs a list resource with the managed resource of the same
// type name: there must be one list resource per resource.
func TestListResourcesNameTheResources(t *testing.T) {
	ctx := context.Background()
	typeName := func(m interface {
		Metadata(context.Context, resource.MetadataRequest, *resource.MetadataResponse)
	}) string {
		var resp resource.MetadataResponse
		m.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "admission"}, &resp)
		return resp.TypeName
	}
	var resources, lists []string
	for _, f := range Resources() {
		resources = append(resources, typeName(f()))
	}
	for _, f := range ListResources() {
		lists = append(lists, typeName(f()))
	}
	slices.Sort(resources)
	slices.Sort(lists)
	if !slices.Equal(resources, lists) {
		t.Errorf("list resources %v, resources %v", lists, resources)
	}
}

// listRequest is the request Terraform sends for the list resource of the
// resource r.
func listRequest[H hook](t *testing.T, r *core.Resource[objectModel[H], configuration], includeResource bool) fwlist.ListRequest {
	t.Helper()
	ctx := context.Background()
	var s resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &s)
	var is resource.IdentitySchemaResponse
	r.IdentitySchema(ctx, resource.IdentitySchemaRequest{}, &is)
	if s.Diagnostics.HasError() || is.Diagnostics.HasError() {
		t.Fatalf("schemas: %v %v", s.Diagnostics, is.Diagnostics)
	}
	return fwlist.ListRequest{IncludeResource: includeResource, ResourceSchema: s.Schema, ResourceIdentitySchema: is.IdentitySchema}
}

func listedObject() *configuration {
	none := admissionregistrationv1.SideEffectClassNone
	ifNeeded := admissionregistrationv1.IfNeededReinvocationPolicy
	return &configuration{
		ObjectMeta: metav1.ObjectMeta{
			Name:            "injector.example.com",
			Labels:          map[string]string{"app.kubernetes.io/managed-by": "Helm"},
			ResourceVersion: "42",
		},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:                    "sidecar.example.com",
			AdmissionReviewVersions: []string{"v1"},
			SideEffects:             &none,
			ReinvocationPolicy:      &ifNeeded,
			ClientConfig: admissionregistrationv1.WebhookClientConfig{
				Service: &admissionregistrationv1.ServiceReference{Namespace: "injector", Name: "injector"},
			},
		}},
	}
}

// A result with the resource holds what the resource reads for the object,
// with no timeouts block, and its identity.
func TestListResultWithResource(t *testing.T) {
	ctx := context.Background()
	req := listRequest(t, resourceOf(mutating), true)
	l := listResourceOf(mutating)
	obj := listedObject()
	r := l.Result(ctx, req, obj)
	if r.Diagnostics.HasError() {
		t.Fatal(r.Diagnostics)
	}
	if r.DisplayName != obj.Name {
		t.Errorf("display name %q, want %q", r.DisplayName, obj.Name)
	}
	var id core.IdentityModel
	if diags := r.Identity.Get(ctx, &id); diags.HasError() {
		t.Fatal(diags)
	}
	if id.Name.ValueString() != obj.Name {
		t.Errorf("identity name %s, want %q", id.Name, obj.Name)
	}
	var got resourceState[mutatingHook]
	if diags := r.Resource.Get(ctx, &got); diags.HasError() {
		t.Fatal(diags)
	}
	if !got.Timeouts.IsNull() {
		t.Errorf("timeouts %v, want null", got.Timeouts)
	}
	want := mutating.FlattenObject(obj, nil)
	if !got.ID.Equal(want.ID) || len(got.Metadata) != 1 || !got.Metadata[0].Labels.Equal(want.Metadata[0].Labels) ||
		!got.Metadata[0].ResourceVersion.Equal(types.StringValue("42")) {
		t.Errorf("resource id %s metadata %+v, want id %s metadata %+v", got.ID, got.Metadata, want.ID, want.Metadata)
	}
	if len(got.Webhook) != 1 || got.Webhook[0].ReinvocationPolicy.ValueString() != "IfNeeded" ||
		got.Webhook[0].ClientConfig[0].Service[0].Namespace.ValueString() != "injector" {
		t.Errorf("webhooks %+v", got.Webhook)
	}
}

// Without include_resource, a result has only the identity; the validating
// kind's result has no reinvocation policy.
func TestListResultWithoutResource(t *testing.T) {
	ctx := context.Background()
	req := listRequest(t, resourceOf(validating), false)
	l := listResourceOf(validating)
	r := l.Result(ctx, req, listedObject())
	if r.Diagnostics.HasError() {
		t.Fatal(r.Diagnostics)
	}
	if !r.Resource.Raw.IsNull() {
		t.Errorf("resource %v, want none", r.Resource.Raw)
	}
	var name types.String
	if diags := r.Identity.GetAttribute(ctx, path.Root("name"), &name); diags.HasError() || name.ValueString() != "injector.example.com" {
		t.Errorf("identity name %s (%v)", name, diags)
	}

	req.IncludeResource = true
	r = l.Result(ctx, req, listedObject())
	var got resourceState[webhookModel]
	if diags := r.Resource.Get(ctx, &got); diags.HasError() {
		t.Fatal(diags)
	}
	if len(got.Webhook) != 1 || got.Webhook[0].Name.ValueString() != "sidecar.example.com" {
		t.Errorf("webhooks %+v", got.Webhook)
	}
}

// listResourceOf is the list resource of the kind k.
func listResourceOf[H hook](k *core.Description[objectModel[H], configuration]) *core.ListResource[objectModel[H], configuration] {
	l, _ := core.NewListResource(k)().(*core.ListResource[objectModel[H], configuration]) // what NewListResource makes
	return l
}
