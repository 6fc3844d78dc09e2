package matching

import "k8s.io/apimachinery/pkg/runtime"

// Equivalents tell which resources serve the same objects under another group, version or
// name, as the server's EquivalentResourceMapper does (k8s.io/apiserver pkg/endpoints
// registers each resource with the storage it shares): a rule of a hook with matchPolicy
// Equivalent then matches a request on any of them, and the hook sees the object converted to
// the kind its rule names (deployments in apps/v1 for a rule on apps/v1beta1, the
// horizontalpodautoscalers of autoscaling/v1 and v2, events of core v1 and events.k8s.io/v1, the
// versions of a custom resource).
//
// To fill in equivalences, build a runtime.EquivalentResourceRegistry with
// runtime.NewEquivalentResourceRegistryWithIdentity, giving the resources that share a storage
// the same identity, RegisterKindFor each resource and version with its kind, and pass it as
// Config.Equivalents. The matcher and the dispatchers given its ObjectInterfaces then match
// and convert as the server does; the objects of a request must then be convertible between
// those kinds (the built-in scheme converts the built-in kinds).
type Equivalents = runtime.EquivalentResourceMapper

// NoEquivalents knows no equivalent resources: a rule matches a request only on the resource
// and version the request names, whatever the match policy. It is what the provider knows
// offline so far.
func NoEquivalents() Equivalents { return runtime.NewEquivalentResourceRegistry() }
