// Package jsontest reads and edits decoded JSON (map[string]any, []any) in
// tests: Terraform's state and plan, API objects as unstructured content. A
// step that finds no object or list there fails the test with the path it
// took, instead of a panic on an unchecked type assertion.
package jsontest

import (
	"fmt"
	"strings"
	"testing"
)

// At is the value at steps under v: an int indexes a list, a string is an
// object's key. It reports false when a step finds nothing there.
func At(v any, steps ...any) (any, bool) {
	for _, s := range steps {
		switch k := s.(type) {
		case int:
			l, ok := v.([]any)
			if !ok || k < 0 || k >= len(l) {
				return nil, false
			}
			v = l[k]
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = m[k]; !ok {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return v, true
}

// Object is the object at steps under v; the test fails where there is none.
func Object(t testing.TB, v any, steps ...any) map[string]any {
	t.Helper()
	got, _ := At(v, steps...)
	m, ok := got.(map[string]any)
	if !ok {
		t.Fatalf("no object at %s in %s", pathOf(steps), brief(v))
	}
	return m
}

// List is the list at steps under v; the test fails where there is none.
func List(t testing.TB, v any, steps ...any) []any {
	t.Helper()
	got, _ := At(v, steps...)
	l, ok := got.([]any)
	if !ok {
		t.Fatalf("no list at %s in %s", pathOf(steps), brief(v))
	}
	return l
}

func pathOf(steps []any) string {
	if len(steps) == 0 {
		return "the top"
	}
	parts := make([]string, len(steps))
	for i, s := range steps {
		parts[i] = fmt.Sprint(s)
	}
	return strings.Join(parts, ".")
}

func brief(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}
