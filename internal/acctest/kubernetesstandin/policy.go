package kubernetesstandin

import (
	"context"
	"math/big"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/numberplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

const policyType = "kubernetes_validating_admission_policy_v1"

// policyResource is kubernetes_validating_admission_policy_v1, which
// hashicorp/terraform-provider-kubernetes writes with the plugin framework
// (internal/framework/provider/admissionregistrationv1): nested attributes
// where this provider has blocks, some fields required that the API leaves
// optional (audit_annotations, validations.message, param_kind's fields),
// and a Read that refreshes only the metadata, so the spec in the state is
// the configuration as written (no server defaults).
type policyResource struct {
	client kubernetes.Interface
}

var (
	_ resource.ResourceWithConfigure   = (*policyResource)(nil)
	_ resource.ResourceWithImportState = (*policyResource)(nil)
)

func (r *policyResource) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = policyType
}

func (r *policyResource) Configure(_ context.Context, req resource.ConfigureRequest, _ *resource.ConfigureResponse) {
	if c, ok := req.ProviderData.(kubernetes.Interface); ok {
		r.client = c
	}
}

func (r *policyResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	computedString := schema.StringAttribute{Optional: true, Computed: true, PlanModifiers: keepString}
	rule := schema.ListNestedAttribute{Optional: true, NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
		"api_groups":     stringList(true),
		"api_versions":   stringList(true),
		"operations":     stringList(true),
		"resource_names": stringList(false),
		"resources":      stringList(true),
		"scope":          optionalString(),
	}}}
	selector := map[string]schema.Attribute{
		"match_expressions": schema.ListNestedAttribute{Optional: true, NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"key":      optionalString(),
			"operator": optionalString(),
			"values":   stringList(false),
		}}},
		"match_labels": stringMap(),
	}
	resp.Schema = schema.Schema{
		Version: 0,
		Attributes: map[string]schema.Attribute{
			"id": computedString,
			"metadata": schema.SingleNestedAttribute{Optional: true, Attributes: map[string]schema.Attribute{
				"annotations":   stringMap(),
				"generate_name": optionalString(),
				"generation": schema.NumberAttribute{Optional: true, Computed: true, PlanModifiers: []planmodifier.Number{
					numberplanmodifier.UseStateForUnknown(),
				}},
				"labels":           stringMap(),
				"name":             computedString,
				"namespace":        optionalString(),
				"resource_version": computedString,
				"uid":              computedString,
			}},
			"spec": schema.SingleNestedAttribute{Required: true, Attributes: map[string]schema.Attribute{
				"audit_annotations": schema.ListNestedAttribute{Required: true, NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"key":              requiredString(),
					"value_expression": requiredString(),
				}}},
				"failure_policy": requiredString(),
				"match_conditions": schema.ListNestedAttribute{Optional: true, NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"expression": requiredString(),
					"name":       requiredString(),
				}}},
				"match_constraints": schema.SingleNestedAttribute{Required: true, Attributes: map[string]schema.Attribute{
					"exclude_resource_rules": rule,
					"match_policy":           optionalString(),
					"namespace_selector":     schema.SingleNestedAttribute{Optional: true, Attributes: selector},
					"object_selector": schema.SingleNestedAttribute{Optional: true, Attributes: map[string]schema.Attribute{
						"label_selector": schema.SingleNestedAttribute{Optional: true, Attributes: selector},
					}},
					"resource_rules": rule,
				}},
				"param_kind": schema.SingleNestedAttribute{Optional: true, Attributes: map[string]schema.Attribute{
					"api_version": requiredString(),
					"kind":        requiredString(),
				}},
				"validations": schema.ListNestedAttribute{Optional: true, NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"expression":         requiredString(),
					"message":            requiredString(),
					"message_expression": optionalString(),
					"reason":             optionalString(),
				}}},
				"variables": schema.ListNestedAttribute{Optional: true, NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"expression": optionalString(),
					"name":       optionalString(),
				}}},
			}},
		},
		Blocks: map[string]schema.Block{
			"timeouts": schema.SingleNestedBlock{Attributes: map[string]schema.Attribute{
				"create": optionalString(), "delete": optionalString(), "read": optionalString(), "update": optionalString(),
			}},
		},
	}
}

type policyModel struct {
	ID       types.String         `tfsdk:"id"`
	Metadata *policyMetadataModel `tfsdk:"metadata"`
	Spec     *policySpecModel     `tfsdk:"spec"`
	Timeouts *timeoutsModel       `tfsdk:"timeouts"`
}

type timeoutsModel struct {
	Create types.String `tfsdk:"create"`
	Delete types.String `tfsdk:"delete"`
	Read   types.String `tfsdk:"read"`
	Update types.String `tfsdk:"update"`
}

type policyMetadataModel struct {
	Annotations     map[string]string `tfsdk:"annotations"`
	GenerateName    types.String      `tfsdk:"generate_name"`
	Generation      types.Number      `tfsdk:"generation"`
	Labels          map[string]string `tfsdk:"labels"`
	Name            types.String      `tfsdk:"name"`
	Namespace       types.String      `tfsdk:"namespace"`
	ResourceVersion types.String      `tfsdk:"resource_version"`
	UID             types.String      `tfsdk:"uid"`
}

type policySpecModel struct {
	AuditAnnotations []struct {
		Key             types.String `tfsdk:"key"`
		ValueExpression types.String `tfsdk:"value_expression"`
	} `tfsdk:"audit_annotations"`
	FailurePolicy   types.String `tfsdk:"failure_policy"`
	MatchConditions []struct {
		Expression types.String `tfsdk:"expression"`
		Name       types.String `tfsdk:"name"`
	} `tfsdk:"match_conditions"`
	MatchConstraints *struct {
		ExcludeResourceRules []policyRuleModel    `tfsdk:"exclude_resource_rules"`
		MatchPolicy          types.String         `tfsdk:"match_policy"`
		NamespaceSelector    *policySelectorModel `tfsdk:"namespace_selector"`
		ObjectSelector       *struct {
			LabelSelector *policySelectorModel `tfsdk:"label_selector"`
		} `tfsdk:"object_selector"`
		ResourceRules []policyRuleModel `tfsdk:"resource_rules"`
	} `tfsdk:"match_constraints"`
	ParamKind *struct {
		APIVersion types.String `tfsdk:"api_version"`
		Kind       types.String `tfsdk:"kind"`
	} `tfsdk:"param_kind"`
	Validations []struct {
		Expression        types.String `tfsdk:"expression"`
		Message           types.String `tfsdk:"message"`
		MessageExpression types.String `tfsdk:"message_expression"`
		Reason            types.String `tfsdk:"reason"`
	} `tfsdk:"validations"`
	Variables []struct {
		Expression types.String `tfsdk:"expression"`
		Name       types.String `tfsdk:"name"`
	} `tfsdk:"variables"`
}

type policyRuleModel struct {
	APIGroups     []string     `tfsdk:"api_groups"`
	APIVersions   []string     `tfsdk:"api_versions"`
	Operations    []string     `tfsdk:"operations"`
	ResourceNames []string     `tfsdk:"resource_names"`
	Resources     []string     `tfsdk:"resources"`
	Scope         types.String `tfsdk:"scope"`
}

type policySelectorModel struct {
	MatchExpressions []struct {
		Key      types.String `tfsdk:"key"`
		Operator types.String `tfsdk:"operator"`
		Values   []string     `tfsdk:"values"`
	} `tfsdk:"match_expressions"`
	MatchLabels map[string]string `tfsdk:"match_labels"`
}

func expandPolicy(m policyModel) *admissionregistrationv1.ValidatingAdmissionPolicy {
	obj := &admissionregistrationv1.ValidatingAdmissionPolicy{}
	if md := m.Metadata; md != nil {
		obj.Name, obj.Labels, obj.Annotations = md.Name.ValueString(), md.Labels, md.Annotations
	}
	s := m.Spec
	if s == nil {
		return obj
	}
	obj.Spec.FailurePolicy = (*admissionregistrationv1.FailurePolicyType)(optional(s.FailurePolicy))
	for _, a := range s.AuditAnnotations {
		obj.Spec.AuditAnnotations = append(obj.Spec.AuditAnnotations, admissionregistrationv1.AuditAnnotation{Key: a.Key.ValueString(), ValueExpression: a.ValueExpression.ValueString()})
	}
	for _, c := range s.MatchConditions {
		obj.Spec.MatchConditions = append(obj.Spec.MatchConditions, admissionregistrationv1.MatchCondition{Name: c.Name.ValueString(), Expression: c.Expression.ValueString()})
	}
	if k := s.ParamKind; k != nil {
		obj.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: k.APIVersion.ValueString(), Kind: k.Kind.ValueString()}
	}
	// The reason is not sent: expandValidatingAdmissionPolicySpec drops it
	// ("v1beta1 doesn't have Reason field"), though the state keeps it.
	for _, v := range s.Validations {
		obj.Spec.Validations = append(obj.Spec.Validations, admissionregistrationv1.Validation{
			Expression: v.Expression.ValueString(), Message: v.Message.ValueString(), MessageExpression: v.MessageExpression.ValueString(),
		})
	}
	for _, v := range s.Variables {
		obj.Spec.Variables = append(obj.Spec.Variables, admissionregistrationv1.Variable{Name: v.Name.ValueString(), Expression: v.Expression.ValueString()})
	}
	if mc := s.MatchConstraints; mc != nil {
		mr := &admissionregistrationv1.MatchResources{
			MatchPolicy:          (*admissionregistrationv1.MatchPolicyType)(optional(mc.MatchPolicy)),
			ResourceRules:        expandPolicyRules(mc.ResourceRules),
			ExcludeResourceRules: expandPolicyRules(mc.ExcludeResourceRules),
			NamespaceSelector:    expandPolicySelector(mc.NamespaceSelector),
		}
		if mc.ObjectSelector != nil {
			mr.ObjectSelector = expandPolicySelector(mc.ObjectSelector.LabelSelector)
		}
		obj.Spec.MatchConstraints = mr
	}
	return obj
}

func expandPolicyRules(in []policyRuleModel) []admissionregistrationv1.NamedRuleWithOperations {
	var out []admissionregistrationv1.NamedRuleWithOperations
	for _, r := range in {
		nr := admissionregistrationv1.NamedRuleWithOperations{ResourceNames: r.ResourceNames}
		nr.APIGroups, nr.APIVersions, nr.Resources = r.APIGroups, r.APIVersions, r.Resources
		nr.Scope = (*admissionregistrationv1.ScopeType)(optional(r.Scope))
		for _, op := range r.Operations {
			nr.Operations = append(nr.Operations, admissionregistrationv1.OperationType(op))
		}
		out = append(out, nr)
	}
	return out
}

func expandPolicySelector(in *policySelectorModel) *metav1.LabelSelector {
	if in == nil {
		return nil
	}
	s := &metav1.LabelSelector{MatchLabels: in.MatchLabels}
	for _, e := range in.MatchExpressions {
		s.MatchExpressions = append(s.MatchExpressions, metav1.LabelSelectorRequirement{
			Key: e.Key.ValueString(), Operator: metav1.LabelSelectorOperator(e.Operator.ValueString()), Values: e.Values,
		})
	}
	return s
}

// withServerMetadata is m with the metadata the server gave obj; the spec
// stays as configured.
func withServerMetadata(m policyModel, obj *admissionregistrationv1.ValidatingAdmissionPolicy) policyModel {
	md := policyMetadataModel{}
	if m.Metadata != nil {
		md = *m.Metadata
	}
	md.Name = types.StringValue(obj.Name)
	md.Labels, md.Annotations = nonEmpty(obj.Labels), nonEmpty(obj.Annotations)
	md.Generation = types.NumberValue(big.NewFloat(float64(obj.Generation)))
	md.ResourceVersion = types.StringValue(obj.ResourceVersion)
	md.UID = types.StringValue(string(obj.UID))
	m.Metadata = &md
	m.ID = types.StringValue(obj.Name)
	return m
}

func (r *policyResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m policyModel
	if resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	if r.client == nil {
		resp.Diagnostics.AddError("Provider not configured", "no client")
		return
	}
	obj, err := r.client.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, expandPolicy(m), metav1.CreateOptions{})
	if err != nil {
		resp.Diagnostics.AddError("Cannot create the validating admission policy", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, withServerMetadata(m, obj))...)
}

// Read refreshes the metadata only.
func (r *policyResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m policyModel
	if resp.Diagnostics.Append(req.State.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	if r.client == nil {
		resp.Diagnostics.AddError("Provider not configured", "no client")
		return
	}
	obj, err := r.client.AdmissionregistrationV1().ValidatingAdmissionPolicies().Get(ctx, m.ID.ValueString(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the validating admission policy", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, withServerMetadata(m, obj))...)
}

func (r *policyResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m policyModel
	if resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	api := r.client.AdmissionregistrationV1().ValidatingAdmissionPolicies()
	current, err := api.Get(ctx, m.ID.ValueString(), metav1.GetOptions{})
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the validating admission policy", err.Error())
		return
	}
	obj := expandPolicy(m)
	obj.Name, obj.ResourceVersion = current.Name, current.ResourceVersion
	if obj, err = api.Update(ctx, obj, metav1.UpdateOptions{}); err != nil {
		resp.Diagnostics.AddError("Cannot update the validating admission policy", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, withServerMetadata(m, obj))...)
}

func (r *policyResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m policyModel
	if resp.Diagnostics.Append(req.State.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	err := r.client.AdmissionregistrationV1().ValidatingAdmissionPolicies().Delete(ctx, m.ID.ValueString(), metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		resp.Diagnostics.AddError("Cannot delete the validating admission policy", err.Error())
	}
}

func (r *policyResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resource.ImportStatePassthroughID(ctx, path.Root("id"), req, resp)
}
