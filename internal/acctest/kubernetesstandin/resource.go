package kubernetesstandin

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

const (
	mutatingType   = "kubernetes_mutating_webhook_configuration_v1"
	validatingType = "kubernetes_validating_webhook_configuration_v1"
)

// webhookResource is kubernetes_mutating_webhook_configuration_v1 or, with
// mutating false, kubernetes_validating_webhook_configuration_v1.
type webhookResource struct {
	mutating bool
	client   kubernetes.Interface
}

var (
	_ resource.ResourceWithConfigure   = (*webhookResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*webhookResource)(nil)
	_ resource.ResourceWithImportState = (*webhookResource)(nil)
)

func (r *webhookResource) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = validatingType
	if r.mutating {
		resp.TypeName = mutatingType
	}
}

func (r *webhookResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = webhookConfigurationSchema(r.mutating)
}

func (r *webhookResource) Configure(_ context.Context, req resource.ConfigureRequest, _ *resource.ConfigureResponse) {
	if c, ok := req.ProviderData.(kubernetes.Interface); ok {
		r.client = c
	}
}

// getter is tfsdk.Plan.Get, tfsdk.State.Get or tfsdk.Config.Get.
type getter func(context.Context, any) diag.Diagnostics

// setter is tfsdk.Plan.Set or tfsdk.State.Set.
type setter func(context.Context, any) diag.Diagnostics

func (r *webhookResource) getModel(ctx context.Context, get getter) (mutatingModel, diag.Diagnostics) {
	if r.mutating {
		var m mutatingModel
		diags := get(ctx, &m)
		return m, diags
	}
	var v validatingModel
	diags := get(ctx, &v)
	return v.mutating(), diags
}

func (r *webhookResource) setModel(ctx context.Context, set setter, m mutatingModel) diag.Diagnostics {
	if r.mutating {
		return set(ctx, m)
	}
	return set(ctx, m.validating())
}

// ModifyPlan plans the defaults of the attributes left out of the
// configuration, as the plugin SDK v2 does. Lists, sets and maps whose
// values are unknown at plan time are not supported.
func (r *webhookResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	m, diags := r.getModel(ctx, req.Plan.Get)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	fillDefaults(&m, r.mutating)
	if !req.State.Raw.IsNull() {
		prior, diags := r.getModel(ctx, req.State.Get)
		if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
			return
		}
		keepEmptyMaps(&m, prior)
	}
	resp.Diagnostics.Append(r.setModel(ctx, resp.Plan.Set, m)...)
}

func (r *webhookResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	m, diags := r.getModel(ctx, req.Plan.Get)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	obj, err := r.create(ctx, expand(m))
	if err != nil {
		resp.Diagnostics.AddError("Cannot create the webhook configuration", err.Error())
		return
	}
	resp.Diagnostics.Append(r.setModel(ctx, resp.State.Set, applied(flatten(obj, r.mutating), m))...)
}

func (r *webhookResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	m, diags := r.getModel(ctx, req.State.Get)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	obj, err := r.read(ctx, m.ID.ValueString())
	if apierrors.IsNotFound(err) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the webhook configuration", err.Error())
		return
	}
	resp.Diagnostics.Append(r.setModel(ctx, resp.State.Set, refreshed(flatten(obj, r.mutating)))...)
}

// Update writes the whole object again over the one in the cluster.
func (r *webhookResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	plan, diags := r.getModel(ctx, req.Plan.Get)
	resp.Diagnostics.Append(diags...)
	state, diags := r.getModel(ctx, req.State.Get)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	current, err := r.read(ctx, state.ID.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the webhook configuration", err.Error())
		return
	}
	obj := expand(plan)
	obj.Name = current.Name
	obj.ResourceVersion = current.ResourceVersion
	obj, err = r.update(ctx, obj)
	if err != nil {
		resp.Diagnostics.AddError("Cannot update the webhook configuration", err.Error())
		return
	}
	resp.Diagnostics.Append(r.setModel(ctx, resp.State.Set, applied(flatten(obj, r.mutating), plan))...)
}

func (r *webhookResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	m, diags := r.getModel(ctx, req.State.Get)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := r.delete(ctx, m.ID.ValueString()); err != nil && !apierrors.IsNotFound(err) {
		resp.Diagnostics.AddError("Cannot delete the webhook configuration", err.Error())
	}
}

// ImportState takes the name of the object as its id, as
// schema.ImportStatePassthroughContext does in hashicorp/terraform-provider-kubernetes.
func (r *webhookResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resource.ImportStatePassthroughID(ctx, path.Root("id"), req, resp)
}

// The calls to the cluster. A validating webhook configuration travels as
// a mutating one without reinvocation policies.

func (r *webhookResource) create(ctx context.Context, obj *admissionregistrationv1.MutatingWebhookConfiguration) (*admissionregistrationv1.MutatingWebhookConfiguration, error) {
	if err := r.ready(); err != nil {
		return nil, err
	}
	api := r.client.AdmissionregistrationV1()
	if r.mutating {
		return api.MutatingWebhookConfigurations().Create(ctx, obj, metav1.CreateOptions{})
	}
	v, err := api.ValidatingWebhookConfigurations().Create(ctx, toValidating(obj), metav1.CreateOptions{})
	return fromValidating(v), err
}

func (r *webhookResource) read(ctx context.Context, name string) (*admissionregistrationv1.MutatingWebhookConfiguration, error) {
	if err := r.ready(); err != nil {
		return nil, err
	}
	api := r.client.AdmissionregistrationV1()
	if r.mutating {
		return api.MutatingWebhookConfigurations().Get(ctx, name, metav1.GetOptions{})
	}
	v, err := api.ValidatingWebhookConfigurations().Get(ctx, name, metav1.GetOptions{})
	return fromValidating(v), err
}

func (r *webhookResource) update(ctx context.Context, obj *admissionregistrationv1.MutatingWebhookConfiguration) (*admissionregistrationv1.MutatingWebhookConfiguration, error) {
	if err := r.ready(); err != nil {
		return nil, err
	}
	api := r.client.AdmissionregistrationV1()
	if r.mutating {
		return api.MutatingWebhookConfigurations().Update(ctx, obj, metav1.UpdateOptions{})
	}
	v, err := api.ValidatingWebhookConfigurations().Update(ctx, toValidating(obj), metav1.UpdateOptions{})
	return fromValidating(v), err
}

func (r *webhookResource) delete(ctx context.Context, name string) error {
	if err := r.ready(); err != nil {
		return err
	}
	api := r.client.AdmissionregistrationV1()
	if r.mutating {
		return api.MutatingWebhookConfigurations().Delete(ctx, name, metav1.DeleteOptions{})
	}
	return api.ValidatingWebhookConfigurations().Delete(ctx, name, metav1.DeleteOptions{})
}

func (r *webhookResource) ready() error {
	if r.client == nil {
		return fmt.Errorf("the provider is not configured")
	}
	return nil
}

func toValidating(m *admissionregistrationv1.MutatingWebhookConfiguration) *admissionregistrationv1.ValidatingWebhookConfiguration {
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: m.ObjectMeta}
	for _, h := range m.Webhooks {
		v.Webhooks = append(v.Webhooks, admissionregistrationv1.ValidatingWebhook{
			Name:                    h.Name,
			ClientConfig:            h.ClientConfig,
			Rules:                   h.Rules,
			FailurePolicy:           h.FailurePolicy,
			MatchPolicy:             h.MatchPolicy,
			NamespaceSelector:       h.NamespaceSelector,
			ObjectSelector:          h.ObjectSelector,
			SideEffects:             h.SideEffects,
			TimeoutSeconds:          h.TimeoutSeconds,
			AdmissionReviewVersions: h.AdmissionReviewVersions,
			MatchConditions:         h.MatchConditions,
		})
	}
	return v
}

func fromValidating(v *admissionregistrationv1.ValidatingWebhookConfiguration) *admissionregistrationv1.MutatingWebhookConfiguration {
	if v == nil {
		return nil
	}
	m := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: v.ObjectMeta}
	for _, h := range v.Webhooks {
		m.Webhooks = append(m.Webhooks, admissionregistrationv1.MutatingWebhook{
			Name:                    h.Name,
			ClientConfig:            h.ClientConfig,
			Rules:                   h.Rules,
			FailurePolicy:           h.FailurePolicy,
			MatchPolicy:             h.MatchPolicy,
			NamespaceSelector:       h.NamespaceSelector,
			ObjectSelector:          h.ObjectSelector,
			SideEffects:             h.SideEffects,
			TimeoutSeconds:          h.TimeoutSeconds,
			AdmissionReviewVersions: h.AdmissionReviewVersions,
			MatchConditions:         h.MatchConditions,
		})
	}
	return m
}
