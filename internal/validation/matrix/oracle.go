// Command oracle runs kube-apiserver's own create and update path for the
// admissionregistration.k8s.io/v1 kinds (k8s.io/kubernetes, linked in-process at the version
// of the modfile it is built with) on objects read from standard input, one JSON request a
// line, and writes the server's answer for each, one JSON line each, in order:
//
//	{"kind":"MutatingWebhookConfiguration","object":{...},"old":{...}}
//	{"causes":[{"reason":"FieldValueInvalid","field":"webhooks[0].name","message":"..."}],"warnings":[...]}
//
// With "old", the request is an update of old to object; without, a create. The path is the
// one of k8s.io/apiserver pkg/registry/rest BeforeCreate and BeforeUpdate, which the registry's
// store calls: v1 defaulting and conversion to the internal type (as the request decoder does),
// a generated name, the strategy's PrepareForCreate/PrepareForUpdate, its Validate/ValidateUpdate
// (and, in releases that have it, the declarative validation), the common ObjectMeta checks,
// then the strategy's warnings. Feature gates are the release's defaults; the user is a member
// of system:masters, so no authorization check of paramKind or paramRef is made.
//
// One directory serves every release: go.mod links k8s.io/kubernetes v1.37, and
// v1.NN.mod (with v1.NN.sum) each other release, with the staging modules replaced by the
// release's versions (see modfile.sh). Run it with
//
//	go run -modfile=v1.33.mod . <requests.jsonl
//
// internal/validation/differential's TestMatrix does, for each release, on the differential
// corpus, and compares the answers with internal/validation at that version.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	v1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage/names"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/admissionregistration"
	_ "k8s.io/kubernetes/pkg/apis/admissionregistration/install"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingwebhookconfiguration"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/resolver"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingadmissionpolicy"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingadmissionpolicybinding"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingwebhookconfiguration"
)

// request is one line of input.
type request struct {
	Kind   string          `json:"kind"`
	Object json.RawMessage `json:"object"`
	Old    json.RawMessage `json:"old,omitempty"`
}

// cause is one error as the server puts it in a status's details.causes.
type cause struct {
	Reason  string `json:"reason"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

// answer is one line of output.
type answer struct {
	Causes   []cause  `json:"causes,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
	// Error is any other failure: an answer that is not 422 Invalid, or a request that could
	// not be read.
	Error string `json:"error,omitempty"`
}

// strategy is what the registry's store needs of a kind for a create and an update.
type strategy interface {
	rest.RESTCreateStrategy
	rest.RESTUpdateStrategy
}

// kindOf is one kind: its versioned and internal types, its resource and its strategy.
type kindOf struct {
	versioned func() runtime.Object
	internal  func() runtime.Object
	resource  string
	strategy  strategy
}

// noResolver resolves nothing; the policy strategies need one, and a superuser never reaches it.
var noResolver = resolver.ResourceResolverFunc(func(schema.GroupVersionKind) (schema.GroupVersionResource, error) {
	return schema.GroupVersionResource{}, errors.New("no resolver")
})

var kinds = map[string]kindOf{
	"MutatingWebhookConfiguration": {
		func() runtime.Object { return &v1.MutatingWebhookConfiguration{} },
		func() runtime.Object { return &admissionregistration.MutatingWebhookConfiguration{} },
		"mutatingwebhookconfigurations", mutatingwebhookconfiguration.Strategy,
	},
	"ValidatingWebhookConfiguration": {
		func() runtime.Object { return &v1.ValidatingWebhookConfiguration{} },
		func() runtime.Object { return &admissionregistration.ValidatingWebhookConfiguration{} },
		"validatingwebhookconfigurations", validatingwebhookconfiguration.Strategy,
	},
	"ValidatingAdmissionPolicy": {
		func() runtime.Object { return &v1.ValidatingAdmissionPolicy{} },
		func() runtime.Object { return &admissionregistration.ValidatingAdmissionPolicy{} },
		"validatingadmissionpolicies", validatingadmissionpolicy.NewStrategy(nil, noResolver),
	},
	"ValidatingAdmissionPolicyBinding": {
		func() runtime.Object { return &v1.ValidatingAdmissionPolicyBinding{} },
		func() runtime.Object { return &admissionregistration.ValidatingAdmissionPolicyBinding{} },
		"validatingadmissionpolicybindings", validatingadmissionpolicybinding.NewStrategy(nil, nil, noResolver),
	},
}

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			if err := enc.Encode(handle(line)); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

func handle(line []byte) (a answer) {
	defer func() {
		if r := recover(); r != nil {
			a = answer{Error: fmt.Sprintf("panic: %v", r)}
		}
	}()
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return answer{Error: err.Error()}
	}
	k, ok := kinds[req.Kind]
	if !ok {
		return answer{Error: "kind not served by this release: " + req.Kind}
	}
	obj, err := decode(k, req.Object)
	if err != nil {
		return answer{Error: err.Error()}
	}
	rec := &recorder{}
	ctx := genericapirequest.WithRequestInfo(context.Background(), &genericapirequest.RequestInfo{
		IsResourceRequest: true, Verb: "create", APIGroup: "admissionregistration.k8s.io", APIVersion: "v1", Resource: k.resource,
	})
	ctx = genericapirequest.WithNamespace(ctx, metav1.NamespaceNone)
	ctx = genericapirequest.WithUser(ctx, &user.DefaultInfo{Name: "admin", Groups: []string{user.SystemPrivilegedGroup}})
	ctx = warning.WithWarningRecorder(ctx, rec)

	if req.Old == nil {
		m, _ := meta.Accessor(obj)
		if m.GetName() == "" && m.GetGenerateName() != "" {
			m.SetName(names.SimpleNameGenerator.GenerateName(m.GetGenerateName()))
		}
		m.SetNamespace("")
		rest.FillObjectMetaSystemFields(m)
		err = rest.BeforeCreate(k.strategy, ctx, obj)
	} else {
		old, derr := decode(k, req.Old)
		if derr != nil {
			return answer{Error: "old: " + derr.Error()}
		}
		ctx = genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{
			IsResourceRequest: true, Verb: "update", APIGroup: "admissionregistration.k8s.io", APIVersion: "v1", Resource: k.resource,
		})
		// As a server-side apply does: the patch is applied to the stored object, so the
		// request carries its resourceVersion.
		// The stored object of a cluster-scoped kind has no namespace, and the request's is
		// cleared (rest.EnsureObjectNamespaceMatchesRequestNamespace).
		om, _ := meta.Accessor(old)
		rest.FillObjectMetaSystemFields(om)
		om.SetGeneration(1)
		om.SetResourceVersion("1")
		om.SetNamespace("")
		m, _ := meta.Accessor(obj)
		m.SetResourceVersion("1")
		m.SetNamespace("")
		err = rest.BeforeUpdate(k.strategy, ctx, obj, old)
	}
	a.Warnings = rec.warnings
	if err == nil {
		return a
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) && apierrors.IsInvalid(err) && status.Status().Details != nil {
		for _, c := range status.Status().Details.Causes {
			a.Causes = append(a.Causes, cause{Reason: string(c.Type), Field: c.Field, Message: c.Message})
		}
		if len(a.Causes) > 0 {
			return a
		}
	}
	return answer{Error: err.Error()}
}

// decode reads a v1 object, defaults it and converts it to the internal type, as the server's
// request decoder does.
func decode(k kindOf, data []byte) (runtime.Object, error) {
	versioned := k.versioned()
	if err := json.Unmarshal(data, versioned); err != nil {
		return nil, err
	}
	// The request handler drops repeated owner references before anything else
	// (k8s.io/apiserver pkg/endpoints/handlers, dedupOwnerReferencesAndAddWarning).
	if m, err := meta.Accessor(versioned); err == nil {
		var refs []metav1.OwnerReference
		for _, ref := range m.GetOwnerReferences() {
			if !slices.ContainsFunc(refs, func(r metav1.OwnerReference) bool { return equality.Semantic.DeepEqual(r, ref) }) {
				refs = append(refs, ref)
			}
		}
		m.SetOwnerReferences(refs)
	}
	legacyscheme.Scheme.Default(versioned)
	internal := k.internal()
	if err := legacyscheme.Scheme.Convert(versioned, internal, nil); err != nil {
		return nil, err
	}
	return internal, nil
}

// recorder keeps the warnings of one request.
type recorder struct{ warnings []string }

func (r *recorder) AddWarning(_, text string) { r.warnings = append(r.warnings, text) }
