package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The pages a person reads first stay short and true: CONTRIBUTING.md's
// architecture map names every package and only those, README.md and the
// provider's page (docs/index.md) keep to a word budget, and each line of
// CHANGELOG.md stays one short line.

// mapEntry is how CONTRIBUTING.md's architecture map names a package: the
// paragraph of package internal/NAME starts with **`internal/NAME`** (bold
// inline code). Only that form counts: a package mentioned in passing, as
// `internal/NAME` in plain code, is not an entry of the map.
var mapEntry = regexp.MustCompile("\\*\\*`internal/([^`/]+)`\\*\\*")

// architectureSection is the heading of the map in CONTRIBUTING.md; the map
// runs from it to the next heading of the same level.
const architectureSection = "## Architecture"

func TestContributingArchitecture(t *testing.T) {
	named := mapNames(t, "CONTRIBUTING.md")
	if len(named) == 0 {
		t.Fatalf("CONTRIBUTING.md: no **`internal/NAME`** entries under %q", architectureSection)
	}
	dirs := goPackageDirs(t, "internal")
	if len(dirs) < 10 {
		t.Fatalf("found %d package directories under internal/; the walk is wrong", len(dirs))
	}
	for _, d := range dirs {
		if !slices.Contains(named, d) {
			t.Errorf("internal/%s is a package but CONTRIBUTING.md's architecture map has no paragraph **`internal/%s`**", d, d)
		}
	}
	seen := map[string]bool{}
	for _, n := range named {
		if seen[n] {
			t.Errorf("CONTRIBUTING.md's architecture map names **`internal/%s`** twice", n)
		}
		seen[n] = true
		if !slices.Contains(dirs, n) {
			t.Errorf("CONTRIBUTING.md's architecture map names **`internal/%s`**, which is no package directory under internal/", n)
		}
	}
}

// mapNames are the package names of the architecture map of f, in order.
func mapNames(t *testing.T, f string) []string {
	t.Helper()
	var names []string
	in := false
	for _, line := range prose(t, f) {
		if strings.HasPrefix(line, "## ") {
			in = strings.TrimSpace(line) == architectureSection
			continue
		}
		if !in {
			continue
		}
		for _, m := range mapEntry.FindAllStringSubmatch(line, -1) {
			names = append(names, m[1])
		}
	}
	return names
}

// goPackageDirs are the directories directly under root that hold .go files
// (test files included: a package of acceptance tests only is a package).
// Nested packages belong to the paragraph of their top-level directory.
func goPackageDirs(t *testing.T, root string) []string {
	t.Helper()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		gofiles, err := filepath.Glob(filepath.Join(root, e.Name(), "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		if len(gofiles) > 0 {
			dirs = append(dirs, e.Name())
		}
	}
	return dirs
}

// Word budgets of the pages a user reads first, counted as words (runs of
// non-space characters, as wc -w counts them) outside fenced code blocks:
// prose, headings, lists and tables count; examples do not.
const (
	readmeWords    = 1000
	indexPageWords = 1500
)

func TestWordsREADME(t *testing.T) {
	n := words(prose(t, "README.md"))
	t.Logf("README.md: %d words of prose", n)
	if n > readmeWords {
		t.Errorf("README.md has %d words outside code blocks; at most %d (build and test details belong in CONTRIBUTING.md)", n, readmeWords)
	}
}

// TestWordsProviderPage counts docs/index.md as make docs generates it from
// templates/index.md.tmpl. The front matter is left out, and so is the
// "## Schema" section that tfplugindocs appends from the provider schema's
// own descriptions: its length follows the settings, not the page's prose.
func TestWordsProviderPage(t *testing.T) {
	lines := prose(t, "docs/index.md")
	if len(lines) > 0 && lines[0] == "---" {
		end := slices.Index(lines[1:], "---")
		if end < 0 {
			t.Fatal("docs/index.md: front matter not closed")
		}
		lines = lines[end+2:]
	}
	schema := slices.Index(lines, "## Schema")
	if schema < 0 {
		t.Fatal(`docs/index.md has no "## Schema" section; regenerate it with make docs`)
	}
	n := words(lines[:schema])
	t.Logf("docs/index.md: %d words of prose before its schema", n)
	if n > indexPageWords {
		t.Errorf("docs/index.md has %d words outside code blocks before its schema; at most %d (templates/index.md.tmpl)", n, indexPageWords)
	}
}

func words(lines []string) int {
	n := 0
	for _, l := range lines {
		n += len(strings.Fields(l))
	}
	return n
}

// changelogLine is the most characters of one CHANGELOG.md entry: one
// user-visible change, said in one line, as the Registry's changelogs do.
const changelogLine = 200

func TestChangelogLines(t *testing.T) {
	raw, err := os.ReadFile("CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	if !slices.Contains(lines, "## Unreleased") {
		t.Error(`CHANGELOG.md has no "## Unreleased" section for the next changes`)
	}
	entries := 0
	for i, l := range lines {
		if !strings.HasPrefix(l, "* ") {
			if strings.HasPrefix(l, "  ") && i > 0 && strings.HasPrefix(lines[i-1], "* ") {
				t.Errorf("CHANGELOG.md:%d: an entry continues on the next line; one line each", i+1)
			}
			continue
		}
		entries++
		if n := len([]rune(l)); n > changelogLine {
			t.Errorf("CHANGELOG.md:%d: %d characters; at most %d: %.60s...", i+1, n, changelogLine, l)
		}
	}
	if entries == 0 {
		t.Error("CHANGELOG.md: no entries (lines starting with \"* \")")
	}
}
