// Package webhook is the webhook configuration family: the descriptions
// (internal/core.Description) of MutatingWebhookConfiguration
// (mutating.go) and ValidatingWebhookConfiguration (validating.go), and what
// only webhooks have: their webhook block and its conversion (schema.go,
// convert.go), the caBundle that others may inject (cabundle.go), and the
// state moved from hashicorp/kubernetes (move.go). The resources, data
// sources and list resources are internal/core's.
package webhook

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	fwlist "github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/advice"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/apipath"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/core"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tlscheck"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/typecheck"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

// The family holds the objects of both kinds as an
// admissionregistrationv1.MutatingWebhookConfiguration: a
// ValidatingWebhookConfiguration is one whose webhooks have no
// reinvocationPolicy, the only field by which the two kinds' webhooks differ
// (k8s.io/api/admissionregistration/v1). Conversion, validation and warnings
// are written once over it; the kube client's objects are converted at the
// API calls (core.KubeAPI).
type configuration = admissionregistrationv1.MutatingWebhookConfiguration

// Resources are the resources of this family.
func Resources() []func() resource.Resource {
	return []func() resource.Resource{core.NewResource(mutating), core.NewResource(validating)}
}

// DataSources are the data sources of this family: per kind, one object by
// name (admission_<kind>) and the objects matching a label selector
// (admission_<kind>s).
func DataSources() []func() datasource.DataSource {
	return append(core.DataSources(mutating), core.DataSources(validating)...)
}

// ListResources are the list resources of this family, one per kind under
// the resource's type name (`terraform query`).
func ListResources() []func() fwlist.ListResource {
	return []func() fwlist.ListResource{core.NewListResource(mutating), core.NewListResource(validating)}
}

// Form is the resource form of the kind named apiKind ("MutatingWebhookConfiguration"), nil
// for another kind: what reads a value in the shape of the kind's resource into its API object
// (a ValidatingWebhookConfiguration, like every object of the family, as a
// MutatingWebhookConfiguration whose webhooks have no reinvocationPolicy).
func Form(apiKind string) core.FormReader[admissionregistrationv1.MutatingWebhookConfiguration] {
	switch apiKind {
	case mutating.API.Kind:
		return mutating
	case validating.API.Kind:
		return validating
	}
	return nil
}

// webhookKind is what one webhook configuration kind says of itself; the
// rest is the same for both (newKind).
type webhookKind[H hook] struct {
	typeName string
	api      core.API[configuration]
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
}

// newKind describes a webhook configuration kind.
func newKind[H hook, O, L, AC any](api kube.Kind[O, L, AC], k webhookKind[H]) *core.Description[objectModel[H], configuration] {
	k.api = core.KubeAPI[configuration](api)
	return &core.Description[objectModel[H], configuration]{
		TypeName: k.typeName,
		API:      k.api,
		Description: "A `" + k.api.Kind + "` (`admissionregistration.k8s.io/v1`): the webhooks the API server " +
			"calls to " + k.does + ". Written with server-side apply, so Terraform owns exactly the fields in the " +
			"configuration; fields set by others (such as a `ca_bundle` injected by cert-manager) are left to them.",
		GenerationDoc: "the webhooks",
		Schema: func() (map[string]schema.Attribute, map[string]schema.Block) {
			return map[string]schema.Attribute{"wait_for_endpoints": waitAttribute()}, webhookBlocks(k)
		},
		Renames:         apipath.SingularBlocks,
		ImportExample:   "my-webhooks",
		SelectorExample: "app=injector,tier!=test",
		Meta:            func(c *configuration) *metav1.ObjectMeta { return &c.ObjectMeta },
		Expand:          expandWebhooks[H],
		Flatten: func(h core.Header, obj *configuration, prior *objectModel[H]) objectModel[H] {
			m := flatten(k.newHook, h, obj, prior)
			if prior != nil {
				m.WaitForEndpoints = prior.WaitForEndpoints
			}
			return m
		},
		Default: validation.Default,
		Check:   validation.WebhookCheck,
		Advise: func(ctx context.Context, env core.PlanEnv, obj *configuration) []warning.Warning {
			// Mutating webhooks are called one after another, so their timeouts add up.
			ws := advice.Advice(obj, scopesOf(env), k.api.Kind == "MutatingWebhookConfiguration")
			ws = append(ws, advice.ReviewLockout(obj, env.ServerVersion)...)
			ws = append(ws, advice.ExactBypass(obj, advice.ServedVersions(ctx, env.Live()))...)
			// The services of the fail-closed webhooks that the apply creates or widens, as
			// the cluster has them (a webhook the apply leaves as it is fails as it did,
			// whatever the apply does); those the apply waits for are its concern.
			plan, _ := env.Plan.(*objectModel[H])
			stored, _ := env.Stored.(*configuration)
			ws = append(ws, advice.BackendWarnings(ctx, env.Live(), obj, func(i int) bool {
				return !waitsFor(obj, stored, i) || (plan != nil && plan.WaitForEndpoints.ValueBool())
			})...)
			ws = append(ws, certificateWarnings(ctx, env, obj)...)
			// What the webhooks intercept weighs their rules, selectors, match conditions,
			// service and timeouts together: while one is not known (a selector's labels
			// from another resource), an unknown value reads as empty and would match
			// everything, so the lockout check says nothing until it is known. A
			// ca_bundle known only at apply changes nothing of it.
			if env.UnknownUnder("webhooks", ".clientConfig.caBundle") {
				ws = slices.DeleteFunc(ws, func(w warning.Warning) bool { return w.Kind.Intercepts() })
			}
			return ws
		},
		BeforeWrite: func(ctx context.Context, c *kube.Client, plan *objectModel[H], obj, stored *configuration) diag.Diagnostics {
			var diags diag.Diagnostics
			if plan.WaitForEndpoints.ValueBool() {
				if diags = waitForEndpoints(ctx, c, obj, stored); diags.HasError() {
					return diags
				}
			}
			if !c.NoWebhookProof {
				// The proof at apply (proof.go): the API server calls each new or changed
				// webhook before the write enforces it.
				diags.Append(proveWebhooks(ctx, c, obj, stored)...)
			}
			return diags
		},
		Imported:      func(obj *configuration, m *objectModel[H]) { readAppliedEmptyCABundles(k.newHook, obj, m) },
		LeaveToOthers: func(plan, cfg *objectModel[H]) { leaveUnsetCABundles(k.newHook, plan, cfg) },
		Ownership:     managedCABundles[H],
		StateMovers: func(_ context.Context, write core.StateWriter[configuration]) []resource.StateMover {
			return []resource.StateMover{{StateMover: moveFromHashicorpKubernetes[H](k.typeName, write)}}
		},
	}
}

// scopes are the resource scopes of each provider client's cluster (typecheck.LiveScopes):
// the built-in resources, and the custom resources its discovery serves (through the plan's
// reader, core.PlanEnv.Live), read once per client and only when a rule names a resource
// that is not built in.
var scopes core.PerClient[*typecheck.Scopes]

// scopesOf is what the plan knows of resource scopes: the cluster's when it can be
// reached, else the built-in resources' only (no claim about the others).
func scopesOf(env core.PlanEnv) *typecheck.Scopes {
	r := env.Live()
	if r == nil {
		return typecheck.BuiltinScopes()
	}
	return scopes.Get(env.Client, func() (*typecheck.Scopes, bool) { return typecheck.LiveScopes(r), true })
}

// tlsCheckers are the TLS checks of each provider client's run (tlscheck.Checker): one
// handshake per backend host, port and caBundle, whatever the number of webhooks and plans.
var tlsCheckers core.PerClient[*tlscheck.Checker]

// certificateWarnings are the warnings on the certificates the API server needs to call the
// webhooks of obj: their caBundle's (offline), their URL backends' serving certificates (a TLS
// handshake from here, unless webhook_tls_check_on_plan = false; only where the URL and the
// caBundle are known), and the cert-manager Certificate the configuration's
// cert-manager.io/inject-ca-from annotation names (with a cluster).
func certificateWarnings(ctx context.Context, env core.PlanEnv, obj *configuration) []warning.Warning {
	settings := env.Settings()
	window, now := settings.ExpiryWarning(), time.Now()
	ws := advice.CABundleExpiry(obj, window, now)
	if !settings.NoWebhookTLSCheck {
		checker := tlscheck.New(0)
		if env.Provider != nil {
			checker = tlsCheckers.Get(env.Provider, func() (*tlscheck.Checker, bool) { return checker, true })
		}
		known := func(i int) bool {
			at := fmt.Sprintf("webhooks[%d].clientConfig.", i)
			return !env.UnknownUnder(at+"url") && !env.UnknownUnder(at+"caBundle")
		}
		ws = append(ws, advice.ServingCertificates(ctx, obj, checker.Check, known, window, now)...)
	}
	if !env.UnknownUnder("metadata.annotations") {
		ws = append(ws, advice.CertManagerWarnings(ctx, env.Live(), obj, window, now)...)
	}
	return ws
}
