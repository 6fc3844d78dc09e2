package benchmark

import (
	"slices"
	"testing"
)

func TestParsePhases(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"create,noop,change,destroy", Phases},
		{"create", []string{PhaseCreate}},
		{"create, noop", []string{PhaseCreate, PhaseNoop}},
	} {
		got, err := ParsePhases(c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("ParsePhases(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	// Each phase starts where the one before left the objects: a phase
	// without those before it, a repeated or an unknown one is refused.
	for _, in := range []string{"noop", "create,change", "create,create", "create,noop,change,destroy,create", "apply", ""} {
		if got, err := ParsePhases(in); err == nil {
			t.Errorf("ParsePhases(%q) = %v, want an error", in, got)
		}
	}
}
