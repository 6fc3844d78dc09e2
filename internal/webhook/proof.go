package webhook

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
)

// The proof at apply: before a webhook is enforced, or changed in what decides whether the API
// server can call it, the provider has the API server itself call the webhook's backend, with
// a request that nothing but the proof sends, and writes the configuration only once the
// backend has answered. A fail-closed webhook that the API server cannot call (a caBundle that
// does not verify the serving certificate, a certificate for another name or expired, a
// backend that is not running, answers 500 or too slowly) rejects every request it matches;
// the proof turns that outage into a failed apply that writes nothing.
//
// How. A temporary MutatingWebhookConfiguration (admission-probe-<random>) holds, per webhook
// to prove, a probe webhook with the webhook's client config (URL or service, caBundle), its
// timeout, side effects and review versions, failurePolicy Fail, one rule on CREATE of one
// resource, and an objectSelector on a label value that only the proof's requests carry; after
// them, a marker webhook that matches the same requests and whose match condition fails to
// evaluate. The proof sends a server dry-run create of a minimal object with that label. The
// mutating dispatcher calls the matching webhooks of a request one after another, in order,
// and evaluates a webhook's match conditions only when its turn comes
// (k8s.io/apiserver/pkg/admission/plugin/webhook/mutating.(*mutatingDispatcher).Dispatch and
// generic.(*Webhook).ShouldCallHook): a match condition that fails to evaluate, with
// failurePolicy Fail, rejects the request without calling anything
// (matchconditions.(*matcher).Match). So the answer to one request tells every case apart:
//
//   - rejected with the marker's error: the probe webhook was called and allowed (or patched)
//     the request: proven;
//   - `admission webhook "<probe>" denied the request`: the backend answered: proven;
//   - `failed calling webhook "<probe>": failed to call webhook: ...` (TLS, connection,
//     timeout, HTTP error, a malformed answer): what the real webhook would do; not proven;
//   - anything else (the dry run went through, or stopped later at validation): the server has
//     not loaded the temporary configuration yet (its webhook configuration informer,
//     k8s.io/apiserver/pkg/admission/configuration.NewMutatingWebhookConfigurationManager,
//     lags the write), so the proof asks again.
//
// A validating configuration cannot tell the cases apart: the validating dispatcher evaluates
// every webhook's match conditions before it calls any, and calls them in parallel
// (validating.(*validatingDispatcher).Dispatch), so an allowing answer and a configuration not
// loaded yet look the same. The proof therefore uses a mutating configuration for both kinds:
// the API server builds the call to a backend (its client, TLS settings and service
// resolution, k8s.io/apiserver/pkg/util/webhook.ClientManager; the AdmissionReview,
// k8s.io/apiserver/pkg/admission/plugin/webhook/request.CreateAdmissionObjects) the same way
// for both kinds, and a dry run writes nothing whatever a backend answers. Because the request
// is a dry run, the API server calls only webhooks whose sideEffects are None or NoneOnDryRun,
// which admissionregistration.k8s.io/v1 requires of every webhook.

const (
	// probePrefix begins the name of every temporary configuration.
	probePrefix = "admission-probe-"
	// probeConfigLabel marks the temporary configurations (value "true"), so that the next
	// apply finds those an interrupted one left.
	probeConfigLabel = "admission.seed-a73d233f.io/probe-configuration"
	// probeExpiresAnnotation is when a temporary configuration is no longer used (RFC 3339):
	// past it, any apply deletes it.
	probeExpiresAnnotation = "admission.seed-a73d233f.io/probe-expires"
	// ProbeLabel is the label of the proof's requests: its value is random per webhook, and
	// the probe webhooks match only it.
	ProbeLabel = "admission.seed-a73d233f.io/probe"
	// probeNamespace is where the dry-run objects of namespaced resources are made: every
	// cluster has it.
	probeNamespace = "default"
	// failOpenWait bounds the wait for a fail-open webhook, whose failure is only a warning.
	failOpenWait = 30 * time.Second
	// pollLoading is how soon the proof asks again while the server has not loaded the
	// temporary configuration; pollFailed after the server failed to call a backend.
	pollLoading, pollFailed = 100 * time.Millisecond, time.Second
)

// Summaries of the proof's diagnostics.
const (
	SummaryNotProven     = "The API server cannot call the webhook"
	SummaryFailOpenProof = "The API server cannot call the fail-open webhook"
	SummaryCouldNotProve = "Could not prove that the API server can call the webhook"
)

// provesFor reports whether the apply of obj over stored (nil on a create), both with the
// server's defaults, proves webhook i: a new webhook, or one whose client config (URL,
// service, caBundle), rules, failure policy, timeout or review versions change.
func provesFor(obj, stored *configuration, i int) bool {
	if stored == nil {
		return true
	}
	h := &obj.Webhooks[i]
	for j := range stored.Webhooks {
		old := &stored.Webhooks[j]
		if old.Name != h.Name {
			continue
		}
		return !reflect.DeepEqual(old.ClientConfig, h.ClientConfig) || !reflect.DeepEqual(old.Rules, h.Rules) ||
			!reflect.DeepEqual(old.FailurePolicy, h.FailurePolicy) || !reflect.DeepEqual(old.TimeoutSeconds, h.TimeoutSeconds) ||
			!reflect.DeepEqual(old.AdmissionReviewVersions, h.AdmissionReviewVersions)
	}
	return true
}

// injectedCA are the annotations by which cert-manager's CA injector fills in the caBundle of
// a webhook configuration after it is written.
var injectedCA = []string{"cert-manager.io/inject-ca-from", "cert-manager.io/inject-ca-from-secret", "cert-manager.io/inject-apiserver-ca"}

// proveWebhooks proves, for each webhook of obj that the apply proves (provesFor), that the API
// server can call it, within ctx less a margin for the write that follows. A fail-closed
// webhook not proven is an error on its block, so that nothing is written; a fail-open one a
// warning. When the proof itself cannot be made (forbidden, inconclusive) it says so in a
// warning, and the write goes on.
func proveWebhooks(ctx context.Context, c *kube.Client, obj, stored *configuration) diag.Diagnostics {
	var diags diag.Diagnostics
	obj = withStoredCABundles(obj, stored)
	var todo []int
	for i := range obj.Webhooks {
		if provesFor(obj, stored, i) {
			todo = append(todo, i)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	cs, err := c.Clientset()
	if err != nil {
		diags.AddWarning(SummaryCouldNotProve, "The proof at apply needs a connection to the API server: "+err.Error())
		return diags
	}
	dyn, err := c.Dynamic()
	if err != nil {
		diags.AddWarning(SummaryCouldNotProve, "The proof at apply needs a connection to the API server: "+err.Error())
		return diags
	}
	if deadline, ok := ctx.Deadline(); ok {
		// Leave the write that follows a tenth of the time left, up to 10 s.
		margin := min(time.Until(deadline)/10, 10*time.Second)
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(-margin))
		defer cancel()
	}
	p := &prover{cs: cs, dyn: dyn, start: time.Now()}
	defer func() { proofRequests.Add(int64(p.requests)) }()
	p.removeLeftovers(ctx)

	var hooks []probeHook
	for _, i := range todo {
		h := obj.Webhooks[i]
		at := path.Root("webhook").AtListIndex(i)
		if len(h.ClientConfig.CABundle) == 0 && slices.ContainsFunc(injectedCA, func(a string) bool { return obj.Annotations[a] != "" }) {
			diags.AddAttributeWarning(at, SummaryCouldNotProve, fmt.Sprintf(
				"Webhook %q has no ca_bundle yet: cert-manager's CA injector fills it in after the configuration is written, so the API server "+
					"cannot be shown to call it before. It was written without the proof at apply; check that the injected caBundle verifies the "+
					"webhook's serving certificate.", h.Name))
			continue
		}
		hooks = append(hooks, probeHook{index: i, at: at, hook: h})
	}
	if len(hooks) == 0 {
		return diags
	}
	diags.Append(p.prove(ctx, hooks)...)
	proofTimes.Lock()
	proofTimes.took = append(proofTimes.took, time.Since(p.start))
	proofTimes.Unlock()
	return diags
}

// withStoredCABundles is obj with the caBundle of stored's webhook of the same name where obj
// has none: a caBundle that the configuration leaves to others (cert-manager's CA injector) is
// not in the planned object, and the write keeps the one the cluster has. obj is not changed.
func withStoredCABundles(obj, stored *configuration) *configuration {
	if stored == nil {
		return obj
	}
	out := *obj
	out.Webhooks = slices.Clone(obj.Webhooks)
	for i := range out.Webhooks {
		h := &out.Webhooks[i]
		if len(h.ClientConfig.CABundle) > 0 {
			continue
		}
		for _, old := range stored.Webhooks {
			if old.Name == h.Name {
				h.ClientConfig.CABundle = old.ClientConfig.CABundle
			}
		}
	}
	return &out
}

// probeHook is one webhook to prove: its index and attribute path, and the webhook as the
// write would have it.
type probeHook struct {
	index int
	at    path.Path
	hook  admissionregistrationv1.MutatingWebhook
	// name is the probe webhook's name; value the label value its requests carry; target the
	// resource they create.
	name, value string
	target      probeTarget
}

// probeTarget is the resource of the proof's requests and the kind of its objects.
type probeTarget struct {
	gvr        schema.GroupVersionResource
	kind       string
	namespaced bool
}

// configMaps is the probe target when a webhook's first rule names no single resource that can
// be created: every cluster serves it.
var configMaps = probeTarget{gvr: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, kind: "ConfigMap", namespaced: true}

// proofRequests counts the requests of every proof this process made, for the tests of the
// request budget.
var proofRequests atomic.Int64

// proofTimes are the times the proofs of this process took, for the tests of the time a proof
// adds to an apply.
var proofTimes struct {
	sync.Mutex
	took []time.Duration
}

// prover makes one proof: its clients, and when it began.
type prover struct {
	cs    kubernetes.Interface
	dyn   dynamic.Interface
	start time.Time
	// requests counts the requests the proof made (the request budget, in the log).
	requests int
}

// removeLeftovers deletes the temporary configurations that an interrupted apply left, once
// they have expired (those of a proof running at the same time have not). Best effort: a
// leftover matches only requests that nobody sends.
func (p *prover) removeLeftovers(ctx context.Context) {
	p.requests++
	list, err := p.cs.AdmissionregistrationV1().MutatingWebhookConfigurations().List(ctx, metav1.ListOptions{LabelSelector: probeConfigLabel + "=true"})
	if err != nil {
		tflog.Debug(ctx, "cannot list leftover webhook probes", map[string]any{"error": err.Error()})
		return
	}
	for _, cfg := range list.Items {
		expires, err := time.Parse(time.RFC3339, cfg.Annotations[probeExpiresAnnotation])
		if !strings.HasPrefix(cfg.Name, probePrefix) || (err == nil && time.Now().Before(expires)) {
			continue
		}
		p.requests++
		if err := p.cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(ctx, cfg.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			tflog.Debug(ctx, "cannot delete a leftover webhook probe", map[string]any{"name": cfg.Name, "error": err.Error()})
			continue
		}
		tflog.Info(ctx, "deleted a webhook probe left by an interrupted apply", map[string]any{"name": cfg.Name})
	}
}

// randomHex is n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// prove makes the temporary configuration for hooks, proves each, and deletes the
// configuration in every outcome.
func (p *prover) prove(ctx context.Context, hooks []probeHook) diag.Diagnostics {
	var diags diag.Diagnostics
	nonce := randomHex(6)
	marker := "marker-" + nonce + ".probe.admission.seed-a73d233f.io"
	// A label key that no object has: its lookup fails, with this text in the server's error.
	markerKey := "admission.seed-a73d233f.io/probe-marker-" + nonce
	values := make([]string, len(hooks))
	targets := map[schema.GroupVersionResource]probeTarget{}
	for i := range hooks {
		h := &hooks[i]
		h.value = randomHex(8)
		values[i] = h.value
		h.name = "p" + nonce + "." + h.hook.Name
		if len(validation.IsDNS1123Subdomain(h.name)) > 0 {
			h.name = fmt.Sprintf("p%s-%d.probe.admission.seed-a73d233f.io", nonce, i)
		}
		h.target = p.target(ctx, h.hook.Rules, targets)
	}

	fail, none := admissionregistrationv1.Fail, admissionregistrationv1.NeverReinvocationPolicy
	expires := time.Now().Add(time.Hour)
	if d, ok := ctx.Deadline(); ok {
		expires = d.Add(time.Minute)
	}
	cfg := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{
			Name:        probePrefix + nonce,
			Labels:      map[string]string{probeConfigLabel: "true"},
			Annotations: map[string]string{probeExpiresAnnotation: expires.UTC().Format(time.RFC3339)},
		},
	}
	for _, h := range hooks {
		cfg.Webhooks = append(cfg.Webhooks, admissionregistrationv1.MutatingWebhook{
			Name:                    h.name,
			ClientConfig:            h.hook.ClientConfig,
			Rules:                   []admissionregistrationv1.RuleWithOperations{probeRule(h.target)},
			FailurePolicy:           &fail,
			ObjectSelector:          &metav1.LabelSelector{MatchLabels: map[string]string{ProbeLabel: h.value}},
			SideEffects:             h.hook.SideEffects,
			TimeoutSeconds:          h.hook.TimeoutSeconds,
			AdmissionReviewVersions: h.hook.AdmissionReviewVersions,
			ReinvocationPolicy:      &none,
		})
	}
	// The marker comes last: the dispatcher reaches it only once the probe webhook before it
	// has been called and allowed the request.
	var rules []admissionregistrationv1.RuleWithOperations
	ruled := map[probeTarget]bool{}
	for _, h := range hooks {
		if !ruled[h.target] {
			ruled[h.target] = true
			rules = append(rules, probeRule(h.target))
		}
	}
	noSideEffects := admissionregistrationv1.SideEffectClassNone
	markerHook := hooks[0].hook.ClientConfig // never called: its match condition fails first
	cfg.Webhooks = append(cfg.Webhooks, admissionregistrationv1.MutatingWebhook{
		Name:                    marker,
		ClientConfig:            markerHook,
		Rules:                   rules,
		FailurePolicy:           &fail,
		ObjectSelector:          &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: ProbeLabel, Operator: metav1.LabelSelectorOpIn, Values: values}}},
		SideEffects:             &noSideEffects,
		AdmissionReviewVersions: []string{"v1"},
		ReinvocationPolicy:      &none,
		MatchConditions: []admissionregistrationv1.MatchCondition{{
			Name:       "probe-marker",
			Expression: fmt.Sprintf("object.metadata.labels[%q] == 'x'", markerKey),
		}},
	})

	configs := p.cs.AdmissionregistrationV1().MutatingWebhookConfigurations()
	p.requests++
	if _, err := configs.Create(ctx, cfg, metav1.CreateOptions{}); err != nil {
		diags.AddWarning(SummaryCouldNotProve, couldNotProve(hooks, "it could not create its temporary MutatingWebhookConfiguration", err))
		return diags
	}
	defer func() {
		// Removed in every outcome, even when the apply's context is done.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		p.requests++
		if err := configs.Delete(dctx, cfg.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			tflog.Warn(ctx, "cannot delete the webhook probe; the next apply deletes it", map[string]any{"name": cfg.Name, "error": err.Error()})
		}
		tflog.Info(ctx, "webhook proof done", map[string]any{"webhooks": len(hooks), "requests": p.requests,
			"took": time.Since(p.start).Round(time.Millisecond).String()})
	}()
	for _, h := range hooks {
		diags.Append(p.proveOne(ctx, h, markerKey)...)
		if diags.HasError() {
			// Nothing is written: the other webhooks need not be proven.
			break
		}
	}
	return diags
}

// probeRule is the rule of a probe webhook: CREATE of the target resource.
func probeRule(t probeTarget) admissionregistrationv1.RuleWithOperations {
	scope := admissionregistrationv1.AllScopes
	return admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{t.gvr.Group}, APIVersions: []string{t.gvr.Version},
			Resources: []string{t.gvr.Resource}, Scope: &scope},
	}
}

// target is the resource the proof of a webhook with rules creates: the first rule's when it
// names one group, version and resource (no wildcard, no subresource) that the server serves
// and can create, so that a backend that answers only for its own resources answers; else
// configmaps. seen caches the answers of discovery within the proof.
func (p *prover) target(ctx context.Context, rules []admissionregistrationv1.RuleWithOperations, seen map[schema.GroupVersionResource]probeTarget) probeTarget {
	if len(rules) == 0 {
		return configMaps
	}
	r := rules[0]
	if len(r.APIGroups) != 1 || len(r.APIVersions) != 1 || len(r.Resources) != 1 || r.APIGroups[0] == "*" || r.APIVersions[0] == "*" ||
		strings.ContainsAny(r.Resources[0], "*/") || !slices.ContainsFunc(r.Operations, func(o admissionregistrationv1.OperationType) bool {
		return o == admissionregistrationv1.Create || o == admissionregistrationv1.OperationAll
	}) {
		return configMaps
	}
	gvr := schema.GroupVersionResource{Group: r.APIGroups[0], Version: r.APIVersions[0], Resource: r.Resources[0]}
	if gvr.Group == admissionregistrationv1.GroupName {
		// The API server calls no webhook for the admission objects themselves
		// (k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/rules.IsExemptAdmissionConfigurationResource).
		return configMaps
	}
	if t, ok := seen[gvr]; ok {
		return t
	}
	if gvr == configMaps.gvr {
		seen[gvr] = configMaps
		return configMaps
	}
	p.requests++
	list, err := p.cs.Discovery().ServerResourcesForGroupVersion(gvr.GroupVersion().String())
	if err != nil {
		tflog.Debug(ctx, "webhook proof: cannot discover the rule's resource; probing configmaps", map[string]any{"resource": gvr.String(), "error": err.Error()})
		return configMaps
	}
	for _, res := range list.APIResources {
		if res.Name == gvr.Resource && slices.Contains(res.Verbs, "create") {
			t := probeTarget{gvr: gvr, kind: res.Kind, namespaced: res.Namespaced}
			seen[gvr] = t
			return t
		}
	}
	return configMaps
}

// outcome is what one answer of the server says of a probe.
type outcome int

const (
	notLoaded    outcome = iota // no sign of the temporary configuration yet
	answered                    // the backend answered: proven
	callFailed                  // the server failed to call the backend
	inconclusive                // another error: the proof cannot tell
	forbidden                   // the provider may not send the proof's request
)

// classify reads the server's answer err to a probe request of h.
func classify(err error, h probeHook, markerKey string) outcome {
	if err == nil {
		return notLoaded
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, markerKey):
		return answered
	case strings.Contains(msg, fmt.Sprintf("admission webhook %q denied the request", h.name)):
		return answered
	case strings.Contains(msg, fmt.Sprintf("failed calling webhook %q", h.name)):
		return callFailed
	case apierrors.IsInvalid(err) || apierrors.IsAlreadyExists(err):
		// Past admission: the temporary configuration was not consulted.
		return notLoaded
	case apierrors.IsForbidden(err) || apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err):
		return forbidden
	}
	return inconclusive
}

// proveOne sends h's probe request until the backend answers or ctx (or the fail-open bound)
// runs out, and says what it found.
func (p *prover) proveOne(ctx context.Context, h probeHook, markerKey string) diag.Diagnostics {
	var diags diag.Diagnostics
	closed := failsClosed(h.hook.FailurePolicy)
	if !closed {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, failOpenWait)
		defer cancel()
	}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": h.target.gvr.GroupVersion().String(),
		"kind":       h.target.kind,
		"metadata": map[string]any{
			"generateName": probePrefix,
			"labels":       map[string]any{ProbeLabel: h.value},
		},
	}}
	var res dynamic.ResourceInterface = p.dyn.Resource(h.target.gvr)
	if h.target.namespaced {
		obj.SetNamespace(probeNamespace)
		res = p.dyn.Resource(h.target.gvr).Namespace(probeNamespace)
	}
	start := time.Now()
	var last error
	var lastOutcome outcome
	attempts := 0
	for {
		attempts++
		p.requests++
		_, err := res.Create(ctx, obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		o := classify(err, h, markerKey)
		var status apierrors.APIStatus
		if o == inconclusive && !errors.As(err, &status) && lastOutcome == callFailed {
			// No answer of the server (our own deadline, seen by the client's rate limiter or
			// the connection): the server's previous answer stays the last word.
			if ctx.Err() != nil {
				break
			}
		} else {
			last, lastOutcome = err, o
		}
		switch o {
		case answered:
			tflog.Info(ctx, "the API server called the webhook", map[string]any{"webhook": h.hook.Name, "attempts": attempts,
				"waited": time.Since(start).Round(time.Millisecond).String()})
			return nil
		case forbidden:
			hint := ""
			if apierrors.IsForbidden(err) && strings.Contains(err.Error(), "cannot create resource") {
				hint = fmt.Sprintf(" The proof needs create (with dry run) on %s, and create and delete on mutatingwebhookconfigurations.", h.target.gvr.Resource)
			}
			diags.AddAttributeWarning(h.at, SummaryCouldNotProve, fmt.Sprintf(
				"Could not prove that the API server can call webhook %q: the proof's dry-run create of %s in %s was refused: %v. "+
					"The configuration is written without the proof, as if prove_webhooks were false.%s",
				h.hook.Name, h.target.gvr.Resource, nsText(h.target), err, hint))
			return diags
		}
		wait := pollLoading
		if o == callFailed || o == inconclusive {
			wait = pollFailed
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
			continue
		}
		break
	}
	waited := time.Since(start).Round(time.Second)
	switch lastOutcome {
	case callFailed:
		reason := strings.ReplaceAll(last.Error(), fmt.Sprintf("%q", h.name), fmt.Sprintf("%q", h.hook.Name))
		if closed {
			diags.AddAttributeError(h.at, SummaryNotProven, fmt.Sprintf(
				"Before enforcing the fail-closed webhook %q, the provider had the API server call it with a dry-run request that nothing else "+
					"sends, for %s (%d attempts); the API server's last answer was:\n\n%s\n\n"+
					"Nothing was written, so the requests the webhook matches are not rejected meanwhile (on an update, the configuration stays as "+
					"it was). Check the webhook's ca_bundle against its serving certificate (its CA, its host names or IP addresses, its expiry), "+
					"that its backend runs and answers within timeout_seconds, or give the proof more time (timeouts { create = \"10m\" }, or update). "+
					"The provider setting prove_webhooks = false turns the proof off.",
				h.hook.Name, waited, attempts, reason))
		} else {
			diags.AddAttributeWarning(h.at, SummaryFailOpenProof, fmt.Sprintf(
				"The provider had the API server call the fail-open webhook %q with a dry-run request for %s (%d attempts); the last answer was:\n\n%s\n\n"+
					"The configuration is written: the API server lets the requests the webhook matches through unchecked (failure_policy = \"Ignore\") "+
					"for as long as it cannot call it, and says so only in its logs and metrics.",
				h.hook.Name, waited, attempts, reason))
		}
	default:
		why := "the API server did not consult its temporary configuration in time"
		if last != nil && lastOutcome == inconclusive {
			why = "the API server's last answer did not say: " + last.Error()
		}
		diags.AddAttributeWarning(h.at, SummaryCouldNotProve, fmt.Sprintf(
			"Could not prove within %s that the API server can call webhook %q: %s. The configuration is written without the proof.",
			waited, h.hook.Name, why))
	}
	return diags
}

// nsText says where a probe object is made.
func nsText(t probeTarget) string {
	if t.namespaced {
		return "namespace " + probeNamespace
	}
	return "the cluster"
}

// couldNotProve is the detail of a warning that the proof of hooks could not be made.
func couldNotProve(hooks []probeHook, what string, err error) string {
	names := make([]string, len(hooks))
	for i, h := range hooks {
		names[i] = fmt.Sprintf("%q", h.hook.Name)
	}
	extra := ""
	if apierrors.IsForbidden(err) {
		extra = " The proof needs create and delete on mutatingwebhookconfigurations, and create (with dry run) on the resources it probes."
	}
	return fmt.Sprintf("Could not prove that the API server can call webhooks %s: %s: %v. The configuration is written without the proof, "+
		"as if prove_webhooks were false.%s", strings.Join(names, ", "), what, err, extra)
}
