package policy_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
)

// realConfiguration is the configuration a user writes for the admission objects of the public
// projects in testdata: each object a resource, bindings naming their policies by literal name
// (as `terraform query -generate-config-out` writes them), all planned together. owner maps a
// resource address to its file.
func realConfiguration(t *testing.T) (cfg string, owner map[string]string, files []string) {
	t.Helper()
	var globs []string
	for _, g := range []string{"../advice/testdata/real/*.yaml", "../advice/testdata/real/policies/*.yaml", "testdata/real/*.yaml"} {
		m, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		globs = append(globs, m...)
	}
	owner = map[string]string{}
	var b strings.Builder
	label := regexp.MustCompile(`[^a-z0-9_]`)
	for _, f := range globs {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		base := strings.TrimSuffix(filepath.Base(f), ".yaml")
		files = append(files, base)
		for i, doc := range strings.Split(string(data), "\n---\n") {
			l := label.ReplaceAllString(base, "_") + fmt.Sprintf("_%d", i)
			typ, _, hcl, err := acctest.ResourceHCL(l, []byte(doc))
			if err != nil {
				t.Fatalf("%s: document %d: %v", f, i, err)
			}
			owner[typ+"."+l] = base
			b.WriteString(hcl + "\n")
		}
	}
	return b.String(), owner, files
}

// knownFalse are warnings that are not true of these configurations, each with why: planned
// together, every binding's policy is planned in the same run; the server applies the
// mutations as written; a cluster that cannot be reached is said once.
var knownFalse = map[string]string{
	"Binding to a policy that does not exist": "each binding's policy is planned in the same run",
	"Policy impact incomplete":                "not for a refused connection, which the plan says once",
}

// warningsPerFile counts the warnings of a plan per file of the configuration, and those on no
// resource under "(plan)".
func warningsPerFile(t *testing.T, diags []acctest.Diagnostic, owner map[string]string) (map[string]int, map[string]int) {
	t.Helper()
	perFile, perSummary := map[string]int{}, map[string]int{}
	for _, d := range diags {
		if d.Severity != "warning" {
			continue
		}
		f, ok := owner[d.Address]
		if !ok {
			f = "(plan)"
		}
		perFile[f]++
		perSummary[d.Summary]++
		if why, bad := knownFalse[d.Summary]; bad {
			t.Errorf("%s: %q is not true here (%s): %s", d.Address, d.Summary, why, d.Detail)
		}
		if d.Summary == "Expression does not type-check" && strings.Contains(d.Detail, "provided type is 'Object.") {
			t.Errorf("%s: the server applies an Object given to a map-typed field: %s", d.Address, d.Detail)
		}
	}
	return perFile, perSummary
}

func logCounts(t *testing.T, what string, files []string, perFile, perSummary map[string]int) {
	t.Helper()
	var lines []string
	total := 0
	for _, f := range append(files, "(plan)") {
		lines = append(lines, fmt.Sprintf("  %-45s %d", f, perFile[f]))
		total += perFile[f]
	}
	var sums []string
	for s, n := range perSummary {
		sums = append(sums, fmt.Sprintf("  %3d %s", n, s))
	}
	sort.Strings(sums)
	t.Logf("%s: %d warnings\nper configuration:\n%s\nper summary:\n%s", what, total, strings.Join(lines, "\n"), strings.Join(sums, "\n"))
}

// Every warning of the provider on real configurations of public projects (webhook
// configurations, validating and mutating policies with their bindings), planned together with
// the cluster and without it: none of the warnings known to be false, and their count per
// configuration in the log.
func TestAccRealConfigurationsWarnings(t *testing.T) {
	cfg, owner, files := realConfiguration(t)
	t.Run("with the cluster", func(t *testing.T) {
		diags, ok := acctest.Plan(t, acctest.ProviderBlock(t)+cfg)
		if !ok {
			t.Fatalf("plan failed:%s", describe(diags))
		}
		perFile, perSummary := warningsPerFile(t, diags, owner)
		logCounts(t, "with the cluster", files, perFile, perSummary)
	})
	t.Run("cluster unreachable", func(t *testing.T) {
		diags, ok := acctest.Plan(t, unreachableProvider(t)+cfg)
		if !ok {
			t.Fatalf("plan failed:%s", describe(diags))
		}
		perFile, perSummary := warningsPerFile(t, diags, owner)
		logCounts(t, "cluster unreachable", files, perFile, perSummary)
		if n := perSummary["Plan checked without the cluster"]; n != 1 {
			t.Errorf("the unreachable cluster is said %d times, want once", n)
		}
	})
}
