// Package matching answers, offline, which admission hooks kube-apiserver calls for a request:
// which webhooks of a configuration (Matcher.Webhook), and whether an admission policy through
// one of its bindings applies (Matcher.Policy). It is the one matcher of the provider: the
// lockout advice (internal/advice), the simulator (internal/simulate) and whatever else asks
// "which requests does this object see" ask it.
//
// The answers are k8s.io/apiserver's own predicates, not a copy of them: for webhooks
// pkg/admission/plugin/webhook/generic Webhook.ShouldCallHook (namespace and object selectors,
// rules with their scope and subresources, the match policy over equivalent resources) and its
// match conditions, and for policies pkg/admission/plugin/policy/matching Matcher.Matches on the
// policy's match constraints and then the binding's match resources (excluded rules included),
// and the policy's match conditions. Before them come the requests the server never shows to
// admission hooks (excluded.go). Objects are read with the server's defaults
// (internal/validation).
//
// A Matcher holds no state beyond what it is given, and the package none at all but the
// compiled CEL environment of match conditions: what the predicates need from outside comes from
// its Config, the namespaces of requests (Namespaces: synthetic ones with only their name label,
// the namespaces a request gives, or the cluster's, read once within bounds) and the
// resources that are equivalent to one another for matchPolicy Equivalent (Equivalents).
package matching
