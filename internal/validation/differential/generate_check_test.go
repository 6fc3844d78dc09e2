package differential

import (
	"encoding/json"
	"testing"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// These checks need no cluster: they run in every `go test`.

// TestGeneratorIsDeterministic: the same seed gives the same objects, enough of them, each with
// its own name.
func TestGeneratorIsDeterministic(t *testing.T) {
	a, b := generate(), generate()
	if len(a) < 2000 {
		t.Errorf("generate() made %d objects, want at least 2000", len(a))
	}
	if len(a) != len(b) {
		t.Fatalf("two runs made %d and %d objects", len(a), len(b))
	}
	names := map[string]int{}
	nameless := 0
	for k := range a {
		ja, _ := json.Marshal(a[k].obj)
		jb, _ := json.Marshal(b[k].obj)
		if string(ja) != string(jb) || a[k].rule != b[k].rule || a[k].note != b[k].note {
			t.Fatalf("object %d differs between two runs:\n%s\n%s", k, ja, jb)
		}
		name := a[k].obj.Name
		if name == "" {
			name = "generateName:" + a[k].obj.GenerateName
		}
		if name == "generateName:" {
			nameless++
			continue
		}
		if prev, dup := names[name]; dup {
			t.Errorf("objects %d and %d are both named %q", prev, k, name)
		}
		names[name] = k
	}
	if nameless != 1 {
		t.Errorf("%d objects have neither name nor generateName, want exactly the one that tests it", nameless)
	}
}

// TestGeneratorLabelsAgreeWithValidate checks, offline, each object whose verdict the spec
// states against Validate. The differential test then checks both against the server.
func TestGeneratorLabelsAgreeWithValidate(t *testing.T) {
	rules := map[string]bool{}
	for _, c := range generate() {
		rules[c.rule] = true
		if c.want == unknown {
			continue
		}
		errs := validation.Validate(validation.Default(c.obj))
		if got := len(errs) == 0; got != (c.want == accept) {
			t.Errorf("%s: Validate returned %d errors: %v", c, len(errs), errs)
		}
	}
	for _, m := range mutators() {
		if !rules[m.rule] {
			t.Errorf("mutator %q made no object", m.rule)
		}
	}
}
