// Package typecheck type-checks the CEL expressions of admission policies against the schemas
// of the kinds they match, as kube-apiserver does after storing a ValidatingAdmissionPolicy
// (status.typeChecking), but at plan: with the server's own type checker
// (k8s.io/apiserver pkg/admission/plugin/policy/validating TypeChecker) and in its words.
// MutatingAdmissionPolicy has no type checker at the server; MutatingPolicy builds one from
// the same pieces (mutating.go).
//
// The schemas of the built-in kinds are embedded (internal/builtinapi: a snapshot of
// kube-apiserver's discovery and OpenAPI v3, trimmed to what CEL types are built from). So a
// policy that matches only built-in kinds is checked with no cluster and no request. Other kinds (custom resources) are
// looked up in the cluster, whose discovery and OpenAPI documents a Checker fetches at most
// once.
//
// Type checking fails soft: a kind or paramKind that does not resolve is not checked (params
// is then dyn), and no failure of the CEL libraries becomes more than a missing warning.
package typecheck

import (
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/builtinapi"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/live"
)

// Warning is one type-checking finding: Field is the API field path of the expression
// ("spec.validations[0].expression"), Message the server's words (as status.typeChecking would say).
type Warning struct {
	Field   string
	Message string
}

// Checker type-checks policies against built-in schemas, and against CRDs through Live when set.
// It is safe for concurrent use; make one per provider process, as it keeps what it resolved.
type Checker struct {
	// builtin is the built-in API (builtinapi.Default).
	builtin func() (*builtinapi.API, error)
	// liveOnce calls the live function of New on its first call only; askedLive says that
	// it was called (the tests' LiveError reports nothing before).
	liveOnce  func() (*liveAPI, error)
	askedLive atomic.Bool
	types     *validating.TypeChecker

	mu      sync.Mutex
	schemas map[schema.GroupVersionKind]resolved

	// contexts are the typed contexts of the policies checked so far, results the messages of
	// their expressions ("" for none): Terraform may check the same policy more than once.
	contexts *cache[*validating.TypeCheckingContext]
	results  *cache[string]

	// declTypes are the CEL types of kinds, envs the environments of mutations per kind.
	declTypes *cache[*apiservercel.DeclType]
	envs      *cache[*environment.EnvSet]
}

// The caches of a Checker forget everything when full, so these bound its memory. A typed
// context holds the CEL types of every kind its policy matches, some 0.7 MB for deployments;
// a mutation environment of one kind about 2 MB; a kind's CEL type some 0.3 MB.
const (
	maxContexts  = 16
	maxEnvs      = 16
	maxDeclTypes = 32
)

// maxResults bounds Checker.results.
const maxResults = 4096

// New: cluster may be nil (no cluster); when set, it is called at most once per process, and
// only when a policy matches a kind that is not built in, to read discovery + OpenAPI v3 for
// CRDs.
func New(cluster func() (*live.Reader, error)) *Checker {
	c := &Checker{
		builtin:   builtinapi.Default,
		schemas:   map[schema.GroupVersionKind]resolved{},
		contexts:  newCache[*validating.TypeCheckingContext](maxContexts),
		results:   newCache[string](maxResults),
		declTypes: newCache[*apiservercel.DeclType](maxDeclTypes),
		envs:      newCache[*environment.EnvSet](maxEnvs),
	}
	c.liveOnce = sync.OnceValues(func() (*liveAPI, error) {
		c.askedLive.Store(true)
		if cluster == nil {
			return nil, errNoLive
		}
		r, err := cluster()
		if err != nil {
			return nil, err
		}
		return newLiveAPI(r)
	})
	c.types = &validating.TypeChecker{SchemaResolver: schemaResolver{c}, RestMapper: restMapper{c}}
	return c
}
