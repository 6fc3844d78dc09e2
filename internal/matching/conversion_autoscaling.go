package matching

import (
	"encoding/json"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
)

// The conversions between the HorizontalPodAutoscalers of autoscaling/v1 and autoscaling/v2.
// The server converts both through the internal version (k8s.io/kubernetes pkg/apis/autoscaling),
// which has v2's shape: v2 to internal and back is the identity but for the round-trip
// annotations, which are dropped (pkg/apis/autoscaling/v2 conversion.go), and v1 to internal and
// back is pkg/apis/autoscaling/v1 conversion.go, followed here function for function with v2 in
// place of the internal types: v1 holds the CPU utilization target in
// targetCPUUtilizationPercentage and the rest of v2's metrics, statuses, conditions and behavior
// in annotations.

// The annotations of k8s.io/kubernetes pkg/apis/autoscaling annotations.go.
const (
	metricSpecsAnnotation        = "autoscaling.alpha.kubernetes.io/metrics"
	metricStatusesAnnotation     = "autoscaling.alpha.kubernetes.io/current-metrics"
	hpaConditionsAnnotation      = "autoscaling.alpha.kubernetes.io/conditions"
	behaviorSpecsAnnotation      = "autoscaling.alpha.kubernetes.io/behavior"
	toleranceScaleDownAnnotation = "autoscaling.alpha.kubernetes.io/scale-down-tolerance"
	toleranceScaleUpAnnotation   = "autoscaling.alpha.kubernetes.io/scale-up-tolerance"
	defaultCPUUtilization        = 80
	resourceCPU                  = corev1.ResourceCPU
	resourceMetricSourceType     = autoscalingv2.ResourceMetricSourceType
	utilizationMetricType        = autoscalingv2.UtilizationMetricType
	averageValueMetricType       = autoscalingv2.AverageValueMetricType
	valueMetricType              = autoscalingv2.ValueMetricType
)

func addAutoscalingConversions(s *runtime.Scheme) error {
	if err := addConversion(s, hpaV2ToV1); err != nil {
		return err
	}
	return addConversion(s, hpaV1ToV2)
}

// dropRoundTripAnnotations is pkg/apis/autoscaling DropRoundTripHorizontalPodAutoscalerAnnotations.
func dropRoundTripAnnotations(in map[string]string) map[string]string {
	found := false
	for _, k := range []string{metricSpecsAnnotation, behaviorSpecsAnnotation, toleranceScaleDownAnnotation, toleranceScaleUpAnnotation, metricStatusesAnnotation, hpaConditionsAnnotation} {
		if _, ok := in[k]; ok {
			found = true
		}
	}
	if !found {
		return in
	}
	out := make(map[string]string, len(in))
	for k, v := range in {
		out[k] = v
	}
	for _, k := range []string{metricSpecsAnnotation, behaviorSpecsAnnotation, toleranceScaleDownAnnotation, toleranceScaleUpAnnotation, metricStatusesAnnotation, hpaConditionsAnnotation} {
		delete(out, k)
	}
	return out
}

// hpaV2ToV1 is v2 to internal (the round-trip annotations dropped) and
// Convert_autoscaling_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler.
func hpaV2ToV1(in *autoscalingv2.HorizontalPodAutoscaler, out *autoscalingv1.HorizontalPodAutoscaler) error {
	in = in.DeepCopy()
	*out = autoscalingv1.HorizontalPodAutoscaler{ObjectMeta: in.ObjectMeta}
	out.Annotations = dropRoundTripAnnotations(out.Annotations)
	// Convert_autoscaling_HorizontalPodAutoscalerSpec_To_v1_HorizontalPodAutoscalerSpec
	out.Spec.ScaleTargetRef = autoscalingv1.CrossVersionObjectReference(in.Spec.ScaleTargetRef)
	out.Spec.MinReplicas, out.Spec.MaxReplicas = in.Spec.MinReplicas, in.Spec.MaxReplicas
	for _, m := range in.Spec.Metrics {
		if isCPUUtilization(m) {
			v := *m.Resource.Target.AverageUtilization
			out.Spec.TargetCPUUtilizationPercentage = &v
			break
		}
	}
	// Convert_autoscaling_HorizontalPodAutoscalerStatus_To_v1_HorizontalPodAutoscalerStatus
	out.Status = autoscalingv1.HorizontalPodAutoscalerStatus{
		ObservedGeneration: in.Status.ObservedGeneration, LastScaleTime: in.Status.LastScaleTime,
		CurrentReplicas: in.Status.CurrentReplicas, DesiredReplicas: in.Status.DesiredReplicas,
	}
	for _, m := range in.Status.CurrentMetrics {
		if m.Type == resourceMetricSourceType && m.Resource != nil && m.Resource.Name == resourceCPU && m.Resource.Current.AverageUtilization != nil {
			v := *m.Resource.Current.AverageUtilization
			out.Status.CurrentCPUUtilizationPercentage = &v
		}
	}

	otherMetrics := make([]autoscalingv1.MetricSpec, 0, len(in.Spec.Metrics))
	for _, m := range in.Spec.Metrics {
		if isCPUUtilization(m) {
			continue
		}
		otherMetrics = append(otherMetrics, metricSpecToV1(m))
	}
	currentMetrics := make([]autoscalingv1.MetricStatus, len(in.Status.CurrentMetrics))
	for i, m := range in.Status.CurrentMetrics {
		currentMetrics[i] = metricStatusToV1(m)
	}
	conditions := make([]autoscalingv1.HorizontalPodAutoscalerCondition, len(in.Status.Conditions))
	for i, c := range in.Status.Conditions {
		conditions[i] = autoscalingv1.HorizontalPodAutoscalerCondition{
			Type: autoscalingv1.HorizontalPodAutoscalerConditionType(c.Type), Status: c.Status,
			LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message,
		}
	}
	set := func(key string, v any) error {
		enc, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[key] = string(enc)
		return nil
	}
	if len(otherMetrics) > 0 {
		if err := set(metricSpecsAnnotation, otherMetrics); err != nil {
			return err
		}
	}
	if len(in.Status.CurrentMetrics) > 0 {
		if err := set(metricStatusesAnnotation, currentMetrics); err != nil {
			return err
		}
	}
	if in.Spec.Behavior != nil {
		// The server marshals its internal type, which has no JSON tags.
		if err := set(behaviorSpecsAnnotation, internalBehaviorOf(in.Spec.Behavior)); err != nil {
			return err
		}
	}
	if len(in.Status.Conditions) > 0 {
		if err := set(hpaConditionsAnnotation, conditions); err != nil {
			return err
		}
	}
	return nil
}

// hpaV1ToV2 is Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler and
// internal to v2 (the round-trip annotations dropped).
func hpaV1ToV2(in *autoscalingv1.HorizontalPodAutoscaler, out *autoscalingv2.HorizontalPodAutoscaler) error {
	in = in.DeepCopy()
	*out = autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: in.ObjectMeta}
	// Convert_v1_HorizontalPodAutoscalerSpec_To_autoscaling_HorizontalPodAutoscalerSpec
	out.Spec.ScaleTargetRef = autoscalingv2.CrossVersionObjectReference(in.Spec.ScaleTargetRef)
	out.Spec.MinReplicas, out.Spec.MaxReplicas = in.Spec.MinReplicas, in.Spec.MaxReplicas
	if in.Spec.TargetCPUUtilizationPercentage != nil {
		out.Spec.Metrics = []autoscalingv2.MetricSpec{cpuUtilization(*in.Spec.TargetCPUUtilizationPercentage)}
	}
	// Convert_v1_HorizontalPodAutoscalerStatus_To_autoscaling_HorizontalPodAutoscalerStatus
	out.Status = autoscalingv2.HorizontalPodAutoscalerStatus{
		ObservedGeneration: in.Status.ObservedGeneration, LastScaleTime: in.Status.LastScaleTime,
		CurrentReplicas: in.Status.CurrentReplicas, DesiredReplicas: in.Status.DesiredReplicas,
	}
	if in.Status.CurrentCPUUtilizationPercentage != nil {
		v := *in.Status.CurrentCPUUtilizationPercentage
		out.Status.CurrentMetrics = []autoscalingv2.MetricStatus{{
			Type:     resourceMetricSourceType,
			Resource: &autoscalingv2.ResourceMetricStatus{Name: resourceCPU, Current: autoscalingv2.MetricValueStatus{AverageUtilization: &v}},
		}}
	}

	if enc, ok := out.Annotations[metricSpecsAnnotation]; ok {
		var other []autoscalingv1.MetricSpec
		if err := json.Unmarshal([]byte(enc), &other); err == nil {
			metrics := make([]autoscalingv2.MetricSpec, len(other)+len(out.Spec.Metrics))
			for i, m := range other {
				metrics[i] = metricSpecToV2(m)
			}
			if out.Spec.Metrics != nil {
				metrics[len(other)] = out.Spec.Metrics[0]
			}
			out.Spec.Metrics = metrics
		}
	}
	if enc, ok := out.Annotations[behaviorSpecsAnnotation]; ok {
		var b internalBehavior
		if err := json.Unmarshal([]byte(enc), &b); err == nil && (b.ScaleUp != nil || b.ScaleDown != nil) {
			out.Spec.Behavior = b.v2()
		}
	}
	if enc, ok := out.Annotations[metricStatusesAnnotation]; ok {
		var current []autoscalingv1.MetricStatus
		if err := json.Unmarshal([]byte(enc), &current); err == nil {
			out.Status.CurrentMetrics = make([]autoscalingv2.MetricStatus, len(current))
			for i, m := range current {
				out.Status.CurrentMetrics[i] = metricStatusToV2(m)
			}
		}
	}
	// autoscaling/v1 formerly had an implicit default applied in the controller, which the
	// conversion applies explicitly.
	if len(out.Spec.Metrics) == 0 {
		out.Spec.Metrics = []autoscalingv2.MetricSpec{cpuUtilization(defaultCPUUtilization)}
	}
	if enc, ok := out.Annotations[hpaConditionsAnnotation]; ok {
		var conditions []autoscalingv1.HorizontalPodAutoscalerCondition
		if err := json.Unmarshal([]byte(enc), &conditions); err == nil {
			out.Status.Conditions = make([]autoscalingv2.HorizontalPodAutoscalerCondition, len(conditions))
			for i, c := range conditions {
				out.Status.Conditions[i] = autoscalingv2.HorizontalPodAutoscalerCondition{
					Type: autoscalingv2.HorizontalPodAutoscalerConditionType(c.Type), Status: c.Status,
					LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message,
				}
			}
		}
	}
	out.Annotations = dropRoundTripAnnotations(out.Annotations)
	return nil
}

func isCPUUtilization(m autoscalingv2.MetricSpec) bool {
	return m.Type == resourceMetricSourceType && m.Resource != nil && m.Resource.Name == resourceCPU && m.Resource.Target.AverageUtilization != nil
}

func cpuUtilization(percent int32) autoscalingv2.MetricSpec {
	return autoscalingv2.MetricSpec{
		Type:     resourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricSource{Name: resourceCPU, Target: autoscalingv2.MetricTarget{Type: utilizationMetricType, AverageUtilization: &percent}},
	}
}

// metricSpecToV1 is Convert_autoscaling_MetricSpec_To_v1_MetricSpec.
func metricSpecToV1(in autoscalingv2.MetricSpec) autoscalingv1.MetricSpec {
	out := autoscalingv1.MetricSpec{Type: autoscalingv1.MetricSourceType(in.Type)}
	if o := in.Object; o != nil {
		out.Object = &autoscalingv1.ObjectMetricSource{
			Target:     autoscalingv1.CrossVersionObjectReference(o.DescribedObject),
			MetricName: o.Metric.Name, Selector: o.Metric.Selector, AverageValue: o.Target.AverageValue,
		}
		if o.Target.Value != nil {
			out.Object.TargetValue = *o.Target.Value
		}
	}
	if p := in.Pods; p != nil {
		out.Pods = &autoscalingv1.PodsMetricSource{MetricName: p.Metric.Name, Selector: p.Metric.Selector}
		if p.Target.AverageValue != nil {
			out.Pods.TargetAverageValue = *p.Target.AverageValue
		}
	}
	if r := in.Resource; r != nil {
		out.Resource = &autoscalingv1.ResourceMetricSource{Name: r.Name, TargetAverageUtilization: r.Target.AverageUtilization, TargetAverageValue: r.Target.AverageValue}
	}
	if r := in.ContainerResource; r != nil {
		out.ContainerResource = &autoscalingv1.ContainerResourceMetricSource{Name: r.Name, Container: r.Container,
			TargetAverageUtilization: r.Target.AverageUtilization, TargetAverageValue: r.Target.AverageValue}
	}
	if e := in.External; e != nil {
		out.External = &autoscalingv1.ExternalMetricSource{MetricName: e.Metric.Name, MetricSelector: e.Metric.Selector,
			TargetValue: e.Target.Value, TargetAverageValue: e.Target.AverageValue}
	}
	return out
}

// metricSpecToV2 is Convert_v1_MetricSpec_To_autoscaling_MetricSpec.
func metricSpecToV2(in autoscalingv1.MetricSpec) autoscalingv2.MetricSpec {
	out := autoscalingv2.MetricSpec{Type: autoscalingv2.MetricSourceType(in.Type)}
	if o := in.Object; o != nil {
		target := autoscalingv2.MetricTarget{Type: valueMetricType, AverageValue: o.AverageValue}
		value := o.TargetValue
		if o.AverageValue == nil {
			target.Value = &value
		} else {
			target.Type = averageValueMetricType
			// Only a non-zero value is kept for an average value target: v1 cannot leave it out.
			if !value.IsZero() {
				target.Value = &value
			}
		}
		out.Object = &autoscalingv2.ObjectMetricSource{
			DescribedObject: autoscalingv2.CrossVersionObjectReference(o.Target),
			Target:          target,
			Metric:          autoscalingv2.MetricIdentifier{Name: o.MetricName, Selector: o.Selector},
		}
	}
	if p := in.Pods; p != nil {
		value := p.TargetAverageValue
		out.Pods = &autoscalingv2.PodsMetricSource{
			Metric: autoscalingv2.MetricIdentifier{Name: p.MetricName, Selector: p.Selector},
			Target: autoscalingv2.MetricTarget{Type: averageValueMetricType, AverageValue: &value},
		}
	}
	if r := in.Resource; r != nil {
		out.Resource = &autoscalingv2.ResourceMetricSource{Name: r.Name, Target: utilizationOrAverage(r.TargetAverageUtilization, r.TargetAverageValue)}
	}
	if r := in.ContainerResource; r != nil {
		out.ContainerResource = &autoscalingv2.ContainerResourceMetricSource{Name: r.Name, Container: r.Container,
			Target: utilizationOrAverage(r.TargetAverageUtilization, r.TargetAverageValue)}
	}
	if e := in.External; e != nil {
		target := autoscalingv2.MetricTarget{Type: valueMetricType, Value: e.TargetValue, AverageValue: e.TargetAverageValue}
		if e.TargetValue == nil {
			target.Type = averageValueMetricType
		}
		out.External = &autoscalingv2.ExternalMetricSource{Metric: autoscalingv2.MetricIdentifier{Name: e.MetricName, Selector: e.MetricSelector}, Target: target}
	}
	return out
}

func utilizationOrAverage(utilization *int32, average *resource.Quantity) autoscalingv2.MetricTarget {
	t := autoscalingv2.MetricTarget{Type: utilizationMetricType, AverageUtilization: utilization, AverageValue: average}
	if utilization == nil {
		t.Type = averageValueMetricType
	}
	return t
}

// metricStatusToV1 is Convert_autoscaling_MetricStatus_To_v1_MetricStatus.
func metricStatusToV1(in autoscalingv2.MetricStatus) autoscalingv1.MetricStatus {
	out := autoscalingv1.MetricStatus{Type: autoscalingv1.MetricSourceType(in.Type)}
	if o := in.Object; o != nil {
		out.Object = &autoscalingv1.ObjectMetricStatus{Target: autoscalingv1.CrossVersionObjectReference(o.DescribedObject), MetricName: o.Metric.Name, Selector: o.Metric.Selector}
		if o.Current.Value != nil {
			out.Object.CurrentValue = *o.Current.Value
		}
		if o.Current.AverageValue != nil {
			v := *o.Current.AverageValue
			out.Object.AverageValue = &v
		}
	}
	if p := in.Pods; p != nil {
		out.Pods = &autoscalingv1.PodsMetricStatus{MetricName: p.Metric.Name, Selector: p.Metric.Selector}
		if p.Current.AverageValue != nil {
			out.Pods.CurrentAverageValue = *p.Current.AverageValue
		}
	}
	if r := in.Resource; r != nil {
		out.Resource = &autoscalingv1.ResourceMetricStatus{Name: r.Name, CurrentAverageUtilization: r.Current.AverageUtilization}
		if r.Current.AverageValue != nil {
			out.Resource.CurrentAverageValue = *r.Current.AverageValue
		}
	}
	if r := in.ContainerResource; r != nil {
		out.ContainerResource = &autoscalingv1.ContainerResourceMetricStatus{Name: r.Name, Container: r.Container, CurrentAverageUtilization: r.Current.AverageUtilization}
		if r.Current.AverageValue != nil {
			out.ContainerResource.CurrentAverageValue = *r.Current.AverageValue
		}
	}
	if e := in.External; e != nil {
		out.External = &autoscalingv1.ExternalMetricStatus{MetricName: e.Metric.Name, MetricSelector: e.Metric.Selector, CurrentAverageValue: e.Current.AverageValue}
		if e.Current.Value != nil {
			out.External.CurrentValue = *e.Current.Value
		}
	}
	return out
}

// metricStatusToV2 is Convert_v1_MetricStatus_To_autoscaling_MetricStatus.
func metricStatusToV2(in autoscalingv1.MetricStatus) autoscalingv2.MetricStatus {
	out := autoscalingv2.MetricStatus{Type: autoscalingv2.MetricSourceType(in.Type)}
	if o := in.Object; o != nil {
		value := o.CurrentValue
		out.Object = &autoscalingv2.ObjectMetricStatus{
			Current:         autoscalingv2.MetricValueStatus{Value: &value, AverageValue: o.AverageValue},
			DescribedObject: autoscalingv2.CrossVersionObjectReference(o.Target),
			Metric:          autoscalingv2.MetricIdentifier{Name: o.MetricName, Selector: o.Selector},
		}
	}
	if p := in.Pods; p != nil {
		value := p.CurrentAverageValue
		out.Pods = &autoscalingv2.PodsMetricStatus{Current: autoscalingv2.MetricValueStatus{AverageValue: &value},
			Metric: autoscalingv2.MetricIdentifier{Name: p.MetricName, Selector: p.Selector}}
	}
	if r := in.Resource; r != nil {
		value := r.CurrentAverageValue
		out.Resource = &autoscalingv2.ResourceMetricStatus{Name: r.Name, Current: autoscalingv2.MetricValueStatus{AverageValue: &value, AverageUtilization: r.CurrentAverageUtilization}}
	}
	if r := in.ContainerResource; r != nil {
		value := r.CurrentAverageValue
		out.ContainerResource = &autoscalingv2.ContainerResourceMetricStatus{Name: r.Name, Container: r.Container,
			Current: autoscalingv2.MetricValueStatus{AverageValue: &value, AverageUtilization: r.CurrentAverageUtilization}}
	}
	if e := in.External; e != nil {
		value := e.CurrentValue
		out.External = &autoscalingv2.ExternalMetricStatus{Current: autoscalingv2.MetricValueStatus{Value: &value, AverageValue: e.CurrentAverageValue},
			Metric: autoscalingv2.MetricIdentifier{Name: e.MetricName, Selector: e.MetricSelector}}
	}
	return out
}

// internalBehavior is pkg/apis/autoscaling HorizontalPodAutoscalerBehavior, whose JSON (it has
// no tags) the v1 behavior annotation holds.
type internalBehavior struct {
	ScaleUp   *internalScalingRules
	ScaleDown *internalScalingRules
}

type internalScalingRules struct {
	StabilizationWindowSeconds *int32
	SelectPolicy               *autoscalingv2.ScalingPolicySelect
	Policies                   []internalScalingPolicy
	Tolerance                  *resource.Quantity
}

type internalScalingPolicy struct {
	Type          autoscalingv2.HPAScalingPolicyType
	Value         int32
	PeriodSeconds int32
}

func internalBehaviorOf(b *autoscalingv2.HorizontalPodAutoscalerBehavior) internalBehavior {
	rules := func(r *autoscalingv2.HPAScalingRules) *internalScalingRules {
		if r == nil {
			return nil
		}
		out := &internalScalingRules{StabilizationWindowSeconds: r.StabilizationWindowSeconds, SelectPolicy: r.SelectPolicy, Tolerance: r.Tolerance}
		for _, p := range r.Policies {
			out.Policies = append(out.Policies, internalScalingPolicy{Type: p.Type, Value: p.Value, PeriodSeconds: p.PeriodSeconds})
		}
		return out
	}
	return internalBehavior{ScaleUp: rules(b.ScaleUp), ScaleDown: rules(b.ScaleDown)}
}

func (b internalBehavior) v2() *autoscalingv2.HorizontalPodAutoscalerBehavior {
	rules := func(r *internalScalingRules) *autoscalingv2.HPAScalingRules {
		if r == nil {
			return nil
		}
		out := &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: r.StabilizationWindowSeconds, SelectPolicy: r.SelectPolicy, Tolerance: r.Tolerance}
		for _, p := range r.Policies {
			out.Policies = append(out.Policies, autoscalingv2.HPAScalingPolicy{Type: p.Type, Value: p.Value, PeriodSeconds: p.PeriodSeconds})
		}
		return out
	}
	return &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: rules(b.ScaleUp), ScaleDown: rules(b.ScaleDown)}
}
