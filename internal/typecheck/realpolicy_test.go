package typecheck_test

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"sigs.k8s.io/yaml"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/typecheck"
)

func readPolicy(t *testing.T, file string) *admissionregistrationv1.ValidatingAdmissionPolicy {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var p admissionregistrationv1.ValidatingAdmissionPolicy
	if err := yaml.UnmarshalStrict(raw, &p); err != nil {
		t.Fatal(err)
	}
	return &p
}

// A policy on ten kinds of the shape real ones have, whose validations each guard the fields of
// their kinds with object.kind: the server's message of each expression is
// some 16 to 29 kB; the brief form is a few lines.
func TestBriefOfARealMultiKindPolicy(t *testing.T) {
	warnings := typecheck.New(nil).ValidatingPolicy(readPolicy(t, "testdata/resource-limit-types.yaml"))
	if len(warnings) != 4 {
		t.Fatalf("want a warning on each of the 4 validations, got %d", len(warnings))
	}
	issue := regexp.MustCompile(`ERROR: <input>:(\d+:\d+): (.*)`)
	for _, w := range warnings {
		brief := w.Brief()
		t.Logf("%s: the server's message has %d characters, the brief one %d:\n%s", w.Field, len(w.Message), len(brief), brief)
		if len(w.Message) < 10000 {
			t.Errorf("%s: the server's message is only %d characters; the test wants a long one", w.Field, len(w.Message))
		}
		if len(brief) > 1000 || strings.Count(brief, "\n") > 12 {
			t.Errorf("%s: brief message of %d characters, %d lines", w.Field, len(brief), strings.Count(brief, "\n")+1)
		}
		// The distinct places and messages of the server's message.
		distinct := map[string]bool{}
		for _, g := range issue.FindAllStringSubmatch(w.Message, -1) {
			distinct[g[1]+": "+g[2]] = true
		}
		n := len(distinct)
		if !strings.HasPrefix(brief, fmt.Sprintf("%d findings:\n", n)) {
			t.Errorf("%s: want %d findings counted, got %q", w.Field, n, brief[:strings.Index(brief, "\n")])
		}
		if shown := strings.Count(brief, "\n  1:"); shown != min(n, typecheck.BriefFindings) {
			t.Errorf("%s: %d findings shown, want %d", w.Field, shown, min(n, typecheck.BriefFindings))
		}
		if n > typecheck.BriefFindings && !strings.HasSuffix(brief, fmt.Sprintf("… and %d more", n-typecheck.BriefFindings)) {
			t.Errorf("%s: the brief message does not count the %d findings not shown", w.Field, n-typecheck.BriefFindings)
		}
		for _, f := range typecheck.Findings(w.Message) {
			if !distinct[f.Where+": "+f.What] {
				t.Errorf("%s: finding %q is not in the server's message", w.Field, f.Where+": "+f.What)
			}
		}
	}
	// The CronJob validation reads spec.jobTemplate, which seven other kinds lack.
	f := typecheck.Findings(warnings[2].Message)[0]
	if f.What != "undefined field 'jobTemplate'" || len(f.Kinds) < 7 || !strings.Contains(warnings[2].Brief(), "and ") {
		t.Errorf("first finding of the CronJob validation: %+v", f)
	}
}

func TestFindings(t *testing.T) {
	msg := "/v1, Kind=Pod: ERROR: <input>:1:12: undefined field 'replicass'\n" +
		" | object.spec.replicass > 3 && object.spec.x\n" +
		" | ...........^\n" +
		"ERROR: <input>:1:38: undefined field 'x'\n" +
		" | object.spec.replicass > 3 && object.spec.x\n" +
		" | .....................................^\n" +
		"\n" +
		"apps/v1, Kind=Deployment: ERROR: <input>:1:38: undefined field 'x'\n" +
		" | object.spec.replicass > 3 && object.spec.x\n" +
		" | .....................................^\n" +
		"\n" +
		"batch/v1, Kind=Job: type checking error: no schema\n"
	want := []typecheck.Finding{
		{Where: "1:12", What: "undefined field 'replicass'", Kinds: []string{"v1 Pod"},
			Source: "object.spec.replicass > 3 && object.spec.x", Caret: "           ^"},
		{Where: "1:38", What: "undefined field 'x'", Kinds: []string{"v1 Pod", "apps/v1 Deployment"},
			Source: "…spec.replicass > 3 && object.spec.x", Caret: strings.Repeat(" ", 31) + "^"},
		{What: "no schema", Kinds: []string{"batch/v1 Job"}},
	}
	if diff := cmp.Diff(want, typecheck.Findings(msg)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	brief := typecheck.Brief(msg)
	for _, s := range []string{"3 findings:", "1:12: undefined field 'replicass' (v1 Pod)", "1:38: undefined field 'x' (v1 Pod, apps/v1 Deployment)", "no schema (batch/v1 Job)"} {
		if !strings.Contains(brief, s) {
			t.Errorf("brief message without %q:\n%s", s, brief)
		}
	}
	if strings.Contains(brief, "more") {
		t.Errorf("three findings, all shown, but: %s", brief)
	}
	// A long line is cut around the place.
	long := strings.Repeat("a", 500) + " + object.spec.x"
	f := typecheck.Findings("/v1, Kind=Pod: ERROR: <input>:1:516: undefined field 'x'\n | " + long + "\n | " + strings.Repeat(".", 515) + "^\n")
	if len(f) != 1 || len([]rune(f[0].Source)) > 72 || !strings.HasSuffix(f[0].Source, "object.spec.x") ||
		len([]rune(f[0].Caret)) != len([]rune(f[0].Source)) || !strings.HasPrefix(f[0].Source, "…a") {
		t.Errorf("a long line: %+v", f)
	}
}
