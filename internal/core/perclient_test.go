package core

import (
	"testing"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
)

// A value is made once per client and kept, but for one its maker says not to keep (a
// fallback while the cluster cannot be reached), which is made again next time.
func TestPerClient(t *testing.T) {
	var p PerClient[int]
	a, b := &kube.Client{}, &kube.Client{}
	made := 0
	keep := false
	make := func() (int, bool) { made++; return made, keep }
	if got := p.Get(a, make); got != 1 {
		t.Fatalf("first: %d", got)
	}
	keep = true
	if got := p.Get(a, make); got != 2 {
		t.Fatalf("not kept, so made again: %d", got)
	}
	if got := p.Get(a, make); got != 2 || made != 2 {
		t.Fatalf("kept: %d, made %d times", got, made)
	}
	if got := p.Get(b, make); got != 3 {
		t.Fatalf("another client: %d", got)
	}
}
