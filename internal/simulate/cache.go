package simulate

import (
	"encoding/json"
	"sync"

	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating"
)

// Compiling a policy's expressions is most of the cost of an answer
// (BenchmarkValidate): the CEL environments are built and every expression
// compiled. The server compiles a policy once and evaluates it for every
// request; so do these caches, keyed by the policy as defaulted. A compiled
// policy holds no state of a request, which is what lets the server share it
// between concurrent requests.
const maxCached = 256

type compileCache[V any] struct {
	mu      sync.Mutex
	entries map[string]V
}

func (c *compileCache[V]) get(policy any, compile func() V) V {
	data, err := json.Marshal(policy)
	if err != nil {
		return compile()
	}
	key := string(data)
	c.mu.Lock()
	v, ok := c.entries[key]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = compile()
	c.mu.Lock()
	if c.entries == nil || len(c.entries) >= maxCached {
		// Dropping everything keeps the bound simple; a test run asks
		// about a few policies many times.
		c.entries = map[string]V{}
	}
	c.entries[key] = v
	c.mu.Unlock()
	return v
}

var (
	validatingCache compileCache[compiledValidating]
	mutatingCache   compileCache[mutating.PolicyEvaluator]
)
