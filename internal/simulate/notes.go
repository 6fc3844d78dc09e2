package simulate

import (
	"fmt"

	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// requestNotes say what kube-apiserver does with req that the answers leave
// out, because the code that does it is in k8s.io/kubernetes, which the
// provider cannot link (that module is built with replace directives for
// its staging modules): the defaults of the request's kind, which the server
// applies to the object when it decodes the request and again after each
// mutation (k8s.io/kubernetes pkg/apis/<group>/<version>
// SetObjectDefaults_<Kind>; for a custom resource, the defaults of its
// definition's schema), and, before validating admission, the object's
// validation and the fields the server sets on a write (uid,
// creationTimestamp, generation, managedFields: the registry's
// BeforeCreate and BeforeUpdate). validating says whether validating hooks
// see the request.
func requestNotes(req *Request, validating bool) []string {
	var notes []string
	obj := req.Object
	if obj == nil {
		obj = req.OldObject
	}
	if obj != nil {
		gvk := obj.GroupVersionKind()
		if clientgoscheme.Scheme.Recognizes(gvk) {
			notes = append(notes, fmt.Sprintf("kube-apiserver applies the defaults of %s %s (k8s.io/kubernetes pkg/apis, SetObjectDefaults_%s) to the object "+
				"before admission and after each mutation; that code cannot be linked here, so the expressions and the object returned lack the "+
				"fields those defaults would set.", gvk.GroupVersion(), gvk.Kind, gvk.Kind))
		} else {
			notes = append(notes, fmt.Sprintf("kube-apiserver applies the defaults of the schema of %s's CustomResourceDefinition to the object "+
				"before admission and after each mutation; they are not applied here.", gvk.Kind))
		}
	}
	if validating && req.Object != nil {
		notes = append(notes, "Between mutating and validating admission, kube-apiserver validates the object and sets the fields of a write "+
			"(uid, creationTimestamp, generation, managedFields); neither is done here.")
	}
	return notes
}
