package protocol_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/protocol"
)

// requiredVersion is the version of module that the go.mod at path requires,
// and whether a replace directive replaces it (a small parse: the
// module's require lines, in a block or not).
func requiredVersion(t *testing.T, path, module string) (version string, replaced bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	block := ""
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "//")
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0:
			continue
		case len(fields) == 2 && fields[1] == "(":
			block = fields[0]
			continue
		case fields[0] == ")":
			block = ""
			continue
		}
		directive := block
		if block == "" {
			directive, fields = fields[0], fields[1:]
		}
		if len(fields) == 0 || fields[0] != module {
			continue
		}
		switch directive {
		case "require":
			if len(fields) >= 2 {
				version = fields[1]
			}
		case "replace":
			replaced = true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return version, replaced
}

// go.mod requires the version of terraform-plugin-framework that this
// package's answers were checked against; on another, the failure says what
// to check again.
func TestFrameworkVersionIsTheOneChecked(t *testing.T) {
	gomod := filepath.Join("..", "..", "go.mod")
	version, replaced := requiredVersion(t, gomod, protocol.FrameworkModule)
	if version == "" {
		t.Fatalf("%s does not require %s", gomod, protocol.FrameworkModule)
	}
	if replaced {
		t.Errorf("%s replaces %s: the provider must build with the released module (go install, no replace)", gomod, protocol.FrameworkModule)
	}
	if version == protocol.FrameworkVersion {
		return
	}
	var b strings.Builder
	for _, behaviour := range protocol.FrameworkBehaviours {
		b.WriteString("\n  - " + behaviour)
	}
	t.Errorf(`go.mod requires %s %s, but internal/protocol answers as %s does (protocol.FrameworkVersion).
Read again, in the source of %s, what internal/protocol does as the framework does:%s
Then run TestFastPlansAnswerAsTheFramework, TestUnchangedPlansAnswerAsTheFramework, TestUpgradeAnswersAsTheFramework
(go test ./internal/protocol) and TestAccProtocolBothWays (TF_ACC=1 go test ./internal/protocol -run TestAccProtocolBothWays),
fix what differs, and set protocol.FrameworkVersion to %s (see DESIGN.md). Until then, TF_ADMISSION_PROTOCOL=framework
serves every call with the framework's own server.`,
		protocol.FrameworkModule, version, protocol.FrameworkVersion, version, b.String(), version)
}

// The parse reads what go.mod can say.
func TestRequiredVersionParse(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "go.mod")
	const m = "example.com/m"
	for _, c := range []struct {
		text     string
		version  string
		replaced bool
	}{
		{"module x\n\nrequire (\n\texample.com/a v1.0.0\n\texample.com/m v1.2.3 // indirect\n)\n", "v1.2.3", false},
		{"module x\nrequire example.com/m v0.9.0\n", "v0.9.0", false},
		{"module x\nrequire example.com/m v0.9.0\nreplace example.com/m => ../m\n", "v0.9.0", true},
		{"module x\nrequire (\n\texample.com/mm v1.0.0\n)\nreplace (\n\texample.com/m v0.9.0 => example.com/n v1.0.0\n)\n", "", true},
	} {
		if err := os.WriteFile(path, []byte(c.text), 0o600); err != nil {
			t.Fatal(err)
		}
		v, r := requiredVersion(t, path, m)
		if v != c.version || r != c.replaced {
			t.Errorf("%q: %q, %v; want %q, %v", c.text, v, r, c.version, c.replaced)
		}
	}
}
