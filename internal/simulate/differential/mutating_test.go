package differential

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	admissionclient "k8s.io/client-go/kubernetes/typed/admissionregistration/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/simulate"
)

// mutations a generated policy draws from: apply configurations (merged
// with the kinds' schemas: containers and env by name) and JSON patches,
// some of which fail on some objects.
var applyConfigurations = []string{
	`Object{metadata: Object.metadata{labels: {"mutated": "yes"}}}`,
	`Object{metadata: Object.metadata{annotations: {"policy": "set"}}}`,
	`Object{data: {"injected": "true"}}`,
	`Object{spec: Object.spec{replicas: 2}}`,
	`Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: "app", env: [Object.spec.template.spec.containers.env{name: "MODE", value: "on"}]}]}}}}`,
	`Object{spec: Object.spec{template: Object.spec.template{metadata: Object.spec.template.metadata{labels: {"sidecar": "yes"}}}}}`,
	`has(object.metadata.labels) && 'team' in object.metadata.labels ? Object{metadata: Object.metadata{labels: {"team-seen": object.metadata.labels['team']}}} : Object{}`,
	`Object{metadata: Object.metadata{labels: {"max": params.data.max}}}`,
	`Object{metadata: Object.metadata{labels: {"ns-env": has(namespaceObject.metadata.labels) && 'env' in namespaceObject.metadata.labels ? namespaceObject.metadata.labels['env'] : "none"}}}`,
}

var jsonPatches = []string{
	`[JSONPatch{op: "add", path: "/metadata/labels/patched", value: "yes"}]`,
	`[JSONPatch{op: "replace", path: "/spec/replicas", value: 1}]`,
	`[JSONPatch{op: "add", path: "/metadata/annotations/" + jsonpatch.escapeKey("example.com/seen"), value: "yes"}]`,
	`[JSONPatch{op: "remove", path: "/metadata/labels/team"}]`,
	`[JSONPatch{op: "test", path: "/metadata/namespace", value: "sim-prod"}, JSONPatch{op: "add", path: "/metadata/labels/prod", value: "true"}]`,
	`[JSONPatch{op: "add", path: "/data", value: {"from-patch": variables.tier}}]`,
}

// mutatingCase is one generated mutating admission policy and binding,
// with its requests.
type mutatingCase = policyCase[*admissionregistrationv1.MutatingAdmissionPolicy, *admissionregistrationv1.MutatingAdmissionPolicyBinding]

// mutatingClients are the clients of the mutating cases' kinds.
func mutatingClients(a admissionclient.AdmissionregistrationV1Interface) (objectClient[*admissionregistrationv1.MutatingAdmissionPolicy], objectClient[*admissionregistrationv1.MutatingAdmissionPolicyBinding]) {
	return a.MutatingAdmissionPolicies(), a.MutatingAdmissionPolicyBindings()
}

func (g *generator) mutatingCase(i int) *mutatingCase {
	label := fmt.Sprintf("m%d", i)
	name := fmt.Sprintf("sim-m%d", i)
	p := &admissionregistrationv1.MutatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name}}
	fp := admissionregistrationv1.FailurePolicyType(g.pick("Fail", "Ignore"))
	p.Spec.FailurePolicy = &fp
	p.Spec.ReinvocationPolicy = admissionregistrationv1.ReinvocationPolicyType(g.pick("Never", "IfNeeded"))
	rules := g.rules("CREATE", "UPDATE")
	p.Spec.MatchConstraints = &admissionregistrationv1.MatchResources{
		ResourceRules:     rules,
		NamespaceSelector: g.selector("env", "team", "kubernetes.io/metadata.name"),
		ObjectSelector:    &metav1.LabelSelector{MatchLabels: map[string]string{"sim-case": label}},
	}
	hasParams := g.chance(0.3)
	if hasParams {
		p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
	}
	p.Spec.Variables = []admissionregistrationv1.Variable{{Name: "tier", Expression: "has(object.metadata.labels) && 'tier' in object.metadata.labels ? object.metadata.labels['tier'] : 'none'"}}
	if g.chance(0.25) {
		p.Spec.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "only", Expression: g.pick(matchConditions...)}}
	}
	for j := 0; j < 1+g.r.IntN(3); j++ {
		if g.chance(0.6) {
			p.Spec.Mutations = append(p.Spec.Mutations, admissionregistrationv1.Mutation{
				PatchType:          admissionregistrationv1.PatchTypeApplyConfiguration,
				ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: g.pick(applyConfigurations...)},
			})
		} else {
			p.Spec.Mutations = append(p.Spec.Mutations, admissionregistrationv1.Mutation{
				PatchType: admissionregistrationv1.PatchTypeJSONPatch,
				JSONPatch: &admissionregistrationv1.JSONPatch{Expression: g.pick(jsonPatches...)},
			})
		}
	}
	if !hasParams {
		for j := range p.Spec.Mutations {
			if ac := p.Spec.Mutations[j].ApplyConfiguration; ac != nil && strings.Contains(ac.Expression, "params") {
				ac.Expression = applyConfigurations[0]
			}
		}
		for j := range p.Spec.MatchConditions {
			if strings.Contains(p.Spec.MatchConditions[j].Expression, "params") {
				p.Spec.MatchConditions[j].Expression = "true"
			}
		}
	}
	b := &admissionregistrationv1.MutatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: name}}
	b.Spec.PolicyName = name
	if g.chance(0.3) {
		b.Spec.MatchResources = &admissionregistrationv1.MatchResources{ObjectSelector: g.selector("team", "tier", "inject")}
	}
	if hasParams {
		action := admissionregistrationv1.ParameterNotFoundActionType(g.pick("Allow", "Deny"))
		ref := &admissionregistrationv1.ParamRef{ParameterNotFoundAction: &action}
		if g.chance(0.5) {
			ref.Name = g.pick("limits", "missing")
		} else {
			ref.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"strict": "yes"}}
			ref.Namespace = "sim-prod"
		}
		b.Spec.ParamRef = ref
	}
	c := &mutatingCase{policy: p, binding: b, clients: mutatingClients}
	for j := 0; j < 10; j++ {
		c.requests = append(c.requests, &request{object: g.object(label, j)})
	}
	return c
}

// projection is the part of an object the comparison looks at: what the
// generated mutations can change, without what the server itself sets on
// a dry-run create (uid, timestamps, defaults of built-in kinds).
func projection(u *unstructured.Unstructured) map[string]any {
	if u == nil {
		return nil
	}
	out := map[string]any{"labels": u.GetLabels(), "annotations": u.GetAnnotations()}
	if d, ok, _ := unstructured.NestedFieldNoCopy(u.Object, "data"); ok {
		out["data"] = d
	}
	if r, ok, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "replicas"); ok {
		out["replicas"] = fmt.Sprint(r)
	}
	if l, ok, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "template", "metadata", "labels"); ok {
		out["templateLabels"] = l
	}
	if cs, ok, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers"); ok {
		var containers []any
		for _, c := range cs {
			m, _ := c.(map[string]any) // unstructured: each container an object
			containers = append(containers, map[string]any{"name": m["name"], "image": m["image"], "env": m["env"]})
		}
		out["containers"] = containers
	}
	p, _ := roundTrip(out).(map[string]any) // a JSON object, as out
	return p
}

func TestMutatingAgainstAPIServer(t *testing.T) {
	w := setup(t)
	ctx := context.Background()
	start := time.Now()
	d := install(t, ctx, w, start, newGenerator(2), 40, (*generator).mutatingCase)

	matched, changed, denied := 0, 0, 0
	d.compare(t, func(c *mutatingCase, r *request, sr *simulate.Request) answers {
		off, err := simulate.Mutate(ctx, c.policy, c.binding, sr)
		if err != nil {
			t.Fatal(err)
		}
		if off.Matched {
			matched++
		}
		if !off.Allowed {
			denied++
		} else if !reflect.DeepEqual(projection(off.Object), projection(r.object)) {
			changed++
		}
		var srv serverAnswer
		return answers{
			ask: func() { srv = w.send(ctx, r) },
			same: func() bool {
				if srv.allowed != off.Allowed || srv.message != off.Message {
					return false
				}
				return !srv.allowed || reflect.DeepEqual(projection(srv.object), projection(off.Object))
			},
			disagreement: func() string {
				return fmt.Sprintf("%s, %s %s/%s (update %v):\n  offline: allowed %v message %q object %s\n  server:  allowed %v message %q object %s\n  policy: %s\n  binding: %s",
					c.policy.Name, r.object.GetKind(), r.object.GetNamespace(), r.object.GetName(), r.old != nil,
					off.Allowed, short(off.Message), jsonString(projection(off.Object)), srv.allowed, short(srv.message), jsonString(projection(srv.object)),
					jsonString(c.policy.Spec), jsonString(c.binding.Spec))
			},
		}
	})
	d.report(t, "mutating policy requests agree on verdict, message and mutated object", "policies",
		fmt.Sprintf("%d matched, %d changed, %d denied", matched, changed, denied))
}
