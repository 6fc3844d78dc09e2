// Package simulate answers offline what kube-apiserver does with an admission
// request: for a validating admission policy and its binding (Validate), a
// mutating one (Mutate), the webhooks of a configuration (MatchWebhooks),
// and the whole admission chain for a set of them (Admit). It is the engine of the provider's functions
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
// are given the same hooks directly. Admit runs the dispatchers in the
// chain's order, and the webhook plugins whole (pkg/admission/plugin/webhook/
// mutating and validating), over synced informers of the given
// configurations and a transport that answers as the caller says
// (offline_webhooks.go), reinvoking as the server's reinvoker does.
//
// What the plugins reach beyond the request comes from the request:
// the namespace (the matcher's GivenNamespaces: the request's Namespace, its
// labels and annotations, with the kubernetes.io/metadata.name label the
// server gives every namespace, and no other), the parameter objects (an
// informer of the request's params), the authorizer (the privileged group
// system:masters, then the request's rules, denying the rest), and the
// equivalent resources (the built-in API's and the request's custom
// resources'). Objects of
// built-in kinds are held as their Go types, as the server holds them; apply
// configurations merge with the built-in schemas embedded in
// internal/builtinapi. What cannot be known offline is not guessed: the
// server's defaulting of built-in kinds (the results' Notes say so), other
// policies and webhooks of a cluster, what a webhook answers unless the
// caller says, the schemas of custom resources.
//
// The differential test (differential/) holds the answers to a running
// kube-apiserver.
package simulate
