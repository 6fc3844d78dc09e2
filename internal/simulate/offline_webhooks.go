package simulate

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/generic"
	webhookmutating "k8s.io/apiserver/pkg/admission/plugin/webhook/mutating"
	webhookvalidating "k8s.io/apiserver/pkg/admission/plugin/webhook/validating"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	webhookutil "k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/client-go/informers"
	admissionregistrationinformers "k8s.io/client-go/informers/admissionregistration"
	admissionregistrationv1informers "k8s.io/client-go/informers/admissionregistration/v1"
	coreinformers "k8s.io/client-go/informers/core"
	corev1informers "k8s.io/client-go/informers/core/v1"
	admissionlisters "k8s.io/client-go/listers/admissionregistration/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/matching"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// The webhooks of admit run in kube-apiserver's own webhook admission plugins
// (k8s.io/apiserver pkg/admission/plugin/webhook/mutating NewMutatingWebhook
// and .../validating NewValidatingAdmissionWebhook): their matching, the
// admission review they send, the checks of the response, the patch applied
// to the object, the reinvocation, the failure policy, the messages. Only the
// call leaves the server's code: the plugins' client manager is given a
// transport that never reaches the network (answerTransport) and answers as
// the caller said the webhook answers, or, with no answer given, allows with
// no patch and records the webhook as unanswered.

// WebhookAnswer is what a webhook answers a request, as the caller says.
type WebhookAnswer struct {
	// Allowed: the webhook admits the request.
	Allowed bool
	// Message, Reason and Code are the status of a denial.
	Message string
	Reason  string
	Code    int32
	// Patch is a JSON patch (RFC 6902) to the object as the webhook sees it.
	Patch []byte
	// Warnings and AuditAnnotations are those of the response.
	Warnings         []string
	AuditAnnotations map[string]string
	// CallError, when set, makes the call fail (an unreachable webhook, a
	// timeout): the webhook's failure policy decides.
	CallError string
}

// WebhookAnswers are webhooks' answers, by the webhook's name, or by
// "configuration/webhook" where two configurations have webhooks of the same
// name.
type WebhookAnswers map[string]WebhookAnswer

// offlineWebhook is one webhook of the configurations given to admit.
type offlineWebhook struct {
	index         int
	configuration string
	name          string
	mutating      bool
	answer        *WebhookAnswer
	// matcherHook is the webhook as the matcher asks about it (the reason it
	// is not called).
	matcherHook matching.Webhook
}

// offlineURL is the URL that stands for webhook i: the transport tells the
// webhooks apart by it.
func offlineURL(i int) string { return "https://webhook.admit.invalid/" + strconv.Itoa(i) }

// lookupAnswer is the caller's answer for the webhook name of configuration.
func (a WebhookAnswers) lookupAnswer(configuration, name string) *WebhookAnswer {
	if ans, ok := a[configuration+"/"+name]; ok {
		return &ans
	}
	if ans, ok := a[name]; ok {
		return &ans
	}
	return nil
}

// offlineConfigurations are the webhook configurations with the server's
// defaults, each webhook's client configuration replaced by its offline URL,
// and the webhooks in the order the server calls them: configurations by
// name (k8s.io/apiserver pkg/admission/configuration
// mutatingWebhookConfigurationManager: sort.SliceStable ByName), then as
// listed.
func offlineConfigurations(mutatingCfgs []*admissionregistrationv1.MutatingWebhookConfiguration,
	validatingCfgs []*admissionregistrationv1.ValidatingWebhookConfiguration, answers WebhookAnswers) (
	[]*admissionregistrationv1.MutatingWebhookConfiguration, []*admissionregistrationv1.ValidatingWebhookConfiguration, []*offlineWebhook, error) {
	var hooks []*offlineWebhook
	var mutatingOut []*admissionregistrationv1.MutatingWebhookConfiguration
	var validatingOut []*admissionregistrationv1.ValidatingWebhookConfiguration
	seen := map[string]bool{}
	for _, c := range sortedByName(mutatingCfgs) {
		if seen["m/"+c.Name] {
			return nil, nil, nil, fmt.Errorf("two MutatingWebhookConfigurations are named %q", c.Name)
		}
		seen["m/"+c.Name] = true
		d := validation.Default(c)
		accessors := matching.MutatingWebhooks(d)
		for j := range d.Webhooks {
			h := &offlineWebhook{index: len(hooks), configuration: d.Name, name: d.Webhooks[j].Name, mutating: true,
				answer: answers.lookupAnswer(d.Name, d.Webhooks[j].Name), matcherHook: accessors[j]}
			d.Webhooks[j].ClientConfig = admissionregistrationv1.WebhookClientConfig{URL: ptrTo(offlineURL(h.index))}
			hooks = append(hooks, h)
		}
		mutatingOut = append(mutatingOut, d)
	}
	for _, c := range sortedByName(validatingCfgs) {
		if seen["v/"+c.Name] {
			return nil, nil, nil, fmt.Errorf("two ValidatingWebhookConfigurations are named %q", c.Name)
		}
		seen["v/"+c.Name] = true
		d := validation.DefaultValidating(c)
		accessors := matching.ValidatingWebhooks(d)
		for j := range d.Webhooks {
			h := &offlineWebhook{index: len(hooks), configuration: d.Name, name: d.Webhooks[j].Name,
				answer: answers.lookupAnswer(d.Name, d.Webhooks[j].Name), matcherHook: accessors[j]}
			d.Webhooks[j].ClientConfig = admissionregistrationv1.WebhookClientConfig{URL: ptrTo(offlineURL(h.index))}
			hooks = append(hooks, h)
		}
		validatingOut = append(validatingOut, d)
	}
	return mutatingOut, validatingOut, hooks, nil
}

func ptrTo[T any](v T) *T { return &v }

// sortedByName is cfgs sorted by name, as the server's configuration managers sort them.
func sortedByName[T interface{ GetName() string }](cfgs []T) []T {
	out := append([]T(nil), cfgs...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].GetName() < out[j-1].GetName(); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// newWebhookPlugin initializes a webhook plugin (the mutating or the
// validating one) as the server's admission initializers do, over the
// request's namespaces, the given configurations (served by synced informers)
// and the answering transport.
func newWebhookPlugin(w *generic.Webhook, e *env, mutatingCfgs []*admissionregistrationv1.MutatingWebhookConfiguration,
	validatingCfgs []*admissionregistrationv1.ValidatingWebhookConfiguration, hooks []*offlineWebhook) error {
	ns := matching.GivenNamespaces(e.req.Namespace)
	w.SetAuthenticationInfoResolverWrapper(func(webhookutil.AuthenticationInfoResolver) webhookutil.AuthenticationInfoResolver {
		return answeringResolver{transport: answerTransport{hooks: hooks}}
	})
	w.SetServiceResolver(webhookutil.NewDefaultServiceResolver())
	w.SetExternalKubeClientSet(ns.Client())
	mutating := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, c := range mutatingCfgs {
		_ = mutating.Add(c)
	}
	validating := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, c := range validatingCfgs {
		_ = validating.Add(c)
	}
	w.SetExternalKubeInformerFactory(offlineInformers{
		SharedInformerFactory: informers.NewSharedInformerFactory(ns.Client(), 0),
		namespaces:            offlineNamespaces{lister: ns.Lister()},
		mutating:              offlineMutatingConfigurations{lister: admissionlisters.NewMutatingWebhookConfigurationLister(mutating)},
		validating:            offlineValidatingConfigurations{lister: admissionlisters.NewValidatingWebhookConfigurationLister(validating)},
	})
	w.SetUnconditionalAuthorizer(authorizer.UnconditionalAuthorizer(e.authz))
	return w.ValidateInitialization()
}

// newMutatingWebhooks is the server's mutating webhook plugin over cfgs.
func newMutatingWebhooks(e *env, cfgs []*admissionregistrationv1.MutatingWebhookConfiguration, hooks []*offlineWebhook) (admission.MutationInterface, error) {
	p, err := webhookmutating.NewMutatingWebhook(nil)
	if err != nil {
		return nil, err
	}
	if err := newWebhookPlugin(p.Webhook, e, cfgs, nil, hooks); err != nil {
		return nil, err
	}
	return p, nil
}

// newValidatingWebhooks is the server's validating webhook plugin over cfgs.
func newValidatingWebhooks(e *env, cfgs []*admissionregistrationv1.ValidatingWebhookConfiguration, hooks []*offlineWebhook) (admission.ValidationInterface, error) {
	p, err := webhookvalidating.NewValidatingAdmissionWebhook(nil)
	if err != nil {
		return nil, err
	}
	if err := newWebhookPlugin(p.Webhook, e, nil, cfgs, hooks); err != nil {
		return nil, err
	}
	return p, nil
}

// answeringResolver gives the plugins' client manager a configuration whose
// transport is the answering one, for every webhook URL and service.
type answeringResolver struct{ transport http.RoundTripper }

func (r answeringResolver) config() *rest.Config {
	return &rest.Config{WrapTransport: func(http.RoundTripper) http.RoundTripper { return r.transport }}
}

func (r answeringResolver) ClientConfigFor(string) (*rest.Config, error) { return r.config(), nil }

func (r answeringResolver) ClientConfigForService(string, string, int) (*rest.Config, error) {
	return r.config(), nil
}

// answerTransport answers the admission reviews the plugins send, as the
// caller said each webhook answers, and records each call in the run's trace
// (the request's context).
type answerTransport struct{ hooks []*offlineWebhook }

func (t answerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	i, err := strconv.Atoi(strings.TrimPrefix(req.URL.Path, "/"))
	if err != nil || i < 0 || i >= len(t.hooks) || req.URL.Host != "webhook.admit.invalid" {
		return nil, fmt.Errorf("no webhook is served at %s", req.URL)
	}
	h := t.hooks[i]
	var review map[string]any
	if req.Body != nil {
		data, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(data, &review); err != nil {
			return nil, fmt.Errorf("the admission review sent to %s: %w", h.name, err)
		}
	}
	request, _ := review["request"].(map[string]any)
	rec := traceFrom(req.Context())
	if h.answer != nil && h.answer.CallError != "" {
		rec.webhookCalled(h, request, nil)
		return nil, errors.New(h.answer.CallError)
	}
	answer := WebhookAnswer{Allowed: true}
	if h.answer != nil {
		answer = *h.answer
	}
	rec.webhookCalled(h, request, h.answer)
	response := map[string]any{"uid": request["uid"], "allowed": answer.Allowed}
	if !answer.Allowed {
		status := map[string]any{}
		if answer.Message != "" {
			status["message"] = answer.Message
		}
		if answer.Reason != "" {
			status["reason"] = answer.Reason
		}
		if answer.Code != 0 {
			status["code"] = answer.Code
		}
		response["status"] = status
	}
	if len(answer.Patch) > 0 {
		response["patch"] = base64.StdEncoding.EncodeToString(answer.Patch)
		response["patchType"] = "JSONPatch"
	}
	if len(answer.Warnings) > 0 {
		response["warnings"] = answer.Warnings
	}
	if len(answer.AuditAnnotations) > 0 {
		response["auditAnnotations"] = answer.AuditAnnotations
	}
	body, err := json.Marshal(map[string]any{"apiVersion": review["apiVersion"], "kind": "AdmissionReview", "response": response})
	if err != nil {
		return nil, err
	}
	return &http.Response{
		StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": []string{"application/json"}},
		Body:    io.NopCloser(bytes.NewReader(body)),
		Request: req, ContentLength: int64(len(body)),
	}, nil
}

// offlineInformers is an informer factory whose namespace and webhook
// configuration informers are synced and serve what they are given: the
// webhook plugins read nothing else of it.
type offlineInformers struct {
	informers.SharedInformerFactory
	namespaces offlineNamespaces
	mutating   offlineMutatingConfigurations
	validating offlineValidatingConfigurations
}

func (f offlineInformers) Core() coreinformers.Interface { return offlineCore{f.namespaces} }
func (f offlineInformers) Admissionregistration() admissionregistrationinformers.Interface {
	return offlineAdmission{mutating: f.mutating, validating: f.validating}
}

type offlineCore struct{ ns offlineNamespaces }

func (c offlineCore) V1() corev1informers.Interface { return offlineCoreV1{ns: c.ns} }

type offlineCoreV1 struct {
	corev1informers.Interface
	ns offlineNamespaces
}

func (c offlineCoreV1) Namespaces() corev1informers.TypedNamespaceInformer { return c.ns }

type offlineNamespaces struct {
	corev1informers.TypedNamespaceInformer
	lister corelisters.NamespaceLister
}

func (n offlineNamespaces) Informer() cache.SharedIndexInformer { return syncedInformer{} }
func (n offlineNamespaces) Lister() corelisters.NamespaceLister { return n.lister }

type offlineAdmission struct {
	admissionregistrationinformers.Interface
	mutating   offlineMutatingConfigurations
	validating offlineValidatingConfigurations
}

func (a offlineAdmission) V1() admissionregistrationv1informers.Interface {
	return offlineAdmissionV1{mutating: a.mutating, validating: a.validating}
}

type offlineAdmissionV1 struct {
	admissionregistrationv1informers.Interface
	mutating   offlineMutatingConfigurations
	validating offlineValidatingConfigurations
}

func (a offlineAdmissionV1) MutatingWebhookConfigurations() admissionregistrationv1informers.TypedMutatingWebhookConfigurationInformer {
	return a.mutating
}

func (a offlineAdmissionV1) ValidatingWebhookConfigurations() admissionregistrationv1informers.TypedValidatingWebhookConfigurationInformer {
	return a.validating
}

type offlineMutatingConfigurations struct {
	admissionregistrationv1informers.TypedMutatingWebhookConfigurationInformer
	lister admissionlisters.MutatingWebhookConfigurationLister
}

func (c offlineMutatingConfigurations) Informer() cache.SharedIndexInformer { return syncedInformer{} }
func (c offlineMutatingConfigurations) Lister() admissionlisters.MutatingWebhookConfigurationLister {
	return c.lister
}

type offlineValidatingConfigurations struct {
	admissionregistrationv1informers.TypedValidatingWebhookConfigurationInformer
	lister admissionlisters.ValidatingWebhookConfigurationLister
}

func (c offlineValidatingConfigurations) Informer() cache.SharedIndexInformer {
	return syncedInformer{}
}
func (c offlineValidatingConfigurations) Lister() admissionlisters.ValidatingWebhookConfigurationLister {
	return c.lister
}

// syncedRegistration is an event handler's registration on a synced informer.
type syncedRegistration struct {
	cache.ResourceEventHandlerRegistration
}

func (syncedRegistration) HasSynced() bool { return true }

func (syncedInformer) AddEventHandler(cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	return syncedRegistration{}, nil
}
