package matching

import (
	"context"
	"errors"
	"strings"
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"sigs.k8s.io/yaml"
)

func convertTo(t *testing.T, in runtime.Object, gvk schema.GroupVersionKind) runtime.Object {
	t.Helper()
	out, err := admission.ConvertToGVK(in, gvk, objectInterfaces(NoEquivalents()))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// v2 to v1 keeps the CPU utilization target in targetCPUUtilizationPercentage and the rest in
// the annotations; v1 back to v2 is the object it came from. A v1 object with no target gets
// the CPU target of 80% the conversion makes explicit.
func TestConvertHorizontalPodAutoscaler(t *testing.T) {
	v2 := fromYAML[autoscalingv2.HorizontalPodAutoscaler](t, `
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: apps, annotations: {owner: alice}}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 7
  metrics:
  - {type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}}
  - {type: Pods, pods: {metric: {name: qps}, target: {type: AverageValue, averageValue: "10"}}}
  behavior: {scaleDown: {stabilizationWindowSeconds: 60, policies: [{type: Pods, value: 1, periodSeconds: 30}]}}
`)
	v1GVK := autoscalingv1.SchemeGroupVersion.WithKind("HorizontalPodAutoscaler")
	v1, ok := convertTo(t, v2, v1GVK).(*autoscalingv1.HorizontalPodAutoscaler)
	if !ok {
		t.Fatal("not a v1 HorizontalPodAutoscaler")
	}
	if v1.Spec.TargetCPUUtilizationPercentage == nil || *v1.Spec.TargetCPUUtilizationPercentage != 50 || v1.Spec.MaxReplicas != 7 || *v1.Spec.MinReplicas != 2 ||
		v1.Spec.ScaleTargetRef.Name != "web" || v1.Annotations["owner"] != "alice" {
		t.Errorf("v1: %+v", v1)
	}
	if got, want := v1.Annotations[metricSpecsAnnotation], `[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10"}}]`; got != want {
		t.Errorf("metrics annotation: got %s, want %s", got, want)
	}
	if got, want := v1.Annotations[behaviorSpecsAnnotation], `{"ScaleUp":null,"ScaleDown":{"StabilizationWindowSeconds":60,"SelectPolicy":null,"Policies":[{"Type":"Pods","Value":1,"PeriodSeconds":30}],"Tolerance":null}}`; got != want {
		t.Errorf("behavior annotation: got %s, want %s", got, want)
	}
	back, ok := convertTo(t, v1, autoscalingv2.SchemeGroupVersion.WithKind("HorizontalPodAutoscaler")).(*autoscalingv2.HorizontalPodAutoscaler)
	if !ok {
		t.Fatal("not a v2 HorizontalPodAutoscaler")
	}
	// The v1 annotation lists the other metrics first, and the CPU target after them.
	want := v2.DeepCopy()
	want.Spec.Metrics = []autoscalingv2.MetricSpec{v2.Spec.Metrics[1], v2.Spec.Metrics[0]}
	if !apiequality.Semantic.DeepEqual(back.Spec, want.Spec) || !apiequality.Semantic.DeepEqual(back.Annotations, want.Annotations) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back.Spec, want.Spec)
	}
	if v2.Annotations[metricSpecsAnnotation] != "" {
		t.Error("converting changed the object converted")
	}

	bare := &autoscalingv1.HorizontalPodAutoscaler{Spec: autoscalingv1.HorizontalPodAutoscalerSpec{MaxReplicas: 3}}
	bare.SetGroupVersionKind(v1GVK)
	got, ok := convertTo(t, bare, autoscalingv2.SchemeGroupVersion.WithKind("HorizontalPodAutoscaler")).(*autoscalingv2.HorizontalPodAutoscaler)
	if !ok || len(got.Spec.Metrics) != 1 || *got.Spec.Metrics[0].Resource.Target.AverageUtilization != 80 {
		t.Errorf("v1 without a target: %+v", got)
	}
}

// A core event is an events.k8s.io/v1 event with regarding for involvedObject and note for
// message, and back.
func TestConvertEvent(t *testing.T) {
	core := &corev1.Event{
		TypeMeta:       metav1.TypeMeta{APIVersion: "v1", Kind: "Event"},
		ObjectMeta:     metav1.ObjectMeta{Name: "e", Namespace: "apps"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "p"},
		Reason:         "Started", Message: "started", Type: "Normal", Count: 3,
		Source:              corev1.EventSource{Component: "kubelet"},
		ReportingController: "kubelet", ReportingInstance: "node-1", Action: "Start",
	}
	ev, ok := convertTo(t, core, eventsv1.SchemeGroupVersion.WithKind("Event")).(*eventsv1.Event)
	if !ok || ev.Regarding.Name != "p" || ev.Note != "started" || ev.DeprecatedCount != 3 || ev.DeprecatedSource.Component != "kubelet" ||
		ev.ReportingController != "kubelet" || ev.Reason != "Started" || ev.Name != "e" {
		t.Fatalf("events.k8s.io: %+v", ev)
	}
	back, ok := convertTo(t, ev, corev1.SchemeGroupVersion.WithKind("Event")).(*corev1.Event)
	if !ok || !apiequality.Semantic.DeepEqual(back, core) {
		t.Errorf("round trip: %+v", back)
	}
}

// A webhook's match condition sees the object as its rule's equivalent kind: a v2 request
// read as v1 by a hook on autoscaling/v1, a custom resource with the version of the rule (and
// the request's object unchanged). Between versions that convert only with the server's own
// code, the matcher says it cannot tell.
func TestMatchConditionOnEquivalent(t *testing.T) {
	ctx := context.Background()
	builtin, err := BuiltinEquivalents()
	if err != nil {
		t.Fatal(err)
	}
	hooks := MutatingWebhooks(configuration(t, `
metadata: {name: hooks}
webhooks:
- name: hpa.example.com
  rules: [{apiGroups: [autoscaling], apiVersions: [v1], operations: [CREATE], resources: [horizontalpodautoscalers]}]
  matchConditions: [{name: cpu, expression: "object.apiVersion == 'autoscaling/v1' && object.spec.targetCPUUtilizationPercentage == 50"}]
- name: widgets.example.com
  rules: [{apiGroups: [example.com], apiVersions: [v1], operations: [CREATE], resources: [widgets]}]
  matchConditions: [{name: v1, expression: "object.apiVersion == 'example.com/v1' && object.spec.size == 3"}]
- name: claims.example.com
  rules: [{apiGroups: [resource.k8s.io], apiVersions: [v1beta1], operations: [CREATE], resources: [resourceclaims]}]
  matchConditions: [{name: any, expression: "true"}]
`))
	m := newMatcher(t, Config{Namespaces: SyntheticNamespaces(), Equivalents: builtin})
	hpa := fromYAML[autoscalingv2.HorizontalPodAutoscaler](t, `
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: apps}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 7
  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}}]
`)
	attr := admission.NewAttributesRecord(hpa, nil, hpa.GroupVersionKind(), "apps", "web", hpaV2, "", admission.Create, nil, false, &user.DefaultInfo{Name: "alice"})
	if a := m.Webhook(ctx, hooks[0], attr); a.Outcome != Called {
		t.Errorf("hpa: got %+v", a)
	}

	crd := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {plural: widgets, kind: Widget}
  versions: [{name: v2, served: true, storage: true}, {name: v1, served: true, storage: false}]
`), &crd.Object); err != nil {
		t.Fatal(err)
	}
	served, err := CRDServed(crd)
	if err != nil {
		t.Fatal(err)
	}
	cm := newMatcher(t, Config{Namespaces: SyntheticNamespaces(), Equivalents: NewEquivalents(served...)})
	widget := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v2", "kind": "Widget",
		"metadata": map[string]any{"name": "w", "namespace": "apps"}, "spec": map[string]any{"size": int64(3)}}}
	widgets := schema.GroupVersionResource{Group: "example.com", Version: "v2", Resource: "widgets"}
	wattr := admission.NewAttributesRecord(widget, nil, widget.GroupVersionKind(), "apps", "w", widgets, "", admission.Create, nil, false, &user.DefaultInfo{Name: "alice"})
	if a := cm.Webhook(ctx, hooks[1], wattr); a.Outcome != Called || a.Kind.Version != "v1" {
		t.Errorf("widget: got %+v", a)
	}
	if widget.GetAPIVersion() != "example.com/v2" {
		t.Errorf("the request's object was changed: %s", widget.GetAPIVersion())
	}

	claim := &unstructured.Unstructured{}
	claim.SetAPIVersion("resource.k8s.io/v1")
	claim.SetKind("ResourceClaim")
	claim.SetName("c")
	typedClaim, err := conversionScheme().New(claim.GroupVersionKind())
	if err != nil {
		t.Fatal(err)
	}
	typedClaim.GetObjectKind().SetGroupVersionKind(claim.GroupVersionKind())
	claims := schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "resourceclaims"}
	cattr := admission.NewAttributesRecord(typedClaim, nil, claim.GroupVersionKind(), "apps", "c", claims, "", admission.Create, nil, false, &user.DefaultInfo{Name: "alice"})
	a := m.Webhook(ctx, hooks[2], cattr)
	var nc *ErrNoConversion
	if a.Outcome != Failed || a.Err == nil || !strings.Contains(a.Err.Error(), "not known offline") {
		t.Errorf("claim: got %+v", a)
	}
	if _, err := admission.ConvertToGVK(typedClaim, schema.GroupVersionKind{Group: "resource.k8s.io", Version: "v1beta1", Kind: "ResourceClaim"},
		objectInterfaces(builtin)); !errors.As(err, &nc) {
		t.Errorf("claim conversion: got %v, want an ErrNoConversion", err)
	}
}
