// Package policy is the admission policy family: the resources
// admission_validating_admission_policy, admission_mutating_admission_policy
// and their bindings, with their data sources, written once over a small
// description of each kind (validating_policy.go, validating_binding.go,
// mutating_policy.go, mutating_binding.go). What the kinds share with each
// other (param kind and ref, match constraints, match conditions, variables)
// is in parts.go.
package policy

import (
	"context"
	"encoding/json"
	"reflect"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/apipath"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/object"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfconv"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// kind is what one kind of the family adds to the core: its names, its spec
// block, and how that block converts to and from the API object T. S is the
// model of its spec block.
type kind[S, T any] struct {
	// typeName follows the provider's name in the resource and data source
	// type names: "validating_admission_policy".
	typeName string
	api      apiKind[T]
	// description is the resource's description.
	description string
	// generationDoc says what changes the object's generation: "the policy".
	generationDoc string
	// spec is the schema of the spec block: its attributes and blocks.
	spec func() (map[string]schema.Attribute, map[string]schema.Block)
	// specDescription describes the spec block.
	specDescription string

	// meta is the object's metadata.
	meta func(*T) *metav1.ObjectMeta
	// expandSpec sets the spec of obj from its block, at API path p ("spec").
	expandSpec func(x *tfconv.Expander, s S, p *field.Path, obj *T)
	// flattenSpec is the spec block of obj; prior, when not nil, is the
	// block the object is read for (see kind.flatten).
	flattenSpec func(obj *T, prior *S) S
	// status, for kinds whose server computes a status, is its schema and
	// the model of obj's status.
	status *statusKind[T]

	// check is the server's defaulting and validation of a create of obj
	// (old nil) or of an update of old to obj, at each version
	// (internal/validation).
	check func(obj, old *T) validation.Check
	// advise is the advice the plan gives on obj, beyond the server's rules:
	// type checking, bindings to what is not there. It may use the cluster
	// when env has a client.
	advise func(ctx context.Context, env *planEnv, obj *T) []validation.Warning

	paths  func() *apipath.Mapper
	report object.Reporter
	// object is the kind as the steps shared with the other family reach it.
	object object.Kind[T]
}

// apiKind is a kind's API as the core uses it.
type apiKind[T any] struct {
	name     string // "ValidatingAdmissionPolicy"
	resource string // "validatingadmissionpolicies"
	objects  func(*kube.Client) object.API[T]
}

// newAPIKind is the core's view of a kind of the kube client.
func newAPIKind[T, L, AC any](k kube.Kind[T, L, AC]) apiKind[T] {
	return apiKind[T]{
		name:     k.Name,
		resource: k.Resource,
		objects:  func(c *kube.Client) object.API[T] { return typedObjects[T, L, AC]{kube.For(c, k), k.Name} },
	}
}

// newKind completes a kind: its path mapper is derived from its schema and
// API type on first use.
func newKind[S, T any](k kind[S, T]) *kind[S, T] {
	k.paths = sync.OnceValue(func() *apipath.Mapper {
		return apipath.New(k.resourceSchema(), reflect.TypeFor[T](), nil)
	})
	k.report = object.Reporter{Kind: k.api.name, Resource: k.api.resource, TypeName: k.typeName, Paths: k.paths}
	k.object = object.Kind[T]{API: k.api.objects, Meta: k.meta, Report: k.report}
	return &k
}

// typedObjects are the calls of the kube client on objects of type T: its
// own Get, List and Delete, and an Apply that takes the object itself.
type typedObjects[T, L, AC any] struct {
	kube.Objects[T, L, AC]
	kindName string
}

func (o typedObjects[T, L, AC]) Apply(ctx context.Context, obj *T, dryRun, force bool) (*T, error) {
	ac, err := applyConfiguration[AC](obj, o.kindName)
	if err != nil {
		return nil, err
	}
	return o.Objects.Apply(ctx, ac, dryRun, force)
}

// applyConfiguration is the apply configuration of obj, an object of the
// kind kindName: exactly the fields that are set. An object and its apply
// configuration have the same JSON.
func applyConfiguration[AC, T any](obj *T, kindName string) (*AC, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var fields map[string]any
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, err
	}
	fields["apiVersion"] = admissionregistrationv1.SchemeGroupVersion.String()
	fields["kind"] = kindName
	if data, err = json.Marshal(fields); err != nil {
		return nil, err
	}
	ac := new(AC)
	return ac, json.Unmarshal(data, ac)
}
