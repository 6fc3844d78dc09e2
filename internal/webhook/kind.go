package webhook

import (
	"context"
	"encoding/json"
	"reflect"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/apipath"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/object"
)

// The core holds the object of either kind as an
// admissionregistrationv1.MutatingWebhookConfiguration: a
// ValidatingWebhookConfiguration is one whose webhooks have no
// reinvocationPolicy, the only field by which the two kinds' webhooks differ
// (k8s.io/api/admissionregistration/v1). Conversion, validation and warnings
// are written once over it; a kind converts at the API calls.
type configuration = admissionregistrationv1.MutatingWebhookConfiguration

// kind is what one webhook configuration kind adds to the core: its names,
// its API calls, and what its webhook block has beyond webhookModel. H is
// the model of its webhook block.
type kind[H hook] struct {
	// typeName follows the provider's name in the resource and data source
	// type names: "mutating_webhook_configuration".
	typeName string
	api      apiKind
	// does says what the kind's webhooks do, for the descriptions: "admit
	// and change objects".
	does string
	// order says in what order the API server calls the kind's webhooks.
	order string
	// hookAttributes are the attributes only this kind's webhook block has.
	hookAttributes map[string]schema.Attribute
	// newHook makes the kind's webhook model from the common fields and the
	// reinvocation policy (ignored by kinds without one).
	newHook func(base webhookModel, reinvocation types.String) H

	paths  func() *apipath.Mapper
	report object.Reporter
	// object is the kind as the steps shared with the other family reach it.
	object object.Kind[configuration]
	// types is the resource's schema type as the codec walks it.
	types *typeTree
}

// apiKind is a kind's API as the core uses it.
type apiKind struct {
	name     string // "MutatingWebhookConfiguration"
	resource string // "mutatingwebhookconfigurations"
	goType   reflect.Type
	// objects are the API calls on the objects of the kind, in the core's
	// form.
	objects func(*kube.Client) object.API[configuration]
}

// newAPIKind is the core's view of a kind of the kube client.
func newAPIKind[T, L, AC any](k kube.Kind[T, L, AC]) apiKind {
	return apiKind{
		name:     k.Name,
		resource: k.Resource,
		goType:   reflect.TypeFor[T](),
		objects:  func(c *kube.Client) object.API[configuration] { return typedObjects[T, L, AC]{kube.For(c, k), k.Name} },
	}
}

// newKind completes a kind: its path mapper is derived from its schema and
// API type on first use.
func newKind[H hook](k kind[H]) *kind[H] {
	k.paths = sync.OnceValue(func() *apipath.Mapper {
		return apipath.New(k.resourceSchema(), k.api.goType, map[string]string{"webhooks": "webhook", "rules": "rule"})
	})
	k.types = &typeTree{}
	k.report = object.Reporter{Kind: k.api.name, Resource: k.api.resource, TypeName: k.typeName, Paths: k.paths, Words: inOurWords}
	k.object = object.Kind[configuration]{
		API:    k.api.objects,
		Meta:   func(c *configuration) *metav1.ObjectMeta { return &c.ObjectMeta },
		Report: k.report,
	}
	return &k
}

// typedObjects are the calls of the kube client on objects of type T,
// converted to and from the core's form.
type typedObjects[T, L, AC any] struct {
	typed    kube.Objects[T, L, AC]
	kindName string
}

func (o typedObjects[T, L, AC]) Get(ctx context.Context, name string) (*configuration, error) {
	obj, err := o.typed.Get(ctx, name)
	if err != nil || obj == nil {
		return nil, err
	}
	return toCore(obj)
}

func (o typedObjects[T, L, AC]) List(ctx context.Context, labelSelector string) ([]configuration, error) {
	items, err := o.typed.List(ctx, labelSelector)
	if err != nil {
		return nil, err
	}
	out := make([]configuration, len(items))
	for i := range items {
		c, err := toCore(&items[i])
		if err != nil {
			return nil, err
		}
		out[i] = *c
	}
	return out, nil
}

func (o typedObjects[T, L, AC]) Apply(ctx context.Context, obj *configuration, dryRun, force bool) (*configuration, error) {
	ac, err := applyConfiguration[AC](obj, o.kindName)
	if err != nil {
		return nil, err
	}
	stored, err := o.typed.Apply(ctx, ac, dryRun, force)
	if err != nil {
		return nil, err
	}
	return toCore(stored)
}

func (o typedObjects[T, L, AC]) Delete(ctx context.Context, name string) error {
	return o.typed.Delete(ctx, name)
}

// applyConfiguration is the apply configuration of obj as an object of the
// kind kindName: exactly the fields that are set.
func applyConfiguration[AC any](obj *configuration, kindName string) (*AC, error) {
	typed := *obj
	typed.TypeMeta = metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: kindName}
	ac := new(AC)
	return ac, convertJSON(&typed, ac)
}

// toCore is obj in the core's form.
func toCore[T any](obj *T) (*configuration, error) {
	if c, ok := any(obj).(*configuration); ok {
		return c, nil
	}
	c := &configuration{}
	return c, convertJSON(obj, c)
}

// convertJSON turns one form of an object into another through their JSON,
// which is the same for both kinds but for reinvocationPolicy, and the same
// for an object and its apply configuration.
func convertJSON(from, to any) error {
	data, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, to)
}

// Paths is the attribute path mapping of the kind named apiKind
// ("ValidatingWebhookConfiguration"), nil for another kind: the mapping that
// the resource's diagnostics use.
func Paths(apiKind string) *apipath.Mapper {
	switch apiKind {
	case mutating.api.name:
		return mutating.paths()
	case validating.api.name:
		return validating.paths()
	}
	return nil
}
