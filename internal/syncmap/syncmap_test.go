package syncmap

import (
	"sync"
	"testing"
)

func TestMap(t *testing.T) {
	var m Map[string, *int]
	if v, ok := m.Load("a"); ok || v != nil {
		t.Fatalf("empty map: Load = %v, %v", v, ok)
	}
	one, two := 1, 2
	if got := m.LoadOrStore("a", &one); got != &one {
		t.Fatalf("LoadOrStore on an empty key returned %v, want the value given", got)
	}
	if got := m.LoadOrStore("a", &two); got != &one {
		t.Fatalf("LoadOrStore on a stored key returned %v, want the stored value", got)
	}
	m.Store("b", &two)
	if v, ok := m.Load("b"); !ok || v != &two {
		t.Fatalf("Load after Store = %v, %v", v, ok)
	}
	// Concurrent first uses agree on one value.
	var wg sync.WaitGroup
	got := make([]*int, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := i
			got[i] = m.LoadOrStore("c", &n)
		}()
	}
	wg.Wait()
	for _, g := range got {
		if g != got[0] {
			t.Fatalf("concurrent LoadOrStore returned different values")
		}
	}
}
