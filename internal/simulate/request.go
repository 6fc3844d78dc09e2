package simulate

import (
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	auditinternal "k8s.io/apiserver/pkg/apis/audit"
	"k8s.io/apiserver/pkg/authentication/user"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/typecheck"
)

// Request is an admission request as the functions take it. Every field is
// optional; see ParseRequest for the defaults.
type Request struct {
	Operation   admission.Operation
	Object      *unstructured.Unstructured
	OldObject   *unstructured.Unstructured
	Kind        schema.GroupVersionKind
	Resource    schema.GroupVersionResource
	Subresource string
	Name        string
	// Namespace is the request's namespace, nil for a cluster-scoped object.
	Namespace *corev1.Namespace
	UserInfo  *user.DefaultInfo
	// Params are the objects a binding's paramRef may find.
	Params     []*unstructured.Unstructured
	Authorizer []AuthorizerRule
	DryRun     bool
}

// DefaultUsername is the user of a request that names none.
const DefaultUsername = "test-user"

// ParseRequest reads a request from its JSON-like tree (the function
// argument): operation, object, old_object (API form), name, namespace
// (name, labels), user_info (username, uid, groups, extra), params (API form
// objects), authorizer (rules that allow), resource (group, version,
// resource), sub_resource, dry_run.
//
// Defaults: the operation is CREATE with only an object, UPDATE with both,
// DELETE with only an old object; the kind is the object's apiVersion and
// kind and the resource and scope those of that kind in kube-apiserver's
// built-in API (resource is required for other kinds); the namespace is the
// object's metadata.namespace, else "default" for a namespaced kind, with
// the label kubernetes.io/metadata.name the server gives every namespace;
// the user is "test-user" in the group system:authenticated; the
// authorizer denies what no rule allows.
func ParseRequest(in any) (*Request, error) {
	if in == nil {
		in = map[string]any{}
	}
	m, ok := in.(map[string]any)
	if !ok {
		return nil, inputErr("", "want an object, got %s", describe(in))
	}
	known := map[string]bool{"operation": true, "object": true, "old_object": true, "name": true, "namespace": true, "user_info": true,
		"params": true, "authorizer": true, "resource": true, "sub_resource": true, "dry_run": true}
	for _, k := range sortedKeys(m) {
		if !known[k] {
			return nil, inputErr(k, "unknown field; the fields are operation, object, old_object, name, namespace, user_info, params, authorizer, resource, sub_resource, dry_run")
		}
		if _, ok := m[k].(Unknown); ok {
			return nil, &ErrUnknown{Path: k}
		}
	}
	r := &Request{}
	var err error
	if r.Object, err = apiObject(m["object"], "object"); err != nil {
		return nil, err
	}
	if r.OldObject, err = apiObject(m["old_object"], "old_object"); err != nil {
		return nil, err
	}
	switch op := str(m["operation"]); {
	case op != "":
		r.Operation = admission.Operation(strings.ToUpper(op))
		switch r.Operation {
		case admission.Create, admission.Update, admission.Delete, admission.Connect:
		default:
			return nil, inputErr("operation", "want CREATE, UPDATE, DELETE or CONNECT, got %q", op)
		}
	case r.Object != nil && r.OldObject != nil:
		r.Operation = admission.Update
	case r.OldObject != nil:
		r.Operation = admission.Delete
	default:
		r.Operation = admission.Create
	}
	if r.Operation == admission.Update && (r.Object == nil || r.OldObject == nil) {
		return nil, inputErr("old_object", "an UPDATE needs object and old_object")
	}
	if r.Operation == admission.Create && r.Object == nil {
		return nil, inputErr("object", "a CREATE needs an object")
	}
	// A DELETE's object is nil at admission; its old object is the stored one.
	if r.Operation == admission.Delete {
		r.Object = nil
	}
	ref := r.Object
	if ref == nil {
		ref = r.OldObject
	}
	r.Subresource = str(m["sub_resource"])
	r.DryRun, _ = m["dry_run"].(bool)
	if ref != nil {
		r.Kind = ref.GroupVersionKind()
		r.Name = ref.GetName()
	}
	if n := str(m["name"]); n != "" {
		r.Name = n
	}
	namespaced := true
	if res, ok := m["resource"].(map[string]any); ok {
		r.Resource = schema.GroupVersionResource{Group: str(res["group"]), Version: str(res["version"]), Resource: str(res["resource"])}
		if r.Resource.Resource == "" {
			return nil, inputErr("resource.resource", "required")
		}
		if r.Kind.Empty() {
			r.Kind = r.Resource.GroupVersion().WithKind(str(res["kind"]))
		}
		if s, ok := res["namespaced"].(bool); ok {
			namespaced = s
		}
	} else if m["resource"] != nil {
		return nil, inputErr("resource", "want an object with group, version, resource (and namespaced)")
	}
	if r.Resource.Resource == "" {
		if r.Kind.Kind == "" {
			return nil, inputErr("object", "the request needs an object with apiVersion and kind, or a resource")
		}
		mapper, err := typecheck.BuiltinRESTMapper()
		if err != nil {
			return nil, err
		}
		mapping, err := mapper.RESTMapping(r.Kind.GroupKind(), r.Kind.Version)
		if err != nil {
			return nil, inputErr("resource", "%s is not built into kube-apiserver: give the request's resource (group, version, resource, namespaced)", r.Kind)
		}
		r.Resource = mapping.Resource
		namespaced = mapping.Scope.Name() == meta.RESTScopeNameNamespace
	}
	// The namespace.
	nsName := ""
	var nsLabels map[string]string
	if ns, ok := m["namespace"].(map[string]any); ok {
		nsName = str(ns["name"])
		if l, ok := ns["labels"].(map[string]any); ok {
			nsLabels = map[string]string{}
			for k, v := range l {
				s, ok := v.(string)
				if !ok {
					return nil, inputErr("namespace.labels."+k, "want a string")
				}
				nsLabels[k] = s
			}
		}
	} else if s, ok := m["namespace"].(string); ok {
		nsName = s
	}
	if ref != nil && ref.GetNamespace() != "" {
		if nsName != "" && nsName != ref.GetNamespace() {
			return nil, inputErr("namespace.name", "%q is not the object's namespace %q", nsName, ref.GetNamespace())
		}
		nsName = ref.GetNamespace()
	}
	switch {
	case r.Resource.Resource == "namespaces" && r.Resource.Group == "":
		// A request on a namespace has the namespace's own name as its
		// namespace, but for a create (k8s.io/apiserver pkg/endpoints/request
		// RequestInfoFactory: the namespace of /namespaces/{name}).
		nsName = ""
		if r.Operation != admission.Create {
			nsName = r.Name
		}
	case !namespaced:
		nsName = ""
	case nsName == "":
		nsName = "default"
	}
	if nsName != "" {
		labels := map[string]string{corev1.LabelMetadataName: nsName}
		for k, v := range nsLabels {
			labels[k] = v
		}
		r.Namespace = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: nsName, Labels: labels}}
	}
	// The user.
	r.UserInfo = &user.DefaultInfo{Name: DefaultUsername, Groups: []string{user.AllAuthenticated}}
	if u, ok := m["user_info"].(map[string]any); ok {
		r.UserInfo = &user.DefaultInfo{Name: str(u["username"]), UID: str(u["uid"])}
		if g, ok := u["groups"].([]any); ok {
			for _, e := range g {
				r.UserInfo.Groups = append(r.UserInfo.Groups, str(e))
			}
		} else {
			r.UserInfo.Groups = []string{user.AllAuthenticated}
		}
		if x, ok := u["extra"].(map[string]any); ok {
			r.UserInfo.Extra = map[string][]string{}
			for k, v := range x {
				l, _ := v.([]any)
				for _, e := range l {
					r.UserInfo.Extra[k] = append(r.UserInfo.Extra[k], str(e))
				}
			}
		}
	}
	if p, ok := m["params"].([]any); ok {
		for i, e := range p {
			o, err := apiObject(e, fmt.Sprintf("params[%d]", i))
			if err != nil {
				return nil, err
			}
			r.Params = append(r.Params, o)
		}
	} else if m["params"] != nil {
		return nil, inputErr("params", "want a list of objects")
	}
	if r.Authorizer, err = parseAuthorizer(m["authorizer"]); err != nil {
		return nil, err
	}
	return r, nil
}

// attributes is the request as the admission chain sees it. It records the
// audit annotations the plugins add.
func (r *Request) attributes() *recordingAttributes {
	var obj, old runtime.Object
	if r.Object != nil {
		obj = typed(r.Object)
	}
	if r.OldObject != nil {
		old = typed(r.OldObject)
	}
	var options runtime.Object
	switch r.Operation {
	case admission.Create:
		options = &metav1.CreateOptions{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "CreateOptions"}}
	case admission.Update:
		options = &metav1.UpdateOptions{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "UpdateOptions"}}
	case admission.Delete:
		options = &metav1.DeleteOptions{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "DeleteOptions"}}
	}
	if r.DryRun {
		switch o := options.(type) {
		case *metav1.CreateOptions:
			o.DryRun = []string{metav1.DryRunAll}
		case *metav1.UpdateOptions:
			o.DryRun = []string{metav1.DryRunAll}
		case *metav1.DeleteOptions:
			o.DryRun = []string{metav1.DryRunAll}
		}
	}
	ns := ""
	if r.Namespace != nil {
		ns = r.Namespace.Name
	}
	return &recordingAttributes{Attributes: admission.NewAttributesRecord(obj, old, r.Kind, ns, r.Name, r.Resource, r.Subresource, r.Operation, options, r.DryRun, r.UserInfo)}
}

// recordingAttributes are admission attributes that keep the annotations
// added to them (what the server writes into the audit event).
type recordingAttributes struct {
	admission.Attributes
	annotations map[string]string
}

func (a *recordingAttributes) AddAnnotation(key, value string) error {
	if a.annotations == nil {
		a.annotations = map[string]string{}
	}
	a.annotations[key] = value
	return a.Attributes.AddAnnotation(key, value)
}

func (a *recordingAttributes) AddAnnotationWithLevel(key, value string, level auditinternal.Level) error {
	return a.AddAnnotation(key, value)
}

// typed is u as the server holds an object of its kind at admission: a
// built-in kind as its Go type (so what the type cannot hold is gone, an
// empty map is absent, and a mutation that gives it an unknown field fails
// to decode, as on the server); another kind unstructured.
func typed(u *unstructured.Unstructured) runtime.Object {
	obj, err := clientgoscheme.Scheme.New(u.GroupVersionKind())
	if err != nil {
		return u.DeepCopy()
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.DeepCopy().Object, obj); err != nil {
		return u.DeepCopy()
	}
	obj.GetObjectKind().SetGroupVersionKind(u.GroupVersionKind())
	return obj
}

// unstructuredOf is obj as an unstructured object of kind gvk.
func unstructuredOf(obj runtime.Object, gvk schema.GroupVersionKind) (*unstructured.Unstructured, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u, nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

// apiObject is an object in API form.
func apiObject(v any, path string) (*unstructured.Unstructured, error) {
	if v == nil {
		return nil, nil
	}
	tree, err := dropUnknown(v, path)
	if err != nil {
		return nil, err
	}
	m, ok := tree.(map[string]any)
	if !ok {
		return nil, inputErr(path, "want an object in API form (apiVersion, kind, metadata, ...), got %s", describe(v))
	}
	data, err := json.Marshal(m)
	if err != nil {
		return nil, inputErr(path, "%v", err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		return nil, inputErr(path, "%v", err)
	}
	return u, nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}
