package differential

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/simulate"
)

// The requests where the server reads more than the request's object: the namespace's
// annotations (namespaceObject), equivalent versions and groups under matchPolicy Equivalent
// (autoscaling/v1 and v2 HorizontalPodAutoscalers, core and events.k8s.io events, converted
// as the server converts them), the privileged group system:masters in authorizer checks, and
// the scale subresource.
const (
	exactNamespace = iota
	exactHPA
	exactEvents
	exactMasters
	exactScale
	exactKinds
)

var exactValidations = map[int][]string{
	exactNamespace: {
		"!has(namespaceObject.metadata.annotations) || !('max-replicas' in namespaceObject.metadata.annotations) || object.kind != 'Deployment' || object.spec.replicas <= int(namespaceObject.metadata.annotations['max-replicas'])",
		"has(namespaceObject.metadata.annotations) && 'owner' in namespaceObject.metadata.annotations && namespaceObject.metadata.annotations['owner'] == 'team-a'",
		"namespaceObject.metadata.annotations['owner'] != 'team-b'",
	},
	exactHPA: {
		"object.spec.maxReplicas <= 10",
		"object.apiVersion == 'autoscaling/v1'",
		"!has(object.spec.targetCPUUtilizationPercentage) || object.spec.targetCPUUtilizationPercentage < 70",
		"!has(object.spec.metrics) || object.spec.metrics[0].resource.target.averageUtilization < 70",
	},
	exactEvents: {
		"object.apiVersion == 'v1'",
		"object.reason != 'Killing'",
		"!has(object.note) || object.note != 'bad'",
		"!has(object.message) || object.message != 'bad'",
		"object.type == 'Normal'",
	},
	exactMasters: {
		"authorizer.group('').resource('secrets').namespace(object.metadata.namespace).check('get').allowed()",
		"authorizer.group('apps').resource('deployments').check('delete').allowed()",
		"request.userInfo.groups.exists(g, g == 'system:masters')",
	},
	exactScale: {
		"object.spec.replicas <= 4",
		"object.kind == 'Scale' && object.apiVersion == 'autoscaling/v1'",
		"oldObject.spec.replicas >= object.spec.replicas",
	},
}

func (g *generator) exactRules(kind int) []admissionregistrationv1.NamedRuleWithOperations {
	rule := func(groups, versions, resources []string, ops ...admissionregistrationv1.OperationType) []admissionregistrationv1.NamedRuleWithOperations {
		return []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: ops, Rule: admissionregistrationv1.Rule{APIGroups: groups, APIVersions: versions, Resources: resources}}}}
	}
	switch kind {
	case exactHPA:
		return rule([]string{"autoscaling"}, []string{g.pick("v1", "v2")}, []string{"horizontalpodautoscalers"}, "CREATE", "UPDATE")
	case exactEvents:
		return rule([]string{g.pick("", "events.k8s.io")}, []string{"v1"}, []string{"events"}, "CREATE", "UPDATE")
	case exactScale:
		return rule([]string{g.pick("apps", "*")}, []string{"v1"}, []string{g.pick("deployments/scale", "*/scale")}, "UPDATE")
	}
	return rule([]string{"apps", ""}, []string{"v1"}, []string{"deployments", "configmaps"}, "CREATE", "UPDATE")
}

// exactObject is the kind's request object, labelled with the case.
func (g *generator) exactObject(kind int, label string, n int) *unstructured.Unstructured {
	ns := namespaceNames[g.r.IntN(len(namespaceNames))]
	name := fmt.Sprintf("%s-%s-%d", g.pick("app", "web"), label, n)
	meta := map[string]any{"name": name, "namespace": ns, "labels": map[string]any{"sim-case": label}}
	switch kind {
	case exactHPA:
		target := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
		spec := map[string]any{"scaleTargetRef": target, "minReplicas": int64(1), "maxReplicas": int64(5 + g.r.IntN(11))}
		// The CPU target is always given: without it the server's defaults of the HPA
		// (k8s.io/kubernetes pkg/apis/autoscaling/v1 and v2 SetDefaults_HorizontalPodAutoscaler:
		// a target of 80%), which cannot be linked, decide what the expressions see.
		cpu := int64(50 + 10*g.r.IntN(4))
		if g.chance(0.5) {
			spec["targetCPUUtilizationPercentage"] = cpu
			return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": meta, "spec": spec}}
		}
		spec["metrics"] = []any{map[string]any{"type": "Resource", "resource": map[string]any{"name": "cpu",
			"target": map[string]any{"type": "Utilization", "averageUtilization": cpu}}}}
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": meta, "spec": spec}}
	case exactEvents:
		reason, text, typ := g.pick("Started", "Killing", "Pulled"), g.pick("ok", "bad"), g.pick("Normal", "Warning")
		regarding := map[string]any{"apiVersion": "v1", "kind": "Pod", "name": "p", "namespace": ns}
		if g.chance(0.5) {
			return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Event", "metadata": meta,
				"involvedObject": regarding, "reason": reason, "message": text, "type": typ,
				"source": map[string]any{"component": "sim"}, "count": int64(1)}}
		}
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": meta,
			"eventTime": "2026-01-02T03:04:05.000000Z", "reportingController": "example.com/sim", "reportingInstance": "sim-1",
			"action": "Observe", "reason": reason, "note": text, "type": typ, "regarding": regarding}}
	}
	return g.object(label, n)
}

// exactCase is a validating policy on one of the exactKinds and its requests; a scale case's
// requests are updates of the scale of Deployments it stores.
func (g *generator) exactCase(ctx context.Context, t *testing.T, w *world, i int) *validatingCase {
	kind := i % exactKinds
	label := fmt.Sprintf("x%d", i)
	name := fmt.Sprintf("sim-x%d", i)
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name}}
	fp := admissionregistrationv1.FailurePolicyType(g.pick("Fail", "Ignore"))
	mp := admissionregistrationv1.MatchPolicyType(g.pick("Equivalent", "Exact"))
	p.Spec.FailurePolicy = &fp
	p.Spec.MatchConstraints = &admissionregistrationv1.MatchResources{ResourceRules: g.exactRules(kind), MatchPolicy: &mp,
		ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"sim-case": label}}}
	if kind == exactScale {
		// A Scale has no labels: the case's requests are told apart by the Deployments' names.
		p.Spec.MatchConstraints.ObjectSelector = nil
		p.Spec.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "case", Expression: "object.metadata.name.endsWith('-" + label + "')"}}
	}
	for j := 0; j < 1+g.r.IntN(2); j++ {
		v := admissionregistrationv1.Validation{Expression: g.pick(exactValidations[kind]...)}
		if g.chance(0.5) {
			v.MessageExpression = "'denied in ' + string(request.namespace) + ' for ' + object.metadata.name"
		}
		p.Spec.Validations = append(p.Spec.Validations, v)
	}
	b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: name}}
	b.Spec.PolicyName = name
	b.Spec.ValidationActions = []admissionregistrationv1.ValidationAction{admissionregistrationv1.ValidationAction(g.pick("Deny", "Warn"))}
	c := &validatingCase{policy: p, binding: b, clients: validatingClients}
	for j := 0; j < 6; j++ {
		r := &request{object: g.exactObject(kind, label, j)}
		switch kind {
		case exactMasters:
			r.admin = j%2 == 0
		case exactScale:
			d := g.object(label, j)
			for d.GetKind() != "Deployment" {
				d = g.object(label, j)
			}
			d.SetName(fmt.Sprintf("scaled-%d-%s", j, label))
			stored, err := w.stored(ctx, d)
			if err != nil {
				t.Fatal(err)
			}
			deployments := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
			scale, err := w.dyn.Resource(deployments).Namespace(stored.GetNamespace()).Get(ctx, stored.GetName(), metav1.GetOptions{}, "scale")
			if err != nil {
				t.Fatal(err)
			}
			r.old = scale
			r.object = scale.DeepCopy()
			_ = unstructured.SetNestedField(r.object.Object, int64(g.r.IntN(8)), "spec", "replicas")
			r.subresource, r.resource = "scale", deployments
		}
		c.requests = append(c.requests, r)
	}
	return c
}

func TestExactAgainstAPIServer(t *testing.T) {
	w := setup(t)
	ctx := context.Background()
	start := time.Now()
	d := install(t, ctx, w, start, newGenerator(5), 50, func(g *generator, i int) *validatingCase { return g.exactCase(ctx, t, w, i) })

	matched, denied, warned := map[int]int{}, 0, 0
	d.compare(t, func(c *validatingCase, r *request, sr *simulate.Request) answers {
		off, err := simulate.Validate(ctx, c.policy, c.binding, sr)
		if err != nil {
			t.Fatal(err)
		}
		if off.Matched {
			var kind int
			if _, err := fmt.Sscanf(c.policy.Name, "sim-x%d", &kind); err != nil {
				t.Fatal(err)
			}
			matched[kind%exactKinds]++
		}
		if !off.Allowed {
			denied++
		}
		if len(off.Warnings) > 0 {
			warned++
		}
		var srv serverAnswer
		return answers{
			ask: func() { srv = w.send(ctx, r) },
			same: func() bool {
				return srv.allowed == off.Allowed && srv.message == off.Message && sameStrings(srv.warnings, off.Warnings)
			},
			disagreement: func() string {
				return fmt.Sprintf("%s, %s %s %s/%s (update %v, admin %v):\n  offline: matched %v allowed %v message %q warnings %q\n  server:  allowed %v message %q warnings %q\n  policy: %s\n  binding: %s",
					c.policy.Name, r.object.GetAPIVersion(), r.object.GetKind(), r.object.GetNamespace(), r.object.GetName(), r.old != nil, r.admin,
					off.Matched, off.Allowed, short(off.Message), off.Warnings, srv.allowed, short(srv.message), srv.warnings, jsonString(c.policy.Spec), jsonString(c.binding.Spec))
			},
		}
	})
	d.report(t, "requests on namespace annotations, equivalent versions, system:masters and scale agree on verdict, message and warnings", "policies",
		fmt.Sprintf("matched: %d namespace annotations, %d HPA, %d events, %d system:masters, %d scale; %d denied, %d warned",
			matched[exactNamespace], matched[exactHPA], matched[exactEvents], matched[exactMasters], matched[exactScale], denied, warned))
}

// exactWebhookCase is a webhook configuration of one or two webhooks on events or HPAs of one
// group and version, with requests in either, so that matchPolicy Equivalent decides.
func (g *generator) exactWebhookCase(i int, url string, caPEM []byte) *webhookCase {
	kind := []int{exactHPA, exactEvents}[i%2]
	label := fmt.Sprintf("xw%d", i)
	name := fmt.Sprintf("sim-xw%d", i)
	var hooks []admissionregistrationv1.MutatingWebhook
	for j := 0; j < 1+g.r.IntN(2); j++ {
		hookName := fmt.Sprintf("h%d.%s.example.com", j, name)
		fp := admissionregistrationv1.Ignore
		mp := admissionregistrationv1.MatchPolicyType(g.pick("Equivalent", "Exact"))
		se := admissionregistrationv1.SideEffectClassNone
		timeout := int32(5)
		h := admissionregistrationv1.MutatingWebhook{
			Name: hookName, ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: ptr(url + "/" + hookName), CABundle: caPEM},
			FailurePolicy: &fp, MatchPolicy: &mp, SideEffects: &se, TimeoutSeconds: &timeout, AdmissionReviewVersions: []string{"v1"},
			ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"sim-case": label}},
		}
		for _, r := range g.exactRules(kind) {
			h.Rules = append(h.Rules, r.RuleWithOperations)
		}
		if g.chance(0.3) {
			h.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "version", Expression: g.pick("object.apiVersion == 'v1'", "object.apiVersion == 'autoscaling/v1'", "has(object.note)")}}
		}
		hooks = append(hooks, h)
	}
	c := &webhookCase{}
	if g.chance(0.5) {
		c.mutating = &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}, Webhooks: hooks}
	} else {
		c.validating = &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}}
		for _, h := range hooks {
			c.validating.Webhooks = append(c.validating.Webhooks, admissionregistrationv1.ValidatingWebhook{
				Name: h.Name, ClientConfig: h.ClientConfig, Rules: h.Rules, FailurePolicy: h.FailurePolicy, MatchPolicy: h.MatchPolicy,
				ObjectSelector: h.ObjectSelector, SideEffects: h.SideEffects, TimeoutSeconds: h.TimeoutSeconds,
				AdmissionReviewVersions: h.AdmissionReviewVersions, MatchConditions: h.MatchConditions,
			})
		}
	}
	for j := 0; j < 6; j++ {
		c.requests = append(c.requests, &request{object: g.exactObject(kind, label, j)})
	}
	return c
}

// Webhooks on events or HPAs of one version are called for the equivalent versions and groups
// under matchPolicy Equivalent (the server's conversion decides what their match conditions see),
// and not under Exact.
func TestExactWebhooksAgainstAPIServer(t *testing.T) {
	w := setup(t)
	ctx := context.Background()
	start := time.Now()
	rec := newRecorder(t)
	d := install(t, ctx, w, start, newGenerator(6), 30, func(g *generator, i int) *webhookCase {
		return g.exactWebhookCase(i, rec.server.URL, rec.caPEM)
	})
	calls, skips := 0, 0
	d.compare(t, func(c *webhookCase, r *request, sr *simulate.Request) answers {
		off, err := simulate.MatchConfiguration(ctx, c.mutating, c.validating, sr)
		if err != nil {
			t.Fatal(err)
		}
		calls += len(off.Called)
		skips += len(off.Skipped)
		key := r.object.GetNamespace() + "/" + r.object.GetName()
		want := append([]string(nil), off.Called...)
		if c.validating != nil {
			sort.Strings(want)
		}
		var srv serverAnswer
		var called []string
		return answers{
			ask: func() {
				rec.take(key)
				srv = w.send(ctx, r)
				called = rec.take(key)
				if c.validating != nil {
					sort.Strings(called)
				}
			},
			same: func() bool { return srv.allowed && sameStrings(called, want) },
			disagreement: func() string {
				cfg := any(c.validating)
				if c.mutating != nil {
					cfg = c.mutating
				}
				return fmt.Sprintf("%s %s %s (update %v):\n  offline: called %q skipped %+v\n  server:  called %q allowed %v message %q\n  configuration: %s",
					r.object.GetAPIVersion(), r.object.GetKind(), key, r.old != nil, off.Called, off.Skipped, called, srv.allowed, short(srv.message), jsonString(cfg))
			},
		}
	})
	d.report(t, "webhook requests on events and HPAs of equivalent versions agree on the webhooks called", "configurations",
		fmt.Sprintf("%d calls, %d skips", calls, skips))
}
