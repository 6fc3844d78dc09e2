package jsontest

import "testing"

func TestAt(t *testing.T) {
	doc := map[string]any{"webhook": []any{map[string]any{"name": "a", "rule": []any{"x"}}}}
	if v, ok := At(doc, "webhook", 0, "name"); !ok || v != "a" {
		t.Errorf("At(webhook.0.name) = %v, %v", v, ok)
	}
	for _, steps := range [][]any{{"webhook", 1}, {"webhook", -1}, {"webhook", "name"}, {"nope"}, {"webhook", 0, "rule", 0, "x"}, {1.5}} {
		if v, ok := At(doc, steps...); ok {
			t.Errorf("At(%v) = %v, want nothing", steps, v)
		}
	}
	if m := Object(t, doc, "webhook", 0); m["name"] != "a" {
		t.Errorf("Object = %v", m)
	}
	if l := List(t, doc, "webhook", 0, "rule"); len(l) != 1 {
		t.Errorf("List = %v", l)
	}
}
