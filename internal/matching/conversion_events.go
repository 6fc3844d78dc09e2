package matching

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
)

// addEventConversions registers the conversions between the events of the core group and of
// events.k8s.io/v1, which kube-apiserver stores together: through the internal core.Event, as
// k8s.io/kubernetes pkg/apis/events/v1 Convert_v1_Event_To_core_Event and
// Convert_core_Event_To_v1_Event do (regarding is involvedObject, note is message, the
// deprecated fields are the core ones), the other fields having the same names.
func addEventConversions(s *runtime.Scheme) error {
	if err := addConversion(s, func(in *corev1.Event, out *eventsv1.Event) error { coreToEventsV1(in, out); return nil }); err != nil {
		return err
	}
	return addConversion(s, func(in *eventsv1.Event, out *corev1.Event) error { eventsV1ToCore(in, out); return nil })
}

// addConversion registers f as the scheme's conversion from *A to *B, the arguments' types
// checked (the scheme calls it only with those types).
func addConversion[A, B any](s *runtime.Scheme, f func(*A, *B) error) error {
	return s.AddConversionFunc((*A)(nil), (*B)(nil), func(a, b any, _ conversion.Scope) error {
		in, ok1 := a.(*A)
		out, ok2 := b.(*B)
		if !ok1 || !ok2 {
			return fmt.Errorf("conversion from %T to %T called with %T and %T", (*A)(nil), (*B)(nil), a, b)
		}
		return f(in, out)
	})
}

func coreToEventsV1(in *corev1.Event, out *eventsv1.Event) {
	*out = eventsv1.Event{
		ObjectMeta:               *in.ObjectMeta.DeepCopy(),
		EventTime:                in.EventTime,
		ReportingController:      in.ReportingController,
		ReportingInstance:        in.ReportingInstance,
		Action:                   in.Action,
		Reason:                   in.Reason,
		Regarding:                in.InvolvedObject,
		Related:                  in.Related.DeepCopy(),
		Note:                     in.Message,
		Type:                     in.Type,
		DeprecatedSource:         in.Source,
		DeprecatedFirstTimestamp: in.FirstTimestamp,
		DeprecatedLastTimestamp:  in.LastTimestamp,
		DeprecatedCount:          in.Count,
	}
	if in.Series != nil {
		out.Series = &eventsv1.EventSeries{Count: in.Series.Count, LastObservedTime: in.Series.LastObservedTime}
	}
}

func eventsV1ToCore(in *eventsv1.Event, out *corev1.Event) {
	*out = corev1.Event{
		ObjectMeta:          *in.ObjectMeta.DeepCopy(),
		InvolvedObject:      in.Regarding,
		Reason:              in.Reason,
		Message:             in.Note,
		Source:              in.DeprecatedSource,
		FirstTimestamp:      in.DeprecatedFirstTimestamp,
		LastTimestamp:       in.DeprecatedLastTimestamp,
		Count:               in.DeprecatedCount,
		Type:                in.Type,
		EventTime:           in.EventTime,
		Action:              in.Action,
		Related:             in.Related.DeepCopy(),
		ReportingController: in.ReportingController,
		ReportingInstance:   in.ReportingInstance,
	}
	if in.Series != nil {
		out.Series = &corev1.EventSeries{Count: in.Series.Count, LastObservedTime: in.Series.LastObservedTime}
	}
}
