// Package simulate answers offline what kube-apiserver does with an admission
// request: for a validating admission policy and its binding (Validate), a
// mutating one (Mutate), and the webhooks of a configuration
// (MatchWebhooks). It is the engine of the provider's functions
// (internal/functions), which read their arguments, in the API form or a
// resource's, into the API objects it takes: it knows nothing of Terraform.
// Which hooks a request reaches is the one admission matcher's answer
// (internal/matching), which the plan's advice (internal/advice) asks too.
//
// The answers come from k8s.io/apiserver's own admission code, at the level
// below the admission plugins: the policy dispatchers
// (pkg/admission/plugin/policy/validating NewDispatcher,
// .../policy/mutating NewDispatcher) with the server's policy matcher
// (internal/matching's PolicyPredicates), the policies compiled as the
// plugins compile them (their compilePolicy, which is not exported, is
// repeated call for call), and, for webhooks, the matcher's
// Webhook.ShouldCallHook (pkg/admission/plugin/webhook/generic). The whole
// plugins (validating.NewPlugin, mutating.NewPlugin) were not used: they read
// policies through informers and a policy source that recompiles on a
// one-second tick, so every answer would wait for caches to sync; the
// dispatchers are what the plugins call once their sources are ready, and
// are given the same hooks directly.
//
// What the plugins reach beyond the request comes from the request:
// the namespace (the matcher's GivenNamespaces: the request's namespace, with
// the kubernetes.io/metadata.name label the server gives every namespace, and
// no other), the parameter objects (an informer of the request's params),
// and the authorizer (the request's rules, denying the rest). Objects of
// built-in kinds are held as their Go types, as the server holds them; apply
// configurations merge with the built-in schemas embedded in
// internal/typecheck. What cannot be known offline is not guessed: the
// server's defaulting of built-in kinds, other policies and webhooks, what
// a webhook answers, the schemas of custom resources, resources equivalent
// to one another (matching.NoEquivalents).
//
// The differential test (differential/) holds the answers to a running
// kube-apiserver.
package simulate
