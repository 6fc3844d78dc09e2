package differential

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

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

type mutatingCase struct {
	policy   *admissionregistrationv1.MutatingAdmissionPolicy
	binding  *admissionregistrationv1.MutatingAdmissionPolicyBinding
	requests []*request
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
	c := &mutatingCase{policy: p, binding: b}
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
			m := c.(map[string]any)
			containers = append(containers, map[string]any{"name": m["name"], "image": m["image"], "env": m["env"]})
		}
		out["containers"] = containers
	}
	return roundTrip(out).(map[string]any)
}

func TestMutatingAgainstAPIServer(t *testing.T) {
	w := setup(t)
	ctx := context.Background()
	start := time.Now()
	g := newGenerator(2)
	const n = 40
	var cases []*mutatingCase
	for i := 0; i < n; i++ {
		cases = append(cases, g.mutatingCase(i))
	}
	for _, c := range cases {
		for j, r := range c.requests {
			if j%3 != 0 {
				continue
			}
			old, err := w.stored(ctx, r.object)
			if err != nil {
				t.Fatal(err)
			}
			r.old = old
			r.object = g.changed(old)
		}
	}
	admission := w.admin.AdmissionregistrationV1()
	created := cases[:0]
	rejected := 0
	for _, c := range cases {
		if _, err := admission.MutatingAdmissionPolicies().Create(ctx, c.policy, metav1.CreateOptions{}); err != nil {
			if !apierrors.IsInvalid(err) {
				t.Fatalf("policy %s: %v", c.policy.Name, err)
			}
			rejected++
			t.Logf("rejected by the server: %v", err)
			continue
		}
		if _, err := admission.MutatingAdmissionPolicyBindings().Create(ctx, c.binding, metav1.CreateOptions{}); err != nil {
			t.Fatalf("binding %s: %v", c.binding.Name, err)
		}
		created = append(created, c)
	}
	cases = created
	t.Cleanup(func() {
		for _, c := range cases {
			_ = admission.MutatingAdmissionPolicyBindings().Delete(ctx, c.binding.Name, metav1.DeleteOptions{})
			_ = admission.MutatingAdmissionPolicies().Delete(ctx, c.policy.Name, metav1.DeleteOptions{})
		}
		settle()
	})
	settle()

	total, agree, matched, changed, denied, retried := 0, 0, 0, 0, 0, 0
	for _, c := range cases {
		for _, r := range c.requests {
			total++
			sr, err := r.offline(w)
			if err != nil {
				t.Fatal(err)
			}
			off, err := simulate.Mutate(ctx, c.policy, c.binding, sr)
			if err != nil {
				t.Fatal(err)
			}
			srv := w.send(ctx, r)
			same := func() bool {
				if srv.allowed != off.Allowed || srv.message != off.Message {
					return false
				}
				return !srv.allowed || reflect.DeepEqual(projection(srv.object), projection(off.Object))
			}
			if !same() {
				time.Sleep(time.Second)
				srv = w.send(ctx, r)
				if same() {
					retried++
				}
			}
			if off.Matched {
				matched++
			}
			if !off.Allowed {
				denied++
			} else if !reflect.DeepEqual(projection(off.Object), projection(r.object)) {
				changed++
			}
			if same() {
				agree++
				continue
			}
			t.Errorf("%s, %s %s/%s (update %v):\n  offline: allowed %v message %q object %s\n  server:  allowed %v message %q object %s\n  policy: %s\n  binding: %s",
				c.policy.Name, r.object.GetKind(), r.object.GetNamespace(), r.object.GetName(), r.old != nil,
				off.Allowed, short(off.Message), jsonString(projection(off.Object)), srv.allowed, short(srv.message), jsonString(projection(srv.object)),
				jsonString(c.policy.Spec), jsonString(c.binding.Spec))
		}
	}
	line := fmt.Sprintf("differential: %d/%d mutating policy requests agree on verdict, message and mutated object (%d policies, %d more rejected by the server; %d matched, %d changed, %d denied, %d agreed only when asked again); kube-apiserver %s, %s",
		agree, total, len(cases), rejected, matched, changed, denied, retried, w.version, time.Since(start).Round(time.Millisecond))
	t.Log(line)
	// make test prints the lines of go test -v that start with "differential:".
	fmt.Println(line)
}
