// Package policy is the admission policy family: the descriptions
// (internal/core.Description) of ValidatingAdmissionPolicy,
// MutatingAdmissionPolicy and their bindings, one short file each
// (validating_policy.go, validating_binding.go, mutating_policy.go,
// mutating_binding.go). What the kinds share with each other (param kind and
// ref, match constraints, match conditions, variables) is in parts.go, the
// advice only policies have (type checking, bindings to what is not there)
// in advise.go. The resources, data sources and list resources are
// internal/core's.
package policy

import (
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	fwlist "github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/core"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfconv"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfschema"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

// Resources are the resources of this family.
func Resources() []func() resource.Resource {
	return []func() resource.Resource{
		core.NewResource(validatingPolicies),
		core.NewResource(validatingBindings),
		core.NewResource(mutatingPolicies),
		core.NewResource(mutatingBindings),
	}
}

// DataSources are the data sources of this family: per kind, one object by
// name (admission_<kind>) and the objects matching a label selector
// (admission_<kind>s).
func DataSources() []func() datasource.DataSource {
	return slices.Concat(
		core.DataSources(validatingPolicies),
		core.DataSources(validatingBindings),
		core.DataSources(mutatingPolicies),
		core.DataSources(mutatingBindings),
	)
}

// ListResources are the list resources of this family, one per kind under
// the resource's type name (`terraform query`).
func ListResources() []func() fwlist.ListResource {
	return []func() fwlist.ListResource{
		core.NewListResource(validatingPolicies),
		core.NewListResource(validatingBindings),
		core.NewListResource(mutatingPolicies),
		core.NewListResource(mutatingBindings),
	}
}

// The resource forms of the kinds: what reads a value in the shape of a kind's resource into
// its API object (core.Description.ExpandValue).

// ValidatingPolicyForm is the resource form of admission_validating_admission_policy.
func ValidatingPolicyForm() core.FormReader[validatingPolicy] { return validatingPolicies }

// ValidatingBindingForm is the resource form of admission_validating_admission_policy_binding.
func ValidatingBindingForm() core.FormReader[validatingBinding] { return validatingBindings }

// MutatingPolicyForm is the resource form of admission_mutating_admission_policy.
func MutatingPolicyForm() core.FormReader[mutatingPolicy] { return mutatingPolicies }

// MutatingBindingForm is the resource form of admission_mutating_admission_policy_binding.
func MutatingBindingForm() core.FormReader[mutatingBinding] { return mutatingBindings }

// policyModel is an object of the family: its metadata and its spec block
// (a slice, so an absent block is an empty one). S is the model of the
// kind's spec block.
type policyModel[S any] struct {
	core.Header
	Spec []S `tfsdk:"spec"`
}

// spec is the spec block of m, nil when there is none.
func (m *policyModel[S]) spec() *S {
	if len(m.Spec) == 0 {
		return nil
	}
	return &m.Spec[0]
}

// policyKind is what one kind of the family says of itself; the rest is the
// same for all (describe). S is the model of its spec block, T its API type.
type policyKind[S, T any] struct {
	// typeName follows the provider's name in the type names.
	typeName string
	// description is the resource's description.
	description string
	// generationDoc says what changes the object's generation: "the policy".
	generationDoc string
	// spec is the schema of the spec block: its attributes and blocks.
	spec func() (map[string]schema.Attribute, map[string]schema.Block)
	// specDescription describes the spec block.
	specDescription string

	meta func(*T) *metav1.ObjectMeta
	// expandSpec sets the spec of obj from its block, at API path p ("spec").
	expandSpec func(x *tfconv.Expander, s S, p *field.Path, obj *T)
	// flattenSpec is the spec block of obj; prior, when not nil, is the
	// block the object is read for (see core.Description.Flatten).
	flattenSpec func(obj *T, prior *S) S
	// defaults, check and advise are those of core.Description.
	defaults func(*T) *T
	check    func(obj, old *T) validation.Check
	advise   func(ctx context.Context, env core.PlanEnv, obj *T) []warning.Warning
	// stateMovers, when set, are the resource's state movers
	// (core.Description.StateMovers): the resources of other providers
	// whose state moves to this kind's with a `moved` block.
	stateMovers func(ctx context.Context, write core.StateWriter[T]) []resource.StateMover
}

// describe describes a kind of the family whose model is M: a policyModel,
// or one with more (the status of a ValidatingAdmissionPolicy, a binding's
// gate), which model makes from the policy model, the object and the prior
// model (nil when none: see core.Description.Flatten), and base gives back.
// extra are the attributes of M beyond the policy model.
func describe[M core.Model, S, T, O, L, AC any](api kube.Kind[O, L, AC], k policyKind[S, T], extra map[string]schema.Attribute,
	model func(policyModel[S], *T, *M) M, base func(*M) *policyModel[S]) *core.Description[M, T] {
	return &core.Description[M, T]{
		TypeName:      k.typeName,
		API:           core.KubeAPI[T](api),
		Description:   k.description + " Written with server-side apply, so Terraform owns exactly the fields in the configuration.",
		GenerationDoc: k.generationDoc,
		Schema: func() (map[string]schema.Attribute, map[string]schema.Block) {
			attrs, blocks := k.spec()
			return extra, map[string]schema.Block{"spec": schema.ListNestedBlock{
				MarkdownDescription: k.specDescription,
				Validators:          tfschema.ExactlyOne(),
				NestedObject:        schema.NestedBlockObject{Attributes: attrs, Blocks: blocks},
			}}
		},
		ImportExample:   "my-policy",
		SelectorExample: "team=platform,tier!=test",
		Meta:            k.meta,
		Expand: func(x *tfconv.Expander, m *M, obj *T) {
			if s := base(m).spec(); s != nil {
				k.expandSpec(x, *s, field.NewPath("spec"), obj)
			}
		},
		Flatten: func(h core.Header, obj *T, prior *M) M {
			var ps *S
			if prior != nil {
				ps = base(prior).spec()
			}
			return model(policyModel[S]{Header: h, Spec: []S{k.flattenSpec(obj, ps)}}, obj, prior)
		},
		Default:     k.defaults,
		Check:       k.check,
		Advise:      k.advise,
		StateMovers: k.stateMovers,
		AfterWrite:  afterWrite(api.Name, k.meta),
	}
}

// newKind describes a kind of the family whose model is a policyModel.
func newKind[S, T, O, L, AC any](api kube.Kind[O, L, AC], k policyKind[S, T]) *core.Description[policyModel[S], T] {
	return describe(api, k, nil,
		func(m policyModel[S], _ *T, _ *policyModel[S]) policyModel[S] { return m },
		func(m *policyModel[S]) *policyModel[S] { return m })
}
