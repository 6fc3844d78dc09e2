package validation

import (
	"slices"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]int{
		"1.33": 33, "v1.33.2": 33, "1.31.0": 31, "v1.30.1-eks-4096": 30, "v1.33.1+k3s1": 33, "1.29+": 29, "v1.38.0-beta.0": 38,
	} {
		v, err := ParseVersion(in)
		if err != nil || v.Minor() != want {
			t.Errorf("ParseVersion(%q) = %v, %v; want 1.%d", in, v, err, want)
		}
	}
	for _, in := range []string{"", "2.1", "1", "1.x", "latest", "1.0", "v1..2", " 1.33"} {
		if v, err := ParseVersion(in); err == nil {
			t.Errorf("ParseVersion(%q) = %v, want an error", in, v)
		}
	}
	if Minor(33).String() != "1.33" || (Version{}).String() != "unknown" || (Version{}).Known() {
		t.Error("String/Known")
	}
}

// rejectedFrom returns, for each supported version, whether check finds an error at path.
func verdicts(check func(v Version) field.ErrorList, path string) map[int]bool {
	out := map[int]bool{}
	for _, v := range supportedVersions() {
		out[v.minor] = slices.ContainsFunc(check(v), func(e *field.Error) bool { return e.Field == path })
	}
	return out
}

// wantRejectedBefore checks that exactly the supported versions before 1.first reject.
func wantRejectedBefore(t *testing.T, got map[int]bool, first int) {
	t.Helper()
	for minor, rejected := range got {
		if want := minor < first; rejected != want {
			t.Errorf("1.%d: rejected = %v, want %v (all: %v)", minor, rejected, want, got)
		}
	}
}

// The CEL environment follows the server: a function is there for new expressions from the
// release after the one that introduced it (k8s.io/apiserver pkg/cel/environment, base.go).
func TestMatchConditionsByVersion(t *testing.T) {
	cases := []struct {
		expr  string
		first int // the first server version that accepts it
	}{
		{"[1, 2].includes(1)", 38},        // k8s Lists v1, introduced 1.37
		{"isSemver('1.2.3')", 34},         // Semver, introduced 1.33
		{"{'a': 1}.all(k, v, v > 0)", 33}, // two-variable comprehensions, introduced 1.32
		{"[3, 1].sort() == [1, 3]", 35},   // cel-go ext.Lists v3, introduced 1.34
		{"format.dns1123Label().validate('x').hasValue()", 32},
		{"ip('10.0.0.1').family() == 4", 31},
		{"request.namespace == 'a'", 31},
	}
	for _, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			o := valid()
			hook0(o).MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "c", Expression: c.expr}}
			got := verdicts(func(v Version) field.ErrorList { return ValidateAt(v, o, nil) }, "webhooks[0].matchConditions[0].expression")
			wantRejectedBefore(t, got, c.first)
		})
	}
}

// The reserved suffix: an error on create from 1.37, a warning on create in 1.36 and on update
// from 1.36, and nothing before (the gate ManifestBasedAdmissionControlConfig is new in 1.36).
func TestStaticSuffixByVersion(t *testing.T) {
	o := valid()
	o.Name = "x.static.k8s.io"
	for _, v := range supportedVersions() {
		errs := ValidateAt(v, o, nil)
		if want := v.minor >= 37; (len(errs) == 1 && errs[0].Field == "metadata.name") != want || len(errs) > 1 {
			t.Errorf("%s create: %s", v, dump(errs))
		}
		if errs := ValidateAt(v, o, o); len(errs) != 0 {
			t.Errorf("%s update: %s", v, dump(errs))
		}
		warned := func(update bool) bool {
			return slices.ContainsFunc(ServerWarnings(v, o, update), func(w warning.Warning) bool { return w.Summary == SummaryReservedName })
		}
		if got, want := warned(false), v.minor == 36; got != want {
			t.Errorf("%s create warning = %v", v, got)
		}
		if got, want := warned(true), v.minor >= 36; got != want {
			t.Errorf("%s update warning = %v", v, got)
		}
	}
	p := validPolicy()
	p.Name = "p.static.k8s.io"
	for _, v := range supportedVersions() {
		if errs := ValidateValidatingPolicyAt(v, p, nil); (len(errs) > 0) != (v.minor >= 37) {
			t.Errorf("%s policy create: %s", v, dump(errs))
		}
	}
}

// The virtual-resource warning is a 1.37 server's: before, webhooks are called for those
// resources.
func TestExcludedResourceWarningByVersion(t *testing.T) {
	o := valid()
	rule0(o).APIGroups, rule0(o).Resources = []string{"authentication.k8s.io"}, []string{"tokenreviews"}
	for _, v := range supportedVersions() {
		got := slices.ContainsFunc(ServerWarnings(v, o, false), func(w warning.Warning) bool { return w.Summary == SummaryExcludedResource })
		if got != (v.minor >= 37) {
			t.Errorf("%s: warned = %v", v, got)
		}
	}
}

// An update compiles the expressions the stored object has in the StoredExpressions
// environment, and does not check match conditions that every webhook keeps.
func TestWebhookUpdate(t *testing.T) {
	stored := valid()
	hook0(stored).MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "c", Expression: "[1, 2].includes(1)"}}
	at37 := Minor(37)

	if errs := ValidateAt(at37, stored, nil); len(errs) != 1 {
		t.Fatalf("create: %s", dump(errs))
	}
	// Unchanged: not checked at all, even a name that is not a qualified name.
	kept := stored.DeepCopy()
	kept.Labels = map[string]string{"a": "b"}
	if errs := ValidateAt(at37, kept, stored); len(errs) != 0 {
		t.Errorf("kept conditions are checked: %s", dump(errs))
	}
	// A condition added: every condition is checked, the stored expression in the
	// StoredExpressions environment (which has includes), the new one as new.
	added := stored.DeepCopy()
	hook0(added).MatchConditions = append(hook0(added).MatchConditions,
		admissionregistrationv1.MatchCondition{Name: "d", Expression: "[3].includes(3)"})
	checkCauses(t, ValidateAt(at37, added, stored), []cause{{field.ErrorTypeInvalid, "webhooks[0].matchConditions[1].expression", ""}})
	// The server looks the trimmed expression up among the stored ones as written.
	spaced := stored.DeepCopy()
	hook0(spaced).MatchConditions[0].Expression = " [1, 2].includes(1) "
	hook0(spaced).MatchConditions = append(hook0(spaced).MatchConditions, admissionregistrationv1.MatchCondition{Name: "e", Expression: "true"})
	if errs := ValidateAt(at37, spaced, stored); len(errs) != 0 {
		t.Errorf("a stored expression with spaces around: %s", dump(errs))
	}
	storedSpaced := spaced.DeepCopy()
	hook0(spaced).MatchConditions[1].Expression = "false"
	if errs := ValidateAt(at37, spaced, storedSpaced); len(errs) != 1 {
		t.Errorf("stored with spaces, looked up trimmed: %s", dump(errs))
	}

	// Ratcheting: what the stored object already breaks.
	old := valid()
	hook0(old).SideEffects = ptr(admissionregistrationv1.SideEffectClassSome)
	hook0(old).AdmissionReviewVersions = []string{"v2"}
	hook0(old).ObjectSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: "In", Values: []string{"-x"}}}}
	old.Webhooks = append(old.Webhooks, old.Webhooks[0])
	next := old.DeepCopy()
	hook0(next).SideEffects = ptr(admissionregistrationv1.SideEffectClassUnknown)
	if errs := ValidateAt(at37, next, old); len(errs) != 0 {
		t.Errorf("ratcheted update: %s", dump(errs))
	}
	if errs := ValidateAt(at37, next, nil); len(errs) < 5 {
		t.Errorf("the same as a create: %s", dump(errs))
	}
	// The name cannot change.
	renamed := stored.DeepCopy()
	renamed.Name = "other"
	checkCauses(t, ValidateAt(at37, renamed, stored), []cause{{field.ErrorTypeInvalid, "metadata.name", "field is immutable"}})
}

func TestPolicyUpdate(t *testing.T) {
	stored := validPolicy()
	validation0(stored).Expression = "[1].includes(1)"
	stored.Spec.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "m", Expression: "[2].includes(2)"}}
	at37 := Minor(37)
	if errs := ValidateValidatingPolicyAt(at37, stored, nil); len(errs) != 2 {
		t.Fatalf("create: %s", dump(errs))
	}
	next := stored.DeepCopy()
	next.Spec.Validations = append(next.Spec.Validations, admissionregistrationv1.Validation{Expression: "[3].includes(3)"})
	checkCauses(t, ValidateValidatingPolicyAt(at37, next, stored), []cause{{field.ErrorTypeInvalid, "spec.validations[1].expression", ""}})
	// A variable is looked up among the stored validations (validateVariable).
	next = stored.DeepCopy()
	next.Spec.Variables = []admissionregistrationv1.Variable{{Name: "v", Expression: "[1].includes(1)"}}
	if errs := ValidateValidatingPolicyAt(at37, next, stored); len(errs) != 0 {
		t.Errorf("variable of a stored validation expression: %s", dump(errs))
	}
	// A changed paramKind makes the match conditions checked again.
	next = stored.DeepCopy()
	next.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
	if errs := ValidateValidatingPolicyAt(at37, next, stored); len(errs) != 0 {
		t.Errorf("a stored match condition, checked again, compiles as stored: %s", dump(errs))
	}
	next.Spec.MatchConditions[0].Expression = "[4].includes(4)"
	checkCauses(t, ValidateValidatingPolicyAt(at37, next, stored), []cause{{field.ErrorTypeInvalid, "spec.matchConditions[0].expression", ""}})

	mstored := validMutatingPolicy()
	mstored.Spec.Mutations = []admissionregistrationv1.Mutation{applyConfiguration("[1].includes(1) ? Object{} : Object{}")}
	if errs := ValidateMutatingPolicyAt(at37, mstored, mstored); len(errs) != 0 {
		t.Errorf("stored apply configuration: %s", dump(errs))
	}
	// The server looks a JSON patch up among the stored apply configurations.
	mnext := mstored.DeepCopy()
	mnext.Spec.Mutations = append(mnext.Spec.Mutations, jsonPatch("[1].includes(1) ? Object{} : Object{}"))
	errs := ValidateMutatingPolicyAt(at37, mnext, mstored)
	if len(errs) != 1 || errs[0].Field != "spec.mutations[1].jsonPatch.expression" || strings.Contains(errs[0].Detail, "includes") {
		t.Errorf("a JSON patch compiled as stored: %s", dump(errs))
	}
}

func webhookCheck(o, old *mwc) Check {
	return func(v Version) Judgement {
		return Judgement{Errors: ValidateAt(v, o, old), Warnings: ServerWarnings(v, o, old != nil)}
	}
}

func TestAtPlan(t *testing.T) {
	o := valid()
	hook0(o).MatchConditions = []admissionregistrationv1.MatchCondition{
		{Name: "semver", Expression: "isSemver('1.2.3')"},
		{Name: "syntax", Expression: "1 +"},
	}
	create := webhookCheck(o, nil)
	offline := Offline(create)
	checkCauses(t, offline, []cause{{field.ErrorTypeInvalid, "webhooks[0].matchConditions[1].expression", ""}})

	asked := 0
	at := func(v Version) func() Version { return func() Version { asked++; return v } }
	// Known: the server's verdict, less what Offline said.
	got := AtPlan(create, create, at(Minor(33)))
	checkCauses(t, got.Errors, []cause{{field.ErrorTypeInvalid, "webhooks[0].matchConditions[0].expression", ""}})
	if got.Version != Minor(33) || len(got.Notes) != 0 || asked != 1 {
		t.Errorf("1.33: %+v, asked %d", got, asked)
	}
	if got := AtPlan(create, create, at(Minor(35))); len(got.Errors) != 0 || len(got.Notes) != 0 {
		t.Errorf("1.35: %+v", got)
	}
	// Unknown: a note that says which versions reject.
	got = AtPlan(create, create, at(Version{}))
	if len(got.Errors) != 0 || len(got.Notes) != 1 || got.Version != Assumed {
		t.Fatalf("unknown: %+v", got)
	}
	if n := got.Notes[0]; n.Error.Field != "webhooks[0].matchConditions[0].expression" ||
		!strings.Contains(n.Note, "Kubernetes 1.31 to 1.33 reject this; 1.34 to 1.38 accept it.") || !strings.Contains(n.Note, "assumed 1.37") {
		t.Errorf("note: %+v", n)
	}
	// Newer than the supported versions: the newest's verdict, as notes.
	got = AtPlan(create, create, at(Minor(40)))
	if len(got.Errors) != 0 || len(got.Notes) != 0 || got.Version != NewestSupported {
		t.Errorf("1.40: %+v", got)
	}
	// A request whose verdict is the same everywhere does not ask.
	asked = 0
	plain := webhookCheck(valid(), nil)
	if got := AtPlan(plain, plain, at(Minor(33))); asked != 0 || len(got.Errors) != 0 {
		t.Errorf("asked %d for a request that does not depend on the version: %+v", asked, got)
	}
	// The reserved suffix on an update: a warning from 1.36, asked for.
	named := valid()
	named.Name = "a.static.k8s.io"
	got = AtPlan(webhookCheck(named, nil), webhookCheck(named, named), at(Minor(36)))
	if len(got.Errors) != 0 || len(got.Warnings) != 1 || asked != 1 {
		t.Errorf("update at 1.36: %+v", got)
	}
	got = AtPlan(webhookCheck(named, nil), webhookCheck(named, nil), at(Minor(37)))
	if len(got.Errors) != 1 {
		t.Errorf("create at 1.37: %+v", got)
	}
}

func TestVersionRanges(t *testing.T) {
	if got := versionRanges([]Version{Minor(31), Minor(32), Minor(33), Minor(36), Minor(38)}); got != "1.31 to 1.33 and 1.36 and 1.38" {
		t.Error(got)
	}
}

// A new name is a new object: the provider replaces it, so its check is a create's.
func TestRenameIsCreate(t *testing.T) {
	stored := valid()
	renamed := valid()
	renamed.Name = "other"
	if errs := WebhookCheck(renamed, stored)(Assumed).Errors; len(errs) != 0 {
		t.Errorf("a renamed object is checked as an update: %s", dump(errs))
	}
	renamed.Name = "other.static.k8s.io"
	if errs := WebhookCheck(renamed, stored)(Assumed).Errors; len(errs) != 1 || errs[0].Field != "metadata.name" {
		t.Errorf("a renamed object is not checked as a create: %s", dump(errs))
	}
}
