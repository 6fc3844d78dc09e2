package differential

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	admissionclient "k8s.io/client-go/kubernetes/typed/admissionregistration/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/simulate"
)

// admitCase is a generated set of two to five admission objects of both kinds (mutating and
// validating policies with their bindings, mutating and validating webhook configurations),
// all of them on the requests of the case alone (its sim-case label), with the answer of each
// webhook, which the recorder gives the server and admit is given too.
type admitCase struct {
	label   string
	objs    simulate.AdmitObjects
	answers simulate.WebhookAnswers
	// parts says what the set is made of, for the disagreement's message.
	parts    []string
	requests []*request
}

// webhookAnswer is a generated answer of webhook name (the j-th of its case), as the server's
// response and as admit's answer: allow, allow with a warning, deny, or (mutating) a patch.
func (g *generator) webhookAnswer(name string, j int, mutating bool) (admissionv1.AdmissionResponse, simulate.WebhookAnswer) {
	n := 3
	if mutating {
		n = 4
	}
	switch g.r.IntN(n) {
	case 0:
		return admissionv1.AdmissionResponse{Allowed: true}, simulate.WebhookAnswer{Allowed: true}
	case 1:
		w := "warned by " + name
		return admissionv1.AdmissionResponse{Allowed: true, Warnings: []string{w}}, simulate.WebhookAnswer{Allowed: true, Warnings: []string{w}}
	case 2:
		if g.chance(0.5) {
			// Denials are rarer than the rest: half of them allow.
			return admissionv1.AdmissionResponse{Allowed: true}, simulate.WebhookAnswer{Allowed: true}
		}
		m := "denied by " + name
		return admissionv1.AdmissionResponse{Allowed: false, Result: &metav1.Status{Message: m, Code: 403}},
			simulate.WebhookAnswer{Allowed: false, Message: m, Code: 403}
	}
	patch := []byte(fmt.Sprintf(`[{"op": "add", "path": "/metadata/labels/hooked-%d", "value": "yes"}]`, j))
	pt := admissionv1.PatchTypeJSONPatch
	return admissionv1.AdmissionResponse{Allowed: true, Patch: patch, PatchType: &pt}, simulate.WebhookAnswer{Allowed: true, Patch: patch}
}

func (g *generator) admitCase(i int, rec *recorder) *admitCase {
	label := fmt.Sprintf("a%d", i)
	c := &admitCase{label: label, answers: simulate.WebhookAnswers{}}
	n := 2 + g.r.IntN(4)
	// At least one mutating and one validating object.
	kinds := []int{g.r.IntN(2) * 2, 1 + g.r.IntN(2)*2}
	for len(kinds) < n {
		kinds = append(kinds, g.r.IntN(4))
	}
	for j, kind := range kinds {
		name := fmt.Sprintf("sim-%s-%d", label, j)
		selector := &metav1.LabelSelector{MatchLabels: map[string]string{"sim-case": label}}
		switch kind {
		case 0: // a mutating policy
			m := g.mutatingCase(1000*i + j)
			m.policy.Name, m.binding.Name, m.binding.Spec.PolicyName = name, name, name
			m.policy.Spec.MatchConstraints.ObjectSelector = selector
			if g.chance(0.6) {
				// Policies that set the same label: their order decides its value.
				m.policy.Spec.Mutations = append(m.policy.Spec.Mutations, admissionregistrationv1.Mutation{
					PatchType:          admissionregistrationv1.PatchTypeApplyConfiguration,
					ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: `Object{metadata: Object.metadata{labels: {"last": "` + name + `"}}}`},
				})
				if g.chance(0.5) {
					// On every request of the case, so that such policies meet.
					m.policy.Spec.MatchConstraints.ResourceRules = []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{"CREATE", "UPDATE"},
						Rule:       admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"}},
					}}}
					m.policy.Spec.MatchConstraints.NamespaceSelector = &metav1.LabelSelector{}
				}
			}
			c.objs.MutatingPolicies = append(c.objs.MutatingPolicies, m.policy)
			c.objs.MutatingBindings = append(c.objs.MutatingBindings, m.binding)
			c.parts = append(c.parts, "MutatingAdmissionPolicy "+jsonString(m.policy.Spec)+" binding "+jsonString(m.binding.Spec))
		case 1: // a validating policy
			v := g.validatingCase(1000*i + j)
			v.policy.Name, v.binding.Name, v.binding.Spec.PolicyName = name, name, name
			v.policy.Spec.MatchConstraints.ObjectSelector = selector
			c.objs.ValidatingPolicies = append(c.objs.ValidatingPolicies, v.policy)
			c.objs.ValidatingBindings = append(c.objs.ValidatingBindings, v.binding)
			c.parts = append(c.parts, "ValidatingAdmissionPolicy "+jsonString(v.policy.Spec)+" binding "+jsonString(v.binding.Spec))
		default: // a webhook configuration (2: mutating, 3: validating) of one or two webhooks
			w := g.webhookCase(kind%2, rec.server.URL, rec.caPEM)
			mutating := w.mutating != nil
			count := 1 + g.r.IntN(2)
			for k := 0; k < count; k++ {
				hook := fmt.Sprintf("h%d.%s.example.com", k, name)
				server, offline := g.webhookAnswer(hook, 10*j+k, mutating)
				rec.setAnswer(hook, server)
				c.answers[hook] = offline
				url := rec.server.URL + "/" + hook
				if mutating {
					h := &w.mutating.Webhooks[k]
					h.Name, h.ClientConfig.URL = hook, &url
					h.ObjectSelector.MatchLabels["sim-case"] = label
				} else {
					h := &w.validating.Webhooks[k]
					h.Name, h.ClientConfig.URL = hook, &url
					h.ObjectSelector.MatchLabels["sim-case"] = label
				}
			}
			if mutating {
				w.mutating.Name, w.mutating.Webhooks = name, w.mutating.Webhooks[:count]
				c.objs.MutatingWebhooks = append(c.objs.MutatingWebhooks, w.mutating)
				c.parts = append(c.parts, "MutatingWebhookConfiguration "+jsonString(w.mutating))
			} else {
				w.validating.Name, w.validating.Webhooks = name, w.validating.Webhooks[:count]
				c.objs.ValidatingWebhooks = append(c.objs.ValidatingWebhooks, w.validating)
				c.parts = append(c.parts, "ValidatingWebhookConfiguration "+jsonString(w.validating))
			}
		}
	}
	for j := 0; j < 6; j++ {
		c.requests = append(c.requests, &request{object: g.object(label, j)})
	}
	return c
}

// create creates the policies and webhook configurations; when the server rejects one, it
// deletes those it made and returns the server's error.
func (c *admitCase) create(ctx context.Context, a admissionclient.AdmissionregistrationV1Interface) error {
	var err error
	for _, p := range c.objs.MutatingPolicies {
		if err == nil {
			_, err = a.MutatingAdmissionPolicies().Create(ctx, p, metav1.CreateOptions{})
		}
	}
	for _, p := range c.objs.ValidatingPolicies {
		if err == nil {
			_, err = a.ValidatingAdmissionPolicies().Create(ctx, p, metav1.CreateOptions{})
		}
	}
	for _, w := range c.objs.MutatingWebhooks {
		if err == nil {
			_, err = a.MutatingWebhookConfigurations().Create(ctx, w, metav1.CreateOptions{})
		}
	}
	for _, w := range c.objs.ValidatingWebhooks {
		if err == nil {
			_, err = a.ValidatingWebhookConfigurations().Create(ctx, w, metav1.CreateOptions{})
		}
	}
	if err != nil {
		c.remove(ctx, a)
	}
	return err
}

func (c *admitCase) complete(ctx context.Context, a admissionclient.AdmissionregistrationV1Interface) error {
	for _, b := range c.objs.MutatingBindings {
		if _, err := a.MutatingAdmissionPolicyBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("binding %s: %w", b.Name, err)
		}
	}
	for _, b := range c.objs.ValidatingBindings {
		if _, err := a.ValidatingAdmissionPolicyBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("binding %s: %w", b.Name, err)
		}
	}
	return nil
}

func (c *admitCase) remove(ctx context.Context, a admissionclient.AdmissionregistrationV1Interface) {
	for _, b := range c.objs.MutatingBindings {
		_ = a.MutatingAdmissionPolicyBindings().Delete(ctx, b.Name, metav1.DeleteOptions{})
	}
	for _, b := range c.objs.ValidatingBindings {
		_ = a.ValidatingAdmissionPolicyBindings().Delete(ctx, b.Name, metav1.DeleteOptions{})
	}
	for _, p := range c.objs.MutatingPolicies {
		_ = a.MutatingAdmissionPolicies().Delete(ctx, p.Name, metav1.DeleteOptions{})
	}
	for _, p := range c.objs.ValidatingPolicies {
		_ = a.ValidatingAdmissionPolicies().Delete(ctx, p.Name, metav1.DeleteOptions{})
	}
	for _, w := range c.objs.MutatingWebhooks {
		_ = a.MutatingWebhookConfigurations().Delete(ctx, w.Name, metav1.DeleteOptions{})
	}
	for _, w := range c.objs.ValidatingWebhooks {
		_ = a.ValidatingWebhookConfigurations().Delete(ctx, w.Name, metav1.DeleteOptions{})
	}
}

func (c *admitCase) requestList() []*request { return c.requests }

// sameOutcome: the server's answer is the outcome's: verdict, message, warnings, and the
// mutated object of an admitted request.
func sameOutcome(o simulate.Outcome, srv serverAnswer) bool {
	if o.Allowed == nil || o.Message == nil || *o.Allowed != srv.allowed || *o.Message != srv.message || !sameStrings(o.Warnings, srv.warnings) {
		return false
	}
	return !srv.allowed || reflect.DeepEqual(projection(o.Object), projection(srv.object))
}

func describeOutcome(o simulate.Outcome) string {
	allowed, message := "unknown", "unknown"
	if o.Allowed != nil {
		allowed = fmt.Sprint(*o.Allowed)
	}
	if o.Message != nil {
		message = short(*o.Message)
	}
	var orders []string
	for _, ord := range o.Orders {
		orders = append(orders, strings.Join(ord.MutatingPolicies, ",")+" "+ord.FirstDenial)
	}
	return fmt.Sprintf("allowed %s message %q warnings %q object %s orders %q", allowed, message, o.Warnings, jsonString(projection(o.Object)), orders)
}

// The whole chain: sets of two to five policies and webhooks of both kinds against one
// request, answered by Admit and by kube-apiserver. Where Admit finds that the outcome does not
// depend on the order of the server's hooks, the server's answer must be it exactly; where it
// depends, the server's answer must be one of the outcomes Admit reports.
func TestAdmitAgainstAPIServer(t *testing.T) {
	w := setup(t)
	ctx := context.Background()
	start := time.Now()
	rec := newRecorder(t)
	d := install(t, ctx, w, start, newGenerator(4), 60, func(g *generator, i int) *admitCase { return g.admitCase(i, rec) })

	dependent, denied, mutated, steps, calls := 0, 0, 0, 0, 0
	d.compare(t, func(c *admitCase, r *request, sr *simulate.Request) answers {
		off, err := simulate.Admit(ctx, &c.objs, sr, c.answers)
		if err != nil {
			t.Fatalf("%s: %v", c.label, err)
		}
		steps += len(off.Steps)
		for _, s := range off.Steps {
			if (s.Kind == simulate.StepMutatingWebhook || s.Kind == simulate.StepValidatingWebhook) && s.Outcome != simulate.OutcomeNotMatched {
				calls++
			}
		}
		if off.OrderDependent {
			dependent++
		}
		if off.Allowed != nil && !*off.Allowed {
			denied++
		} else if off.Object != nil && !reflect.DeepEqual(projection(off.Object), projection(r.object)) {
			mutated++
		}
		candidates := []simulate.Outcome{off.Outcome}
		if off.OrderDependent {
			candidates = off.Outcomes
		}
		var srv serverAnswer
		return answers{
			ask: func() { srv = w.send(ctx, r) },
			same: func() bool {
				for _, o := range candidates {
					if sameOutcome(o, srv) {
						return true
					}
				}
				return false
			},
			disagreement: func() string {
				var offline []string
				for _, o := range candidates {
					offline = append(offline, describeOutcome(o))
				}
				return fmt.Sprintf("%s, %s %s/%s (update %v, order dependent %v):\n  offline: %s\n  server:  allowed %v message %q warnings %q object %s\n  objects:\n    %s\n  answers: %s",
					c.label, r.object.GetKind(), r.object.GetNamespace(), r.object.GetName(), r.old != nil, off.OrderDependent,
					strings.Join(offline, "\n           "), srv.allowed, short(srv.message), srv.warnings, jsonString(projection(srv.object)),
					strings.Join(c.parts, "\n    "), jsonString(c.answers))
			},
		}
	})
	d.report(t, "admission chain requests agree on verdict, message, warnings and object", "sets",
		fmt.Sprintf("%d order-dependent, %d denied, %d mutated, %d steps, %d webhook calls", dependent, denied, mutated, steps, calls))
}
