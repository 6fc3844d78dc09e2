package typecheck

import "sync"

// cache is a small map safe for concurrent use that forgets everything when full: what it keeps
// (typed contexts, with the CEL types of whole kinds) is costly to build but large.
type cache[V any] struct {
	mu  sync.Mutex
	max int
	m   map[string]V
}

func newCache[V any](max int) *cache[V] { return &cache[V]{max: max, m: map[string]V{}} }

func (c *cache[V]) get(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[key]
	return v, ok
}

func (c *cache[V]) put(key string, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		clear(c.m)
	}
	c.m[key] = v
}
