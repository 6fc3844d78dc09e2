package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The documentation is read on the Registry and on GitHub, where a relative
// link that names a missing page or heading is a dead end; tfplugindocs
// checks neither. TestDocsLinks checks every relative link of the generated
// docs/ and of the Markdown files at the top of the repository.

var (
	// mdLink is an inline Markdown link or image: [text](target "title").
	mdLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	// htmlAnchor is an anchor that tfplugindocs writes before a nested schema.
	htmlAnchor = regexp.MustCompile(`<a id="([^"]+)"></a>`)
	// fence opens or closes a fenced code block, whose text is no Markdown.
	fence = regexp.MustCompile("^\\s*(```|~~~)")
)

func TestDocsLinks(t *testing.T) {
	var files []string
	err := filepath.WalkDir("docs", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	top, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, top...)
	if len(files) < 20 {
		t.Fatalf("found %d Markdown files; docs/ is not where it should be", len(files))
	}
	anchors := map[string]map[string]bool{}
	checked := 0
	for _, f := range files {
		for _, target := range links(t, f) {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			checked++
			file, anchor, _ := strings.Cut(target, "#")
			dest := f
			if file != "" {
				dest = filepath.Join(filepath.Dir(f), filepath.FromSlash(file))
			}
			if _, err := os.Stat(dest); err != nil {
				t.Errorf("%s: link to %s: %s does not exist", f, target, dest)
				continue
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(dest, ".md") {
				t.Errorf("%s: link to %s: an anchor in a file that is not Markdown", f, target)
				continue
			}
			if anchors[dest] == nil {
				anchors[dest] = anchorsOf(t, dest)
			}
			if !anchors[dest][anchor] {
				t.Errorf("%s: link to %s: %s has no heading or anchor %q", f, target, dest, anchor)
			}
		}
	}
	if checked < 100 {
		t.Errorf("checked %d relative links; the pattern no longer finds them", checked)
	}
	t.Logf("checked %d relative links in %d files", checked, len(files))
}

// links are the link targets of the Markdown file f, outside code.
func links(t *testing.T, f string) []string {
	t.Helper()
	var out []string
	for _, line := range prose(t, f) {
		for _, m := range mdLink.FindAllStringSubmatch(stripCode(line), -1) {
			out = append(out, strings.Trim(m[1], "<>"))
		}
	}
	return out
}

// anchorsOf is the set of anchors of the Markdown file f: its headings, as
// GitHub and the Registry name them, and its explicit anchors.
func anchorsOf(t *testing.T, f string) map[string]bool {
	t.Helper()
	set := map[string]bool{}
	seen := map[string]int{}
	for _, line := range prose(t, f) {
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			set[m[1]] = true
		}
		if !strings.HasPrefix(line, "#") {
			continue
		}
		heading := strings.TrimSpace(strings.TrimLeft(line, "#"))
		slug := slugOf(heading)
		if n := seen[slug]; n > 0 {
			set[slug+"-"+strconv.Itoa(n)] = true
		} else {
			set[slug] = true
		}
		seen[slug]++
	}
	return set
}

// slugOf is GitHub's anchor of a heading: lower case, without punctuation
// but hyphens and underscores, spaces as hyphens.
func slugOf(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// prose is the lines of the Markdown file f outside fenced code blocks.
func prose(t *testing.T, f string) []string {
	t.Helper()
	raw, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	inCode := false
	for _, line := range strings.Split(string(raw), "\n") {
		if fence.MatchString(line) {
			inCode = !inCode
			continue
		}
		if !inCode {
			out = append(out, line)
		}
	}
	return out
}

// codeSpan is inline code, whose text is no link.
var codeSpan = regexp.MustCompile("`[^`]*`")

// stripCode drops the inline code of a line but keeps a code span that is
// a link's text ([`name`](target)).
func stripCode(line string) string {
	return codeSpan.ReplaceAllString(line, "x")
}

// supportedVersions is the one statement of the supported versions; every
// page that speaks of them says it in these words (and links to the table of
// docs/index.md for what needs a later release), so that they agree.
const supportedVersions = "Terraform 1.8 and later, OpenTofu 1.8 and later, Kubernetes 1.31 to 1.38"

func TestDocsSupportedVersions(t *testing.T) {
	pages, err := filepath.Glob("docs/functions/*.md")
	if err != nil || len(pages) != 4 {
		t.Fatalf("docs/functions: %v, %d pages", err, len(pages))
	}
	pages = append(pages, "docs/index.md", "docs/guides/testing-admission-policies.md",
		"docs/guides/migrating-from-hashicorp-kubernetes.md", "README.md")
	for _, p := range pages {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(strings.Fields(string(raw)), " "), supportedVersions) {
			t.Errorf("%s does not say %q", p, supportedVersions)
		}
	}
}
