package matching

import (
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/cel"
	policymatching "k8s.io/apiserver/pkg/admission/plugin/policy/matching"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/generic"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/cel/environment"
	webhookutil "k8s.io/apiserver/pkg/util/webhook"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// Config is what a Matcher reads beyond the request and the hooks it is asked about.
type Config struct {
	// Namespaces are the namespaces of requests, for namespace selectors (required).
	Namespaces Namespaces
	// Equivalents are the resources that are one another's equivalents, for rules with
	// matchPolicy Equivalent; nil is NoEquivalents.
	Equivalents Equivalents
	// Authorizer answers the match conditions that call `authorizer`; nil makes such a
	// condition fail to evaluate.
	Authorizer authorizer.UnconditionalAuthorizer
	// Version is the server's; it decides whether webhooks see the virtual review resources
	// (excluded.go). The zero Version is validation.Assumed.
	Version validation.Version
}

// Matcher answers which admission hooks the server calls for a request. It is safe for
// concurrent use.
type Matcher struct {
	namespaces Namespaces
	objects    admission.ObjectInterfaces
	authorizer authorizer.UnconditionalAuthorizer
	version    validation.Version
	// webhooks is the server's webhook plugin over the namespaces, made on first use.
	webhooks func() (*generic.Webhook, error)
	policies *policymatching.Matcher
}

// New is the matcher of c.
func New(c Config) (*Matcher, error) {
	if c.Namespaces == nil {
		return nil, fmt.Errorf("matching: no namespace source")
	}
	equivalents := c.Equivalents
	if equivalents == nil {
		equivalents = NoEquivalents()
	}
	webhooks := sync.OnceValues(func() (*generic.Webhook, error) { return webhookPlugin(c.Namespaces) })
	if _, ok := c.Namespaces.(syntheticNamespaces); ok {
		webhooks = syntheticPlugin
	}
	return &Matcher{
		namespaces: c.Namespaces,
		objects:    objectInterfaces(equivalents),
		authorizer: c.Authorizer,
		version:    c.Version,
		webhooks:   webhooks,
		policies:   policymatching.NewMatcher(c.Namespaces.Lister(), c.Namespaces.Client()),
	}, nil
}

// webhookPlugin is the server's webhook plugin with neither sources nor dispatcher, reading
// namespaces from ns: only its ShouldCallHook is asked. Making one builds CEL environments
// (its match condition compiler), some milliseconds.
func webhookPlugin(ns Namespaces) (*generic.Webhook, error) {
	wh, err := generic.NewWebhook(admission.NewHandler(admission.Create, admission.Update, admission.Delete, admission.Connect), nil,
		nil, func(*webhookutil.ClientManager) generic.Dispatcher { return nil })
	if err != nil {
		return nil, err
	}
	wh.SetExternalKubeClientSet(ns.Client())
	wh.SetExternalKubeInformerFactory(namespaceInformers(ns.Client(), ns.Lister()))
	return wh, nil
}

// syntheticPlugin is the webhook plugin over SyntheticNamespaces, which hold nothing: made
// once and only read after, so that the lockout advice of every plan does not build it again.
var syntheticPlugin = sync.OnceValues(func() (*generic.Webhook, error) { return webhookPlugin(syntheticNamespaces{}) })

// ObjectInterfaces are what the admission plugins convert objects and find equivalent
// resources with, for the requests this matcher is asked about: the built-in kinds' scheme
// (k8s.io/client-go kubernetes/scheme) with the conversions of conversion.go, custom resources
// as unstructured objects, and the matcher's Equivalents. A dispatcher given the
// same requests must be given these, so that it matches as the matcher does.
func (m *Matcher) ObjectInterfaces() admission.ObjectInterfaces { return m.objects }

// PolicyPredicates is the server's policy matcher over the matcher's namespaces, which the
// policy dispatchers take (k8s.io/apiserver pkg/admission/plugin/policy/validating and
// mutating NewDispatcher).
func (m *Matcher) PolicyPredicates() *policymatching.Matcher { return m.policies }

// versioned gives the match conditions the request's objects as the kind gvk, converted as the
// server converts them (admission.NewVersionedAttributes).
func (m *Matcher) versioned(attr admission.Attributes, gvk schema.GroupVersionKind) (*admission.VersionedAttributes, error) {
	return admission.NewVersionedAttributes(attr, gvk, m.objects)
}

// versionedAccessor is versioned as ShouldCallHook takes it.
type versionedAccessor struct {
	m    *Matcher
	attr admission.Attributes
}

func (v versionedAccessor) VersionedAttribute(gvk schema.GroupVersionKind) (*admission.VersionedAttributes, error) {
	return v.m.versioned(v.attr, gvk)
}

// conditionCompiler is the compiler of match conditions that the server's webhook plugin
// makes (generic.NewWebhook's filterCompiler), which policies' conditions also compile with
// when they come without a compiled matcher (CompilePolicyConditions): the base environment
// of the default compatibility version. Built once; it holds no state of a request.
var conditionCompiler = sync.OnceValue(func() cel.ConditionCompiler {
	return cel.NewConditionCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
})
