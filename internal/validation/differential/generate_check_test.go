package differential

import (
	"encoding/json"
	"regexp"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

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

// TestGeneratorLabelsAgreeWithValidate checks, offline, each object whose verdict the rules
// states against Validate, in both kinds. The differential test then checks both against the
// server.
func TestGeneratorLabelsAgreeWithValidate(t *testing.T) {
	mutating := generate()
	validating, _ := validatingCases(mutating)
	for name, cases := range map[string][]testCase{"mutating": mutating, "validating": validating} {
		for _, c := range cases {
			if c.want == unknown {
				continue
			}
			errs := validation.Validate(validation.Default(c.obj))
			if got := len(errs) == 0; got != (c.want == accept) {
				t.Errorf("%s %s: Validate returned %d errors: %v", name, c, len(errs), errs)
			}
		}
	}
	rules := map[string]bool{}
	for _, c := range mutating {
		rules[c.rule] = true
	}
	for _, m := range mutators() {
		if !rules[m.rule] {
			t.Errorf("mutator %q made no object", m.rule)
		}
	}
}

var reinvocationPath = regexp.MustCompile(`^webhooks\[\d+\]\.reinvocationPolicy$`)

// TestValidatingCases checks the derivation of the validating kind's cases: enough of them, none
// with reinvocationPolicy, and the mutatingOnly marks on exactly the generated objects that
// Validate faults for their reinvocationPolicy, so that no case keeps a verdict that came from
// that field.
func TestValidatingCases(t *testing.T) {
	mutating := generate()
	validating, dropped := validatingCases(mutating)
	if len(validating) < 2000 {
		t.Errorf("validatingCases made %d objects, want at least 2000", len(validating))
	}
	if len(validating)+dropped != len(mutating) {
		t.Errorf("%d validating cases and %d dropped from %d generated", len(validating), dropped, len(mutating))
	}
	for _, c := range validating {
		for _, h := range c.obj.Webhooks {
			if h.ReinvocationPolicy != nil {
				t.Fatalf("%s: reinvocationPolicy %q left in the validating kind", c, *h.ReinvocationPolicy)
			}
		}
		for _, s := range c.steps {
			if s.mutatingOnly {
				t.Fatalf("%s: step %q left in the validating kind", c, s.rule)
			}
		}
	}
	for _, c := range mutating {
		marked := slices.ContainsFunc(c.steps, func(s step) bool { return s.mutatingOnly })
		faulted := slices.ContainsFunc(validation.Validate(validation.Default(c.obj)), func(e *field.Error) bool {
			return reinvocationPath.MatchString(e.Field)
		})
		if marked != faulted {
			t.Errorf("%s: marked mutating-only %v, but Validate faults its reinvocationPolicy: %v", c, marked, faulted)
		}
	}
}
