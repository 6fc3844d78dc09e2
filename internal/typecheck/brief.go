package typecheck

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// The server's words for one expression (TypeCheckingResults.String) repeat, for each kind the
// policy matches, every issue of cel-go with the whole source line under it: kilobytes for a
// long expression on ten kinds. Brief says the same in a few lines.

// Finding is one issue of the type checker: where it is in the expression, what it says, and the
// kinds it was found for.
type Finding struct {
	// Where is "line:column" in the expression ("1:12"), "" for an error that is not about a
	// place (a type checking error).
	Where string
	// What is cel-go's message, such as "undefined field 'replicass'".
	What string
	// Kinds are the kinds it was found for ("apps/v1 Deployment"), in the server's order.
	Kinds []string
	// Source is the line of the expression it is on, and Caret the column under it marked by '^'
	// (both shortened around the place).
	Source, Caret string
}

// BriefFindings is how many findings Brief shows.
const BriefFindings = 3

var (
	// kindPart starts the part of one kind: "apps/v1, Kind=Deployment: ".
	kindPart = regexp.MustCompile(`^([^\s,]*/[^\s,]+), Kind=(\w+): (.*)$`)
	// issue is one cel-go issue: "ERROR: <input>:1:12: undefined field 'replicass'".
	issue = regexp.MustCompile(`^ERROR: <input>:(\d+:\d+): (.*)$`)
)

// Findings parses the server's message of one expression into its findings, one per place and
// message, each naming the kinds it was found for.
func Findings(message string) []Finding {
	var out []Finding
	index := map[string]int{}
	kind := ""
	var last *Finding
	add := func(where, what string) {
		key := where + "\x00" + what
		if i, ok := index[key]; ok {
			last = &out[i]
			if len(last.Kinds) == 0 || last.Kinds[len(last.Kinds)-1] != kind {
				last.Kinds = append(last.Kinds, kind)
			}
			last = nil // its source lines are already known
			return
		}
		index[key] = len(out)
		out = append(out, Finding{Where: where, What: what, Kinds: []string{kind}})
		last = &out[len(out)-1]
	}
	var pendingSource string
	for _, line := range strings.Split(message, "\n") {
		if g := kindPart.FindStringSubmatch(line); g != nil {
			kind = strings.TrimPrefix(g[1], "/") + " " + g[2]
			line = g[3]
			last = nil
		}
		switch g := issue.FindStringSubmatch(line); {
		case g != nil:
			add(g[1], g[2])
			pendingSource = ""
		case strings.HasPrefix(line, "type checking error: "):
			add("", strings.TrimPrefix(line, "type checking error: "))
		case strings.HasPrefix(line, " | ") && last != nil:
			text := strings.TrimPrefix(line, " | ")
			if last.Source == "" && pendingSource == "" && !strings.HasSuffix(text, "^") {
				pendingSource = text
			} else if pendingSource != "" && strings.HasSuffix(text, "^") {
				last.Source, last.Caret = shorten(pendingSource, utf8.RuneCountInString(text)-1)
				pendingSource = ""
			}
		}
	}
	return out
}

// shorten is a source line cut to some 70 characters around column col, and the caret line
// under it.
func shorten(source string, col int) (string, string) {
	const before, after = 30, 40
	runes := []rune(source)
	if col < 0 || col > len(runes) {
		return "", ""
	}
	start, end := max(0, col-before), min(len(runes), col+after)
	text := string(runes[start:end])
	caretAt := col - start
	if start > 0 {
		text, caretAt = "…"+text, caretAt+1
	}
	if end < len(runes) {
		text += "…"
	}
	return text, strings.Repeat(" ", caretAt) + "^"
}

// Brief is w.Message in a few lines (see Brief).
func (w Warning) Brief() string { return Brief(w.Message) }

// Brief is the message of one expression in a few lines: how many findings, the first
// BriefFindings with the kinds they were found for and where they are, and how many more.
func Brief(message string) string {
	findings := Findings(message)
	if len(findings) == 0 {
		// Not in the form the server's type checker words findings: as it is, but never long.
		return cut(strings.TrimSpace(message), 600)
	}
	var b strings.Builder
	if len(findings) == 1 {
		b.WriteString("1 finding:")
	} else {
		fmt.Fprintf(&b, "%d findings:", len(findings))
	}
	for i, f := range findings {
		if i == BriefFindings {
			fmt.Fprintf(&b, "\n  … and %d more", len(findings)-BriefFindings)
			break
		}
		b.WriteString("\n  ")
		if f.Where != "" {
			b.WriteString(f.Where + ": ")
		}
		b.WriteString(cut(f.What, 200) + " (" + kinds(f.Kinds) + ")")
		if f.Source != "" {
			b.WriteString("\n    | " + f.Source + "\n    | " + f.Caret)
		}
	}
	return b.String()
}

// kinds names the kinds of a finding: all of up to five, else the first three and how many more.
func kinds(k []string) string {
	if len(k) <= 5 {
		return strings.Join(k, ", ")
	}
	return fmt.Sprintf("%s and %d other kinds", strings.Join(k[:3], ", "), len(k)-3)
}

// cut shortens s to at most n runes.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
