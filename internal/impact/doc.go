// Package impact answers, against the live cluster, what a planned admission policy will do
// to the objects the cluster already runs: which of them a validating policy and its bindings
// would deny, warn about or audit, which a mutating policy would change, on their next write.
//
// The next write of an object that already exists is an UPDATE: the next kubectl apply, helm
// upgrade, Argo CD or Flux sync, scale by an autoscaler or change by a controller. Each object
// is evaluated as an UPDATE that leaves it unchanged (object and oldObject both the stored
// object), the write that every one of those becomes when nothing else changes, and the one
// write every object will see: a policy that rejects it rejects whatever those tools send next
// until the object is fixed. A policy whose rules leave out UPDATE does not see such writes and
// affects no existing object. The writes of a subresource (status, scale) are not evaluated.
//
// What decides the answers is the one admission matcher (internal/matching), over the
// cluster's own namespaces (matching.LiveNamespaces), and the simulator of the provider's
// functions (internal/simulate's Validate and Mutate), with the params the binding finds in
// the cluster: so what the plan predicts and what the functions answer cannot disagree. The
// objects are those of the resources that the policy's rules name, found through discovery
// (custom resources included), read in pages within Bounds (objects per resource, a time
// budget). What cannot be read (a list the credentials may not make, one that fails, one cut
// by the bounds) is said, and what the offline evaluation cannot know is counted apart as
// "cannot tell", never as admitted: a verdict that turns on who writes next (a policy that
// reads request.userInfo or calls the authorizer is evaluated with the writer left unknown, by
// CEL partial evaluation, and decides the others), what a mutating webhook that sees the write
// first answers, and a verdict that depends on the order of the mutating admission policies.
// Those, which change a write before the validating policies see it, are applied first with
// the simulator's Admit in every order the server may run them in: the cluster's, and those
// planned in the same run in their place (chain.go, planned.go).
//
// The package takes and gives API objects only; internal/policy turns its results into the
// plan's warnings, and the impact data source into per-object verdicts.
package impact
