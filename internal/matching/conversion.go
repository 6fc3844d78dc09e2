package matching

import (
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// A hook that a rule of matchPolicy Equivalent takes to an equivalent resource sees the object
// converted to the kind its rule names (admission.NewVersionedAttributes, with the object
// interfaces the request is admitted with). The server converts built-in kinds through their
// internal version with the conversion functions of k8s.io/kubernetes pkg/apis, which the
// provider cannot link (that module is built with replace directives); the client-go scheme
// has the types but no conversions between versions. So the conversions between the built-in
// kinds that kube-apiserver serves at more than one version and that admission rules name are
// written here, each after the upstream function it follows (conversion_autoscaling.go,
// conversion_events.go), and held to the server by the simulator's differential test: the
// horizontalpodautoscalers of autoscaling/v1 and v2, and the events of the core group and
// events.k8s.io/v1. Between other versions of a built-in kind, converting fails, and the answer
// says so (ErrNoConversion). Custom resources convert as a definition with conversion strategy
// None does (k8s.io/apiextensions-apiserver pkg/apiserver/conversion nopConverter: the
// apiVersion changes, nothing else).

// ErrNoConversion is what converting a built-in kind to another version fails with when no
// conversion between the two is known offline.
type ErrNoConversion struct {
	From, To schema.GroupVersionKind
}

func (e *ErrNoConversion) Error() string {
	return fmt.Sprintf("converting %s to %s is not known offline: the server converts built-in kinds with the conversion functions of k8s.io/kubernetes, which this provider cannot link", e.From, e.To)
}

// conversionScheme is the client-go scheme with the conversions written here.
var conversionScheme = sync.OnceValue(func() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		panic(err) // the client-go scheme registers its own types: this cannot fail
	}
	for _, add := range []func(*runtime.Scheme) error{addAutoscalingConversions, addEventConversions} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
})

// converter creates objects of a kind and converts them between kinds: the built-in kinds with
// conversionScheme, the others (custom resources) as unstructured objects.
type converter struct{ scheme *runtime.Scheme }

var _ runtime.ObjectConvertor = converter{}
var _ runtime.ObjectCreater = converter{}

// objectInterfaces are the object interfaces of a matcher over equivalents e.
func objectInterfaces(e Equivalents) admission.ObjectInterfaces {
	c := converter{conversionScheme()}
	return &admission.RuntimeObjectInterfaces{
		ObjectCreater: c, ObjectTyper: c.scheme, ObjectDefaulter: c.scheme, ObjectConvertor: c, EquivalentResourceMapper: e,
	}
}

func (c converter) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	if obj, err := c.scheme.New(gvk); err == nil {
		return obj, nil
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

func (c converter) Convert(in, out, context any) error {
	inU, inIsU := in.(runtime.Unstructured)
	outU, outIsU := out.(runtime.Unstructured)
	if inIsU && outIsU {
		// A custom resource: a copy (the scheme's Convert would share the content, and the
		// caller then sets the kind on it), with out's kind.
		gvk := outU.GetObjectKind().GroupVersionKind()
		outU.SetUnstructuredContent(runtime.DeepCopyJSON(inU.UnstructuredContent()))
		if !gvk.Empty() {
			outU.GetObjectKind().SetGroupVersionKind(gvk)
		}
		return nil
	}
	err := c.scheme.Convert(in, out, context)
	if err != nil && !inIsU && !outIsU {
		from, to := kindOf(c.scheme, in), kindOf(c.scheme, out)
		if from.GroupKind() == to.GroupKind() || from.Kind == to.Kind {
			return &ErrNoConversion{From: from, To: to}
		}
	}
	return err
}

func (c converter) ConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	return c.scheme.ConvertToVersion(in, target)
}

func (c converter) ConvertFieldLabel(gvk schema.GroupVersionKind, label, value string) (string, string, error) {
	return c.scheme.ConvertFieldLabel(gvk, label, value)
}

// kindOf is the kind of a typed object of s.
func kindOf(s *runtime.Scheme, obj any) schema.GroupVersionKind {
	if o, ok := obj.(runtime.Object); ok {
		if kinds, _, err := s.ObjectKinds(o); err == nil && len(kinds) > 0 {
			return kinds[0]
		}
	}
	return schema.GroupVersionKind{}
}
