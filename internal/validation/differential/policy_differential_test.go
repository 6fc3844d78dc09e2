package differential

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// The differential test of the admission policy kinds: every generated object is sent to
// kube-apiserver as a dry-run create, and the server and our validation (the kind's Default
// function, then its Validate function) must agree on the verdict and on the set of
// (field path, reason) pairs; for an accepted object, the server's stored spec must be the one
// the Default function makes. Differences in the order of the errors, or in their messages
// when the paths agree, are counted and logged.

// policyKind is a policy kind under test.
type policyKind[T any] struct {
	name     string // the API kind
	cases    []policyCase[T]
	meta     func(*T) *metav1.ObjectMeta
	spec     func(*T) any
	defaults func(*T) *T              // the kind's Default function
	validate func(*T) field.ErrorList // the kind's Validate function
	// create makes a create request with opts and returns the object the server answered with.
	create func(ctx context.Context, o *T, opts metav1.CreateOptions) (*T, error)
}

func validatingPolicyKind(cs kubernetes.Interface) policyKind[vap] {
	return policyKind[vap]{
		name:     "ValidatingAdmissionPolicy",
		cases:    validatingPolicyGenerator().generate(),
		meta:     func(p *vap) *metav1.ObjectMeta { return &p.ObjectMeta },
		spec:     func(p *vap) any { return p.Spec },
		defaults: validation.DefaultValidatingPolicy,
		validate: validation.ValidateValidatingPolicy,
		create: func(ctx context.Context, p *vap, opts metav1.CreateOptions) (*vap, error) {
			return cs.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, p, opts)
		},
	}
}

func validatingBindingKind(cs kubernetes.Interface) policyKind[vapb] {
	return policyKind[vapb]{
		name:     "ValidatingAdmissionPolicyBinding",
		cases:    validatingBindingGenerator().generate(),
		meta:     func(b *vapb) *metav1.ObjectMeta { return &b.ObjectMeta },
		spec:     func(b *vapb) any { return b.Spec },
		defaults: validation.DefaultValidatingPolicyBinding,
		validate: validation.ValidateValidatingPolicyBinding,
		create: func(ctx context.Context, b *vapb, opts metav1.CreateOptions) (*vapb, error) {
			return cs.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Create(ctx, b, opts)
		},
	}
}

func mutatingPolicyKind(cs kubernetes.Interface) policyKind[map_] {
	return policyKind[map_]{
		name:     "MutatingAdmissionPolicy",
		cases:    mutatingPolicyGenerator().generate(),
		meta:     func(p *map_) *metav1.ObjectMeta { return &p.ObjectMeta },
		spec:     func(p *map_) any { return p.Spec },
		defaults: validation.DefaultMutatingPolicy,
		validate: validation.ValidateMutatingPolicy,
		create: func(ctx context.Context, p *map_, opts metav1.CreateOptions) (*map_, error) {
			return cs.AdmissionregistrationV1().MutatingAdmissionPolicies().Create(ctx, p, opts)
		},
	}
}

func mutatingBindingKind(cs kubernetes.Interface) policyKind[mapb] {
	return policyKind[mapb]{
		name:     "MutatingAdmissionPolicyBinding",
		cases:    mutatingBindingGenerator().generate(),
		meta:     func(b *mapb) *metav1.ObjectMeta { return &b.ObjectMeta },
		spec:     func(b *mapb) any { return b.Spec },
		defaults: validation.DefaultMutatingPolicyBinding,
		validate: validation.ValidateMutatingPolicyBinding,
		create: func(ctx context.Context, b *mapb, opts metav1.CreateOptions) (*mapb, error) {
			return cs.AdmissionregistrationV1().MutatingAdmissionPolicyBindings().Create(ctx, b, opts)
		},
	}
}

// policyClient is a client of the shared control plane, and the server's version.
func policyClient(t *testing.T) (kubernetes.Interface, string) {
	cfg := acctest.Cluster(t).RESTConfig()
	cfg.QPS, cfg.Burst = 200, 400
	cfg.WarningHandlerWithContext = contextWarnings{}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	version, err := cs.Discovery().ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	return cs, version.GitVersion
}

// TestValidatingPoliciesAgainstAPIServer is the differential test of ValidatingAdmissionPolicy
// and ValidatingAdmissionPolicyBinding.
func TestValidatingPoliciesAgainstAPIServer(t *testing.T) {
	cs, version := policyClient(t)
	t.Run("ValidatingAdmissionPolicy", func(t *testing.T) { checkPolicyKind(t, validatingPolicyKind(cs), version) })
	t.Run("ValidatingAdmissionPolicyBinding", func(t *testing.T) { checkPolicyKind(t, validatingBindingKind(cs), version) })
}

// TestMutatingPoliciesAgainstAPIServer is the differential test of MutatingAdmissionPolicy and
// MutatingAdmissionPolicyBinding (admissionregistration.k8s.io/v1 since Kubernetes 1.37).
func TestMutatingPoliciesAgainstAPIServer(t *testing.T) {
	cs, version := policyClient(t)
	t.Run("MutatingAdmissionPolicy", func(t *testing.T) { checkPolicyKind(t, mutatingPolicyKind(cs), version) })
	t.Run("MutatingAdmissionPolicyBinding", func(t *testing.T) { checkPolicyKind(t, mutatingBindingKind(cs), version) })
}

// checkPolicyKind judges every case of k both ways, reports each disagreement as an error and
// prints the figure line.
func checkPolicyKind[T any](t *testing.T, k policyKind[T], serverVersion string) {
	cases := k.cases
	results := make([]outcome, len(cases))
	// The spec our Default function makes and the one the server answered with, as JSON, for
	// each accepted object.
	specs := make([][2]string, len(cases))
	began := time.Now()
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Go(func() {
			for i := range next {
				c := cases[i]
				defaulted := k.defaults(c.obj)
				o := outcome{ours: ourCauses(k.validate(defaulted))}
				var stored *T
				o.answer = dryRun(func(ctx context.Context, opts metav1.CreateOptions) (err error) {
					stored, err = k.create(ctx, c.obj, opts)
					return err
				})
				if o.accepted && stored != nil {
					ours, _ := json.Marshal(k.spec(defaulted))
					server, _ := json.Marshal(k.spec(stored))
					specs[i] = [2]string{string(ours), string(server)}
				}
				results[i] = o
			}
		})
	}
	for i := range cases {
		next <- i
	}
	close(next)
	wg.Wait()
	elapsed := time.Since(began)

	var (
		agree, valid, invalid, messageOnly, otherOrder, defaultDiffs int
		rulesCovered                                                 = map[string]bool{}
		kinds                                                        = map[string]bool{}
		silent                                                       = map[string][2]int{}
		warnings                                                     = map[string]int{}
	)
	for i, c := range cases {
		o := results[i]
		if d := o.disagreement(); d != "" {
			t.Errorf("DISAGREEMENT %s\n  %s\n  ours:\n%s  server:\n%s", d, policySummary(c), listCauses(o.ours), listCauses(o.causes))
			continue
		}
		agree++
		if o.accepted {
			valid++
		} else {
			invalid++
		}
		norm := generatedNameMask(k.meta(c.obj))
		if !slices.Equal(set(o.ours, norm), set(o.causes, norm)) {
			messageOnly++
			t.Logf("same paths, different messages: %s\n  ours:\n%s  server:\n%s", c, listCauses(o.ours), listCauses(o.causes))
		}
		if !slices.Equal(pairs(o.ours), pairs(o.causes)) {
			otherOrder++
			t.Logf("same errors, another order: %s\n  ours:\n%s  server:\n%s", c, listCauses(o.ours), listCauses(o.causes))
		}
		switch {
		case c.want == accept && !o.accepted, c.want == reject && o.accepted:
			t.Errorf("the generator expects %s but the server did not: %s\n  server:\n%s", c.want, policySummary(c), listCauses(o.causes))
		case c.rule != validRule && !strings.HasPrefix(c.rule, "several rules"):
			rulesCovered[c.rule] = true
		}
		if o.accepted && specs[i][0] != specs[i][1] {
			defaultDiffs++
			t.Errorf("the server stores another spec than the Default function makes: %s\n  ours:   %s\n  server: %s", c, specs[i][0], specs[i][1])
		}
		if c.want == unknown {
			n := silent[c.rule]
			if o.accepted {
				n[0]++
			} else {
				n[1]++
			}
			silent[c.rule] = n
		}
		for _, sc := range o.causes {
			kinds[indexRE.ReplaceAllString(sc.Field, "[*]")+" "+sc.Reason] = true
		}
		for _, w := range o.warnings {
			warnings[indexRE.ReplaceAllString(w, "[*]")]++
		}
	}

	t.Logf("kinds of (path, reason) the server returned: %s", strings.Join(slices.Sorted(maps.Keys(kinds)), "; "))
	for _, r := range slices.Sorted(maps.Keys(silent)) {
		t.Logf("spec silent, server decides: %s: %d accepted, %d rejected", r, silent[r][0], silent[r][1])
	}
	for _, w := range slices.Sorted(maps.Keys(warnings)) {
		t.Logf("server warning (%d objects): %s", warnings[w], w)
	}
	// make check prints the lines of go test -v that start with "differential:".
	line := fmt.Sprintf("differential: %d/%d %s agree (%d valid, %d invalid; %d rules covered, %d kinds of (path, reason) seen); "+
		"%d with other messages for the same paths; %d with the same errors in another order; %d accepted with other defaults; kube-apiserver %s, %s",
		agree, len(cases), plural(k.name), valid, invalid, len(rulesCovered), len(kinds), messageOnly, otherOrder, defaultDiffs, serverVersion, elapsed.Round(time.Millisecond))
	t.Log(line)
	fmt.Println(line)
}

// plural is the plural of a kind's name.
func plural(kind string) string {
	if base, ok := strings.CutSuffix(kind, "y"); ok {
		return base + "ies"
	}
	return kind + "s"
}

// pairs returns the (path, reason) pairs of causes, in order.
func pairs(causes []cause) []string {
	out := make([]string, len(causes))
	for i, c := range causes {
		out[i] = c.pair()
	}
	return out
}

// generatedNameMask returns the key that set compares messages by: the whole cause, with, for
// an object named by generateName, the 5 random characters the server appends masked on both
// sides (we append "xxxxx"; x is in the generator's alphabet). The generated name shows in
// metadata.name errors and in audit annotation keys.
func generatedNameMask(meta *metav1.ObjectMeta) func(cause) string {
	if meta.Name != "" || meta.GenerateName == "" {
		return cause.String
	}
	prefix := meta.GenerateName[:min(len(meta.GenerateName), 58)]
	quoted := strconv.Quote(prefix)
	generated := regexp.MustCompile(regexp.QuoteMeta(quoted[1:len(quoted)-1]) + `[bcdfghjklmnpqrstvwxz2456789]{5}`)
	return func(x cause) string {
		x.Message = generated.ReplaceAllLiteralString(x.Message, prefix+"·····")
		return x.String()
	}
}

func policySummary[T any](c policyCase[T]) string {
	b, _ := json.Marshal(c.obj)
	s := string(b)
	if len(s) > 1500 {
		s = s[:1500] + fmt.Sprintf("…(%d bytes)", len(b))
	}
	return c.String() + "\n    object: " + s
}

// ---------------------------------------------------------------------------------------------
// Offline checks of the generators: they run in every `go test`.

// checkPolicyGenerator checks that gen is deterministic, makes enough objects, each with its own
// name, and that every object whose verdict the rules state gets it from validate.
func checkPolicyGenerator[T any](t *testing.T, gen func() []policyCase[T], meta func(*T) *metav1.ObjectMeta, validate func(*T) field.ErrorList, atLeast int) {
	t.Helper()
	a, b := gen(), gen()
	if len(a) < atLeast {
		t.Errorf("made %d objects, want at least %d", len(a), atLeast)
	}
	if len(a) != len(b) {
		t.Fatalf("two runs made %d and %d objects", len(a), len(b))
	}
	names := map[string]int{}
	for k := range a {
		ja, _ := json.Marshal(a[k].obj)
		jb, _ := json.Marshal(b[k].obj)
		if string(ja) != string(jb) || a[k].rule != b[k].rule || a[k].note != b[k].note {
			t.Fatalf("object %d differs between two runs:\n%s\n%s", k, ja, jb)
		}
		m := meta(a[k].obj)
		name := m.Name
		if name == "" && m.GenerateName != "" {
			name = "generateName:" + m.GenerateName
		}
		if name == "" {
			continue
		}
		if prev, dup := names[name]; dup {
			t.Errorf("objects %d and %d are both named %q", prev, k, name)
		}
		names[name] = k
	}
	rules := map[string]bool{}
	for _, c := range a {
		rules[c.rule] = true
		if c.want == unknown {
			continue
		}
		errs := validate(c.obj)
		if got := len(errs) == 0; got != (c.want == accept) {
			t.Errorf("%s: Validate returned %d errors: %v", c, len(errs), errs)
		}
	}
}

func TestValidatingPolicyGenerator(t *testing.T) {
	pg := validatingPolicyGenerator()
	checkPolicyGenerator(t, pg.generate, func(p *vap) *metav1.ObjectMeta { return &p.ObjectMeta },
		func(p *vap) field.ErrorList {
			return validation.ValidateValidatingPolicy(validation.DefaultValidatingPolicy(p))
		}, 1300)
	checkMutatorsUsed(t, pg)
}

func TestValidatingBindingGenerator(t *testing.T) {
	pg := validatingBindingGenerator()
	checkPolicyGenerator(t, pg.generate, func(b *vapb) *metav1.ObjectMeta { return &b.ObjectMeta },
		func(b *vapb) field.ErrorList {
			return validation.ValidateValidatingPolicyBinding(validation.DefaultValidatingPolicyBinding(b))
		}, 700)
	checkMutatorsUsed(t, pg)
}

func TestMutatingPolicyGenerator(t *testing.T) {
	pg := mutatingPolicyGenerator()
	checkPolicyGenerator(t, pg.generate, func(p *map_) *metav1.ObjectMeta { return &p.ObjectMeta },
		func(p *map_) field.ErrorList {
			return validation.ValidateMutatingPolicy(validation.DefaultMutatingPolicy(p))
		}, 1000)
	checkMutatorsUsed(t, pg)
}

func TestMutatingBindingGenerator(t *testing.T) {
	pg := mutatingBindingGenerator()
	checkPolicyGenerator(t, pg.generate, func(b *mapb) *metav1.ObjectMeta { return &b.ObjectMeta },
		func(b *mapb) field.ErrorList {
			return validation.ValidateMutatingPolicyBinding(validation.DefaultMutatingPolicyBinding(b))
		}, 500)
	checkMutatorsUsed(t, pg)
}

// checkMutatorsUsed checks that no two mutators of a kind share a rule name, so that the
// rules covered are counted right.
func checkMutatorsUsed[T any](t *testing.T, pg policyGenerator[T]) {
	t.Helper()
	seen := map[string]bool{}
	for _, m := range pg.mutators {
		if seen[m.rule] {
			t.Errorf("two mutators named %q", m.rule)
		}
		seen[m.rule] = true
	}
}
