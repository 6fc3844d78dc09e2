// Package syncmap is sync.Map with the types of its keys and values, for the
// caches kept per client, per type or per CEL environment: a value read back
// has the type it was stored with, with no type assertion at the call site.
package syncmap

import "sync"

// Map is a sync.Map whose keys are K and values V. Its zero value is empty
// and ready to use; like sync.Map, it must not be copied after first use.
type Map[K comparable, V any] struct {
	m sync.Map
}

// Load returns the value stored for key, if any.
func (m *Map[K, V]) Load(key K) (V, bool) {
	v, ok := m.m.Load(key)
	if !ok {
		var zero V
		return zero, false
	}
	t, ok := v.(V)
	return t, ok
}

// Store sets the value for key.
func (m *Map[K, V]) Store(key K, value V) { m.m.Store(key, value) }

// LoadOrStore returns the value stored for key if there is one, else stores
// and returns value.
func (m *Map[K, V]) LoadOrStore(key K, value V) V {
	actual, _ := m.m.LoadOrStore(key, value)
	if t, ok := actual.(V); ok {
		return t
	}
	return value // not reached: only values of type V are stored
}
