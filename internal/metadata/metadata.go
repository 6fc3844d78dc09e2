// Package metadata is the metadata block of every kind this provider
// manages (all cluster-scoped): its schema, model and conversion.
//
// Labels and annotations are shared with others: only the keys in the
// configuration are managed, and only those are read back into the state.
// An object read without a prior state (import, `terraform query`) is read
// with its own keys, not those other tools and controllers keep (Own).
package metadata

import (
	"time"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfconv"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfschema"
)

// Model is the metadata block.
type Model struct {
	Name              types.String          `tfsdk:"name"`
	Labels            types.Map             `tfsdk:"labels"`
	Annotations       types.Map             `tfsdk:"annotations"`
	Finalizers        types.List            `tfsdk:"finalizers"`
	OwnerReferences   []OwnerReferenceModel `tfsdk:"owner_references"`
	UID               types.String          `tfsdk:"uid"`
	ResourceVersion   types.String          `tfsdk:"resource_version"`
	Generation        types.Int64           `tfsdk:"generation"`
	CreationTimestamp types.String          `tfsdk:"creation_timestamp"`
}

// OwnerReferenceModel is one owner_references block.
type OwnerReferenceModel struct {
	APIVersion         types.String `tfsdk:"api_version"`
	Kind               types.String `tfsdk:"kind"`
	Name               types.String `tfsdk:"name"`
	UID                types.String `tfsdk:"uid"`
	BlockOwnerDeletion types.Bool   `tfsdk:"block_owner_deletion"`
	Controller         types.Bool   `tfsdk:"controller"`
}

// Block is the required metadata block. generationDoc says what changes the
// object's generation (its specification: "the webhooks", "the policy").
func Block(generationDoc string) schema.ListNestedBlock {
	return schema.ListNestedBlock{
		MarkdownDescription: "Standard object metadata. The object is cluster-scoped, so it has no namespace.",
		Validators:          tfschema.ExactlyOne(),
		NestedObject: schema.NestedBlockObject{
			Attributes: map[string]schema.Attribute{
				"name": schema.StringAttribute{
					Required:            true,
					MarkdownDescription: "Name of the object, unique in the cluster (a DNS subdomain). Changing it replaces the object.",
					PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
				},
				"labels": tfschema.StringMap("Labels of the object. Only the labels set here are managed; labels that others add are left alone. " +
					readWithoutState("labels", "Helm's `app.kubernetes.io/managed-by: Helm`, Flux's `kustomize.toolkit.fluxcd.io/*` and `helm.toolkit.fluxcd.io/*`, "+
						"and `app.kubernetes.io/instance` when Argo CD tracks the object by it")),
				"annotations": tfschema.StringMap("Annotations of the object. Only the annotations set here are managed; annotations that others add " +
					"(such as `cert-manager.io/inject-ca-from` read by cert-manager) are left alone. " +
					readWithoutState("annotations", "`kubectl.kubernetes.io/last-applied-configuration`, Helm's `meta.helm.sh/release-name` and `meta.helm.sh/release-namespace`, "+
						"Argo CD's `argocd.argoproj.io/tracking-id` and `argocd.argoproj.io/installation-id`")),
				"finalizers": tfschema.StringList("Finalizers that must be removed before the object is deleted.", false),
				"uid": schema.StringAttribute{
					Computed:            true,
					MarkdownDescription: "Unique identifier the server gave the object.",
					PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
				},
				"resource_version": schema.StringAttribute{
					Computed:            true,
					MarkdownDescription: "Version of the object the server last stored; it changes on every write.",
				},
				"generation": schema.Int64Attribute{
					Computed:            true,
					MarkdownDescription: "Sequence number of the object's specification; the server increases it when " + generationDoc + " change.",
				},
				"creation_timestamp": schema.StringAttribute{
					Computed:            true,
					MarkdownDescription: "When the server created the object (RFC 3339).",
					PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
				},
			},
			Blocks: map[string]schema.Block{
				"owner_references": schema.ListNestedBlock{
					MarkdownDescription: "Objects this one depends on; when all owners are deleted, the garbage collector deletes this object.",
					NestedObject: schema.NestedBlockObject{
						Attributes: map[string]schema.Attribute{
							"api_version":          schema.StringAttribute{Required: true, MarkdownDescription: "API version of the owner, such as `apps/v1`."},
							"kind":                 schema.StringAttribute{Required: true, MarkdownDescription: "Kind of the owner."},
							"name":                 schema.StringAttribute{Required: true, MarkdownDescription: "Name of the owner."},
							"uid":                  schema.StringAttribute{Required: true, MarkdownDescription: "UID of the owner."},
							"block_owner_deletion": schema.BoolAttribute{Optional: true, MarkdownDescription: "If true, the owner cannot be deleted in the foreground until this object is gone."},
							"controller":           schema.BoolAttribute{Optional: true, MarkdownDescription: "If true, this owner is the managing controller. At most one owner may be."},
						},
					},
				},
			},
		},
	}
}

// readWithoutState documents the rule of Own on the labels or annotations
// attribute (what, with the bookkeeping keys of other tools); the block is
// the data sources' too, which read every key.
func readWithoutState(what, bookkeeping string) string {
	return "A data source reads every key. An object read without a prior state (an import, a `terraform query` result) is read with its own " + what +
		": not the bookkeeping of other tools (" + bookkeeping + "), nor " + what + " that only field managers other than the one that made the object own " +
		"(`metadata.managedFields`: a controller added them later). They stay on the server untouched; a resource configuration that sets one manages it. " +
		"See [Adopting existing objects](../guides/adopting-existing-objects.md)."
}

// Expand is the API metadata of m, at API path p ("metadata").
func Expand(x *tfconv.Expander, m Model, p *field.Path) metav1.ObjectMeta {
	meta := metav1.ObjectMeta{
		Name:        x.Str(m.Name, p.Child("name")),
		Labels:      x.StringMap(m.Labels, p.Child("labels")),
		Annotations: x.StringMap(m.Annotations, p.Child("annotations")),
		Finalizers:  x.Strings(m.Finalizers, p.Child("finalizers")),
	}
	for i, o := range m.OwnerReferences {
		op := p.Child("ownerReferences").Index(i)
		meta.OwnerReferences = append(meta.OwnerReferences, metav1.OwnerReference{
			APIVersion:         x.Str(o.APIVersion, op.Child("apiVersion")),
			Kind:               x.Str(o.Kind, op.Child("kind")),
			Name:               x.Str(o.Name, op.Child("name")),
			UID:                k8stypes.UID(x.Str(o.UID, op.Child("uid"))),
			BlockOwnerDeletion: x.BoolPtr(o.BlockOwnerDeletion, op.Child("blockOwnerDeletion")),
			Controller:         x.BoolPtr(o.Controller, op.Child("controller")),
		})
	}
	return meta
}

// Flatten is the model of meta. With a prior model (the state or plan the
// object is read for), labels and annotations are limited to its keys, and
// empty lists and maps keep the form written there. Without one (an import,
// a `terraform query` result), they are the object's own (Own): not the
// bookkeeping of other tools, nor what a controller added.
func Flatten(meta metav1.ObjectMeta, prior *Model) Model {
	labels, annotations := meta.Labels, meta.Annotations
	if prior == nil {
		labels, annotations = Own(meta)
	}
	return flatten(meta, prior, labels, annotations)
}

// FlattenStored is the model of meta with every label and annotation it has,
// whoever set them: what a data source reads, which manages nothing.
func FlattenStored(meta metav1.ObjectMeta) Model {
	return flatten(meta, nil, meta.Labels, meta.Annotations)
}

func flatten(meta metav1.ObjectMeta, prior *Model, labels, annotations map[string]string) Model {
	m := Model{
		Name:              types.StringValue(meta.Name),
		Labels:            tfconv.StringMap(labels, tfconv.PriorMap(prior, func(p *Model) types.Map { return p.Labels }), prior != nil),
		Annotations:       tfconv.StringMap(annotations, tfconv.PriorMap(prior, func(p *Model) types.Map { return p.Annotations }), prior != nil),
		Finalizers:        tfconv.StringList(meta.Finalizers, tfconv.PriorList(prior, func(p *Model) types.List { return p.Finalizers })),
		UID:               types.StringValue(string(meta.UID)),
		ResourceVersion:   types.StringValue(meta.ResourceVersion),
		Generation:        types.Int64Value(meta.Generation),
		CreationTimestamp: types.StringValue(meta.CreationTimestamp.UTC().Format(time.RFC3339)),
	}
	if meta.CreationTimestamp.IsZero() {
		m.CreationTimestamp = types.StringNull()
	}
	for _, o := range meta.OwnerReferences {
		m.OwnerReferences = append(m.OwnerReferences, OwnerReferenceModel{
			APIVersion:         types.StringValue(o.APIVersion),
			Kind:               types.StringValue(o.Kind),
			Name:               types.StringValue(o.Name),
			UID:                types.StringValue(string(o.UID)),
			BlockOwnerDeletion: types.BoolPointerValue(o.BlockOwnerDeletion),
			Controller:         types.BoolPointerValue(o.Controller),
		})
	}
	return m
}
