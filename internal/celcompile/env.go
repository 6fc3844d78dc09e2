// Package celcompile compiles CEL expressions as kube-apiserver's validation of the admission
// kinds does (k8s.io/kubernetes pkg/apis/admissionregistration/validation, over
// k8s.io/apiserver pkg/admission/plugin/cel): webhooks' match conditions, and every kind of
// policy expression with its own accessor and variable declarations, in the server's
// environments (Env), with a composited compiler for policies' variables (Policy). It answers
// what the compiler answers, error for error, and is fast where that answer is certain: one
// bounded cache of results, two shortcuts for valid match conditions (expressions of a shape
// already found valid, shape.go; expressions whose program cannot fail to build, fast.go), and
// match conditions compiled ahead in parallel (Precompile).
//
// The environments, compilers and the cache are the package's own, made once or bounded;
// they hold no state of a request. internal/validation turns its answers into the server's
// field errors.
package celcompile

import (
	"sync"

	"k8s.io/apimachinery/pkg/util/version"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

// LibrariesMinor is the release of the k8s.io/apiserver CEL libraries linked in: a server of a
// later release may know functions they do not.
const LibrariesMinor = 37

// Env is one CEL environment a server compiles expressions in: k8s.io/apiserver's base
// environment at a compatibility version (pkg/cel/environment MustBaseEnvSet), in its
// NewExpressions variant, or, when stored is set, its StoredExpressions one.
type Env struct {
	compat int  // the compatibility version, 1.compat
	stored bool // the StoredExpressions variant
}

// NewExpressions is the environment a server of version 1.minor compiles new or changed
// expressions in: the NewExpressions environment of its minimum compatibility version, one
// release before its own (k8s.io/apiserver pkg/cel/environment DefaultCompatibilityVersion;
// k8s.io/component-base compatibility, MinCompatibilityVersion), so that a new expression
// still compiles on the release before, should the cluster be rolled back.
func NewExpressions(minor int) Env { return Env{compat: minor - 1} }

// StoredExpressions is the environment a server of version 1.minor compiles the expressions it
// has stored in, when an update keeps them: its StoredExpressions environment, every option its
// release knows and has not removed. For a release whose libraries are linked in (up to
// LibrariesMinor), that is exactly the NewExpressions environment at its own version: the
// options introduced by then and not removed by then. A later release knows at least the
// StoredExpressions environment of the libraries linked in, and maybe more.
func StoredExpressions(minor int) Env {
	if minor <= LibrariesMinor {
		return Env{compat: minor}
	}
	return Env{compat: LibrariesMinor, stored: true}
}

func (e Env) envType() environment.Type {
	if e.stored {
		return environment.StoredExpressions
	}
	return environment.NewExpressions
}

// baseSet is the base environment set of e's compatibility version (cached by k8s.io/apiserver).
func (e Env) baseSet() *environment.EnvSet {
	return environment.MustBaseEnvSet(version.MajorMinor(1, uint(e.compat)))
}

// compilers are the stateless compilers (plugincel.NewCompiler over a base set), one per
// compatibility version, built on first use: building the CEL environments is far more
// expensive than compiling an expression with them.
var compilers = lazy[int, plugincel.Compiler]{build: func(compat int) plugincel.Compiler {
	return plugincel.NewCompiler(Env{compat: compat}.baseSet())
}}

// Compiler returns the stateless compiler of e's compatibility version, as the server's
// getStrictStatelessCELCompiler, built on first use.
func Compiler(e Env) plugincel.Compiler { return compilers.get(e.compat) }

// lazy holds values built on first use, one per key; safe for concurrent use. A value is
// built once, under the lock: whoever asks for it meanwhile waits for it.
type lazy[K comparable, V any] struct {
	mu     sync.Mutex
	values map[K]V
	build  func(K) V
}

func (l *lazy[K, V]) get(k K) V {
	l.mu.Lock()
	defer l.mu.Unlock()
	if v, ok := l.values[k]; ok {
		return v
	}
	v := l.build(k)
	if l.values == nil {
		l.values = map[K]V{}
	}
	l.values[k] = v
	return v
}

// MatchConditionVars are the variables a webhook's match conditions see at validation time
// (validateMatchConditionsExpression): object, oldObject, request, namespaceObject,
// authorizer; never params.
var MatchConditionVars = plugincel.OptionalVariableDeclarations{HasParams: false, HasAuthorizer: true}
