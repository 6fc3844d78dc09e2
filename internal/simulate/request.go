package simulate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
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

	"github.com/seed-a73d233f/terraform-provider-admission/internal/builtinapi"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/matching"
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
	// Namespace is the request's namespace, nil for a cluster-scoped object:
	// the whole Namespace object the server reads (labels, annotations, spec,
	// status), which namespace selectors and namespaceObject see.
	Namespace *corev1.Namespace
	UserInfo  *user.DefaultInfo
	// Params are the objects a binding's paramRef may find.
	Params     []*unstructured.Unstructured
	Authorizer []AuthorizerRule
	DryRun     bool
	// CustomResources are the resources of the CustomResourceDefinitions the
	// request was read with (ParseRequestWithCRDs): their versions are one
	// another's equivalents, beside the built-in ones.
	CustomResources []matching.Served
}

// DefaultUsername is the user of a request that names none.
const DefaultUsername = "test-user"

// requestFields are the fields of a request, in the order the errors list them.
var requestFields = []string{"operation", "object", "old_object", "name", "namespace", "user_info", "params", "authorizer", "resource", "sub_resource", "dry_run"}

// ParseRequest reads a request from its JSON-like tree (the function
// argument): operation, object, old_object (API form), name, namespace (a
// name; or name, labels, annotations; or a Namespace in API form), user_info
// (username, uid, groups, extra), params (API form objects), authorizer
// (rules that allow), resource (group, version, resource, kind, namespaced),
// sub_resource, dry_run. A field it does not know, or one the request does
// not use (a namespace for a cluster-scoped object), is an error.
//
// Defaults: the operation is CREATE with only an object, UPDATE with both,
// DELETE with only an old object; the kind is the object's apiVersion and
// kind and the resource and scope those of that kind in kube-apiserver's
// built-in API; for a subresource, the resource whose subresource of that
// name has objects of that kind (pods for a Pod's "status"), when only one
// has (resource is required for other kinds, and for a Scale, which four
// resources have); the namespace is the object's metadata.namespace, else
// "default" for a namespaced kind, with the label
// kubernetes.io/metadata.name the server gives every namespace; the user is
// "test-user" in the group system:authenticated; the authorizer allows what
// the server's authorizer allows the group system:masters (everything) and
// what a rule allows, and denies the rest.
func ParseRequest(in any) (*Request, error) { return parseRequest(in, nil) }

// ParseRequestWithCRDs is ParseRequest with the CustomResourceDefinitions (API
// form) whose resources the request may be on: a custom resource's resource
// and scope come from its definition, and its versions are equivalents.
func ParseRequestWithCRDs(in any, crds ...*unstructured.Unstructured) (*Request, error) {
	var custom []matching.Served
	for _, crd := range crds {
		served, err := matching.CRDServed(crd)
		if err != nil {
			return nil, err
		}
		custom = append(custom, served...)
	}
	return parseRequest(in, custom)
}

func parseRequest(in any, custom []matching.Served) (*Request, error) {
	if in == nil {
		in = map[string]any{}
	}
	m, ok := in.(map[string]any)
	if !ok {
		return nil, inputErr("", "want an object, got %s", describe(in))
	}
	if err := knownFields(m, "", requestFields...); err != nil {
		return nil, err
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if _, ok := m[k].(Unknown); ok {
			return nil, &ErrUnknown{Path: k}
		}
	}
	r := &Request{CustomResources: custom}
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
	if r.Operation == admission.Delete && r.Object != nil {
		// A DELETE's object is nil at admission; its old object is the stored one.
		return nil, inputErr("object", "a DELETE has no object at admission: give the stored object as old_object")
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
	namespaced, err := r.resolveResource(m["resource"], custom)
	if err != nil {
		return nil, err
	}
	if r.Namespace, err = parseNamespace(m["namespace"], r, ref, namespaced); err != nil {
		return nil, err
	}
	if r.UserInfo, err = parseUserInfo(m["user_info"]); err != nil {
		return nil, err
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

// knownFields fails on a key of m (at path) that is not among fields.
func knownFields(m map[string]any, path string, fields ...string) error {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(fields, k) {
			return inputErr(join(path, k), "unknown field; the fields are %s", strings.Join(fields, ", "))
		}
	}
	return nil
}

// resolveResource sets the request's resource from res (the resource field), else from its
// kind and subresource, and says whether the resource is namespaced.
func (r *Request) resolveResource(res any, custom []matching.Served) (bool, error) {
	switch v := res.(type) {
	case nil:
	case map[string]any:
		if err := knownFields(v, "resource", "group", "version", "resource", "kind", "namespaced"); err != nil {
			return false, err
		}
		r.Resource = schema.GroupVersionResource{Group: str(v["group"]), Version: str(v["version"]), Resource: str(v["resource"])}
		if r.Resource.Resource == "" {
			return false, inputErr("resource.resource", "required")
		}
		if r.Resource.Version == "" {
			// The group and version of a built-in resource named alone (deployments for a
			// Scale of deployments/scale): the preferred version of the group that serves it.
			gvr, err := builtinResourceFor(r.Resource, custom)
			if err != nil {
				return false, err
			}
			r.Resource = gvr
		}
		if r.Kind.Empty() {
			r.Kind = r.Resource.GroupVersion().WithKind(str(v["kind"]))
		}
		if s, ok := v["namespaced"].(bool); ok {
			return s, nil
		}
		if s, ok := servedScope(r.Resource, custom); ok {
			return s, nil
		}
		return true, nil
	default:
		return false, inputErr("resource", "want an object with group, version, resource (and kind, namespaced)")
	}
	if r.Kind.Kind == "" {
		return false, inputErr("object", "the request needs an object with apiVersion and kind, or a resource")
	}
	if r.Subresource != "" {
		return r.subresourceParent(custom)
	}
	for _, s := range custom {
		if s.Subresource == "" && s.Kind == r.Kind {
			r.Resource = s.Resource
			return s.Namespaced, nil
		}
	}
	mapper, err := builtinapi.RESTMapper()
	if err != nil {
		return false, err
	}
	mapping, err := mapper.RESTMapping(r.Kind.GroupKind(), r.Kind.Version)
	if err != nil {
		return false, inputErr("resource", "%s is not built into kube-apiserver: give the request's resource (group, version, resource, namespaced), or its CustomResourceDefinition", r.Kind)
	}
	r.Resource = mapping.Resource
	return mapping.Scope.Name() == meta.RESTScopeNameNamespace, nil
}

// subresourceParent sets the resource of a request on a subresource from the kind of its
// object: the one resource whose subresource of that name has objects of that kind.
func (r *Request) subresourceParent(custom []matching.Served) (bool, error) {
	var candidates []matching.Served
	for _, s := range append(matching.BuiltinSubresources(r.Subresource, r.Kind.GroupKind()), custom...) {
		if s.Subresource == r.Subresource && s.Kind == r.Kind {
			candidates = append(candidates, s)
		}
	}
	switch len(candidates) {
	case 1:
		r.Resource = candidates[0].Resource
		return candidates[0].Namespaced, nil
	case 0:
		return false, inputErr("sub_resource", "no built-in resource has a %q subresource with objects of kind %s: give the request's resource (group, version, resource)", r.Subresource, r.Kind)
	}
	var names []string
	for _, c := range candidates {
		names = append(names, c.Resource.GroupResource().String())
	}
	return false, inputErr("resource", "a %s is the %q subresource of %s: give the request's resource (its name will do, such as { resource = \"deployments\" })", r.Kind.Kind, r.Subresource, strings.Join(names, ", "))
}

// builtinResourceFor completes a resource given without its version: the one resource of that
// name (in that group, when given) among custom, else the built-in resource the server's
// RESTMapper prefers (k8s.io/apimachinery pkg/api/meta DefaultRESTMapper ResourceFor).
func builtinResourceFor(partial schema.GroupVersionResource, custom []matching.Served) (schema.GroupVersionResource, error) {
	for _, s := range custom {
		if s.Subresource == "" && s.Resource.Resource == partial.Resource && (partial.Group == "" || s.Resource.Group == partial.Group) {
			return s.Resource, nil
		}
	}
	mapper, err := builtinapi.RESTMapper()
	if err != nil {
		return schema.GroupVersionResource{}, err
	}
	gvr, err := mapper.ResourceFor(partial)
	if err != nil {
		return schema.GroupVersionResource{}, inputErr("resource", "%q is not a resource built into kube-apiserver: give its group and version", partial.Resource)
	}
	return gvr, nil
}

// servedScope is the scope of gvr if it is built in or among custom.
func servedScope(gvr schema.GroupVersionResource, custom []matching.Served) (namespaced, known bool) {
	for _, s := range custom {
		if s.Resource == gvr && s.Subresource == "" {
			return s.Namespaced, true
		}
	}
	mapper, err := builtinapi.RESTMapper()
	if err != nil {
		return false, false
	}
	gvk, err := mapper.KindFor(gvr)
	if err != nil {
		return false, false
	}
	mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return false, false
	}
	return mapping.Scope.Name() == meta.RESTScopeNameNamespace, true
}

// parseNamespace reads the namespace field v of request r (whose object is ref, on a resource
// namespaced or not): a name; name, labels and annotations; or a Namespace in API form. The
// namespace is the whole object the server would read, with the label kubernetes.io/metadata.name
// that the server sets on every namespace (k8s.io/kubernetes pkg/registry/core/namespace
// strategy). Nil for a cluster-scoped request.
func parseNamespace(v any, r *Request, ref *unstructured.Unstructured, namespaced bool) (*corev1.Namespace, error) {
	ns := &corev1.Namespace{}
	given := v != nil
	switch t := v.(type) {
	case nil:
	case string:
		ns.Name = t
	case map[string]any:
		if _, ok := t["apiVersion"]; ok || t["kind"] != nil || t["metadata"] != nil {
			if err := decodeNamespace(t, ns); err != nil {
				return nil, err
			}
			break
		}
		if err := knownFields(t, "namespace", "name", "labels", "annotations"); err != nil {
			return nil, err
		}
		ns.Name = str(t["name"])
		var err error
		if ns.Labels, err = stringMap(t["labels"], "namespace.labels"); err != nil {
			return nil, err
		}
		if ns.Annotations, err = stringMap(t["annotations"], "namespace.annotations"); err != nil {
			return nil, err
		}
	default:
		return nil, inputErr("namespace", "want a name, an object with name, labels and annotations, or a Namespace in API form, got %s", describe(v))
	}
	if ref != nil && ref.GetNamespace() != "" {
		if ns.Name != "" && ns.Name != ref.GetNamespace() {
			return nil, inputErr("namespace.name", "%q is not the object's namespace %q", ns.Name, ref.GetNamespace())
		}
		ns.Name = ref.GetNamespace()
	}
	switch {
	case r.Resource.Resource == "namespaces" && r.Resource.Group == "":
		// A request on a namespace has the namespace's own name as its
		// namespace, but for a create (k8s.io/apiserver pkg/endpoints/request
		// RequestInfoFactory: the namespace of /namespaces/{name}); its object
		// is the namespace the selectors read.
		if given {
			return nil, inputErr("namespace", "a request on a Namespace reads the namespace from its object: leave namespace out")
		}
		if r.Operation == admission.Create {
			return nil, nil
		}
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: r.Name, Labels: map[string]string{corev1.LabelMetadataName: r.Name}}}, nil
	case !namespaced:
		if given {
			return nil, inputErr("namespace", "%s is cluster-scoped: its requests have no namespace", r.Resource.GroupResource())
		}
		return nil, nil
	case ns.Name == "":
		ns.Name = "default"
	}
	if ns.Labels == nil {
		ns.Labels = map[string]string{}
	}
	ns.Labels[corev1.LabelMetadataName] = ns.Name
	return ns, nil
}

// decodeNamespace decodes a Namespace in API form.
func decodeNamespace(t map[string]any, ns *corev1.Namespace) error {
	if av := str(t["apiVersion"]); av != "" && av != "v1" {
		return inputErr("namespace.apiVersion", "want v1, got %s", av)
	}
	if k := str(t["kind"]); k != "" && k != "Namespace" {
		return inputErr("namespace.kind", "want Namespace, got %s", k)
	}
	tree, err := dropUnknown(t, "namespace")
	if err != nil {
		return err
	}
	data, err := json.Marshal(tree)
	if err != nil {
		return inputErr("namespace", "%v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(ns); err != nil {
		return inputErr("namespace", "%s", strings.TrimPrefix(err.Error(), "json: "))
	}
	ns.APIVersion, ns.Kind = "", ""
	return nil
}

// stringMap reads a map of strings at path.
func stringMap(v any, path string) (map[string]string, error) {
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, inputErr(path, "want a map of strings, got %s", describe(v))
	}
	out := make(map[string]string, len(m))
	for k, e := range m {
		s, ok := e.(string)
		if !ok {
			return nil, inputErr(path+"."+k, "want a string")
		}
		out[k] = s
	}
	return out, nil
}

// parseUserInfo reads the user_info field.
func parseUserInfo(v any) (*user.DefaultInfo, error) {
	if v == nil {
		return &user.DefaultInfo{Name: DefaultUsername, Groups: []string{user.AllAuthenticated}}, nil
	}
	u, ok := v.(map[string]any)
	if !ok {
		return nil, inputErr("user_info", "want an object with username, uid, groups, extra")
	}
	if err := knownFields(u, "user_info", "username", "uid", "groups", "extra"); err != nil {
		return nil, err
	}
	info := &user.DefaultInfo{Name: str(u["username"]), UID: str(u["uid"])}
	switch g := u["groups"].(type) {
	case nil:
		info.Groups = []string{user.AllAuthenticated}
	case []any:
		for i, e := range g {
			s, ok := e.(string)
			if !ok {
				return nil, inputErr(fmt.Sprintf("user_info.groups[%d]", i), "want a string")
			}
			info.Groups = append(info.Groups, s)
		}
	default:
		return nil, inputErr("user_info.groups", "want a list of strings")
	}
	switch x := u["extra"].(type) {
	case nil:
	case map[string]any:
		info.Extra = map[string][]string{}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			l, ok := x[k].([]any)
			if !ok {
				return nil, inputErr("user_info.extra."+k, "want a list of strings")
			}
			for _, e := range l {
				info.Extra[k] = append(info.Extra[k], str(e))
			}
		}
	default:
		return nil, inputErr("user_info.extra", "want a map of lists of strings")
	}
	return info, nil
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
