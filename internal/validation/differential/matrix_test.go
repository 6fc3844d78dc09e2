package differential

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

// The version matrix: the differential corpus judged by internal/validation at each supported
// version from 1.31 to 1.37, and by that release's own validation code (k8s.io/kubernetes at
// the release, linked in-process in the oracle of internal/validation/matrix, run once per
// release), as creates and as updates. The two must agree, request by request, on the verdict,
// on the set of (field path, reason) pairs, and, for an accepted request, on the server's
// warnings.
//
// The oracle is a program of its own because one Go module holds one version of
// k8s.io/apiserver: the release's own validation needs its own, while internal/validation is
// built on v0.37's CEL environments, which it asks for the older compatibility versions. Its
// first build per release compiles k8s.io/kubernetes (minutes); later runs come from the Go
// build cache.
//
//	go test ./internal/validation/differential/ -run TestMatrix -matrix -v
//
// make check runs it and prints its "matrix:" lines.

var (
	runMatrix      = flag.Bool("matrix", false, "run the version matrix (builds the oracle of each release)")
	matrixVersions = flag.String("matrix.versions", "1.31,1.32,1.33,1.34,1.35,1.36,1.37", "the minor releases of the matrix")
	matrixEvery    = flag.Int("matrix.every", 2, "make a create request of every n-th case of the corpus")
	matrixUpdates  = flag.Int("matrix.updates", 8, "make update requests from every n-th case (0: none)")
)

// matrixCase is one request of the matrix: a create of obj, or an update of old to obj.
type matrixCase struct {
	kind     string // the API kind
	label    string // the generator's description, for reports
	obj, old any    // API objects as generated (not defaulted); old is nil for a create
	// ours is what internal/validation says of the request at a version: errors and the
	// server's warnings.
	ours func(v validation.Version) (field.ErrorList, []warning.Warning)
}

func (c matrixCase) update() bool { return c.old != nil }

// served reports whether a release serves the kind in admissionregistration.k8s.io/v1:
// the mutating policy kinds from 1.36 (gate MutatingAdmissionPolicy GA).
func served(kind string, minor int) bool {
	return !strings.HasPrefix(kind, "MutatingAdmissionPolicy") || minor >= 36
}

// kindCases are the requests of one kind: each case as a create, and, for every n-th case with
// a name, two updates: of the object to itself (everything kept), and of the next case's object
// renamed to it (ratcheting on whatever the generator made).
func kindCases[T any](kind string, objs []*T, labels []string, meta func(*T) *metav1.ObjectMeta,
	defaults func(*T) *T, check func(obj, old *T) validation.Check) []matrixCase {
	judge := func(obj, old *T) func(v validation.Version) (field.ErrorList, []warning.Warning) {
		return func(v validation.Version) (field.ErrorList, []warning.Warning) {
			var d *T
			if old != nil {
				d = defaults(old)
			}
			j := check(defaults(obj), d)(v)
			// The size limits are not the validation code's: the oracle never sees them (the
			// corpus has no object near them).
			return slices.DeleteFunc(j.Errors, func(e *field.Error) bool {
				return e.Type == field.ErrorTypeTooLong && strings.HasPrefix(e.Detail, "the object is")
			}), j.Warnings
		}
	}
	var out []matrixCase
	for i := 0; i < len(objs); i += max(*matrixEvery, 1) {
		out = append(out, matrixCase{kind: kind, label: labels[i], obj: objs[i], ours: judge(objs[i], nil)})
	}
	if *matrixUpdates <= 0 {
		return out
	}
	for i := 0; i < len(objs); i += *matrixUpdates {
		o := objs[i]
		if meta(o).Name == "" {
			continue
		}
		out = append(out, matrixCase{kind: kind, label: "update to itself: " + labels[i], obj: o, old: o, ours: judge(o, o)})
		next := objs[(i+1)%len(objs)]
		old := viaJSON[T](next)
		meta(old).Name, meta(old).GenerateName = meta(o).Name, ""
		out = append(out, matrixCase{kind: kind, label: "update from the next case: " + labels[i], obj: o, old: old, ours: judge(o, old)})
	}
	return out
}

func casesOf[T any](cs []policyCase[T]) (objs []*T, labels []string) {
	for _, c := range cs {
		objs = append(objs, c.obj)
		labels = append(labels, c.String())
	}
	return objs, labels
}

// matrixCorpus is the differential corpus as requests of the matrix.
func matrixCorpus() []matrixCase {
	var all []matrixCase
	mutating := generate()
	validating, _ := validatingCases(mutating)
	for _, k := range []struct {
		kind  string
		cases []testCase
	}{{"MutatingWebhookConfiguration", mutating}, {"ValidatingWebhookConfiguration", validating}} {
		var objs []*mwc
		var labels []string
		for _, c := range k.cases {
			objs, labels = append(objs, c.obj), append(labels, c.String())
		}
		all = append(all, kindCases(k.kind, objs, labels, func(o *mwc) *metav1.ObjectMeta { return &o.ObjectMeta },
			validation.Default, validation.WebhookCheck)...)
	}
	objs, labels := casesOf(validatingPolicyGenerator().generate())
	all = append(all, kindCases("ValidatingAdmissionPolicy", objs, labels, func(p *vap) *metav1.ObjectMeta { return &p.ObjectMeta },
		validation.DefaultValidatingPolicy, validation.ValidatingPolicyCheck)...)
	bobjs, blabels := casesOf(validatingBindingGenerator().generate())
	all = append(all, kindCases("ValidatingAdmissionPolicyBinding", bobjs, blabels, func(b *vapb) *metav1.ObjectMeta { return &b.ObjectMeta },
		validation.DefaultValidatingPolicyBinding, validation.ValidatingPolicyBindingCheck)...)
	mobjs, mlabels := casesOf(mutatingPolicyGenerator().generate())
	all = append(all, kindCases("MutatingAdmissionPolicy", mobjs, mlabels, func(p *map_) *metav1.ObjectMeta { return &p.ObjectMeta },
		validation.DefaultMutatingPolicy, validation.MutatingPolicyCheck)...)
	mbobjs, mblabels := casesOf(mutatingBindingGenerator().generate())
	all = append(all, kindCases("MutatingAdmissionPolicyBinding", mbobjs, mblabels, func(b *mapb) *metav1.ObjectMeta { return &b.ObjectMeta },
		validation.DefaultMutatingPolicyBinding, validation.MutatingPolicyBindingCheck)...)
	return all
}

// oracleAnswer is one line of the oracle's output (internal/validation/matrix, answer).
type oracleAnswer struct {
	Causes   []cause  `json:"causes"`
	Warnings []string `json:"warnings"`
	Error    string   `json:"error"`
}

// release is one release of the matrix: its oracle's module file and its k8s.io/kubernetes version.
type release struct {
	minor   int
	modfile string // relative to internal/validation/matrix
	version string // v1.33.13
}

var requireKubernetes = regexp.MustCompile(`(?m)^\s*(?:require\s+)?k8s\.io/kubernetes (v\S+)`)

func releaseOf(minor int) (release, error) {
	r := release{minor: minor, modfile: fmt.Sprintf("v1.%d.mod", minor)}
	data, err := os.ReadFile(filepath.Join("..", "matrix", r.modfile))
	if os.IsNotExist(err) {
		r.modfile = "go.mod"
		data, err = os.ReadFile(filepath.Join("..", "matrix", r.modfile))
	}
	if err != nil {
		return r, err
	}
	m := requireKubernetes.FindSubmatch(data)
	if m == nil || !strings.HasPrefix(string(m[1]), fmt.Sprintf("v1.%d.", minor)) {
		return r, fmt.Errorf("no module file of the oracle links k8s.io/kubernetes v1.%d (internal/validation/matrix/modfile.sh makes one)", minor)
	}
	r.version = string(m[1])
	return r, nil
}

// askOracle runs the oracle of r on the requests and returns its answers, in order.
func askOracle(r release, cases []matrixCase) ([]oracleAnswer, error) {
	var in bytes.Buffer
	for _, c := range cases {
		req := map[string]any{"kind": c.kind, "object": c.obj}
		if c.old != nil {
			req["old"] = c.old
		}
		line, err := json.Marshal(req)
		if err != nil {
			return nil, err
		}
		in.Write(line)
		in.WriteByte('\n')
	}
	args := []string{"run", "-modfile=" + r.modfile}
	if r.minor >= 36 {
		args = append(args, "-tags", "mapv1")
	}
	cmd := exec.Command("go", append(args, ".")...)
	cmd.Dir = filepath.Join("..", "matrix")
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("oracle of %s: %w\n%s", r.version, err, lastLines(stderr.String(), 20))
	}
	var answers []oracleAnswer
	rd := bufio.NewReader(bytes.NewReader(out))
	for {
		line, err := rd.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var a oracleAnswer
			if err := json.Unmarshal(line, &a); err != nil {
				return nil, fmt.Errorf("oracle of %s: %w", r.version, err)
			}
			answers = append(answers, a)
		}
		if err != nil {
			break
		}
	}
	if len(answers) != len(cases) {
		return nil, fmt.Errorf("oracle of %s: %d answers to %d requests\n%s", r.version, len(answers), len(cases), lastLines(stderr.String(), 20))
	}
	return answers, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// oracleRun is the answers of one release's oracle, when they come.
type oracleRun struct {
	done    chan struct{}
	answers []oracleAnswer
	err     error
	took    time.Duration
}

func TestMatrix(t *testing.T) {
	if !*runMatrix {
		t.Skip("the version matrix runs with -matrix (make test)")
	}
	corpus := matrixCorpus()
	var releases []release
	for _, s := range strings.Split(*matrixVersions, ",") {
		minor, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(s), "1."))
		if err != nil {
			t.Fatalf("-matrix.versions: %q", s)
		}
		r, err := releaseOf(minor)
		if err != nil {
			t.Fatal(err)
		}
		releases = append(releases, r)
	}
	// The oracles run two at a time (the machine has two cores); each release is compared as
	// soon as its answers are in.
	runs := make([]*oracleRun, len(releases))
	slots := make(chan struct{}, 2)
	for i, r := range releases {
		runs[i] = &oracleRun{done: make(chan struct{})}
		go func(run *oracleRun) {
			defer close(run.done)
			slots <- struct{}{}
			defer func() { <-slots }()
			began := time.Now()
			run.answers, run.err = askOracle(r, servedCases(corpus, r.minor))
			run.took = time.Since(began)
		}(runs[i])
	}
	for i, r := range releases {
		t.Run(r.version, func(t *testing.T) {
			<-runs[i].done
			if runs[i].err != nil {
				t.Fatal(runs[i].err)
			}
			checkRelease(t, r, servedCases(corpus, r.minor), runs[i].answers, runs[i].took)
		})
	}
}

func servedCases(corpus []matrixCase, minor int) []matrixCase {
	var cases []matrixCase
	for _, c := range corpus {
		if served(c.kind, minor) {
			cases = append(cases, c)
		}
	}
	return cases
}

// checkRelease compares internal/validation at r's version with r's own code (answers) on every
// request of a kind r serves, and prints the figure line.
func checkRelease(t *testing.T, r release, cases []matrixCase, answers []oracleAnswer, oracleTime time.Duration) {
	v := validation.Minor(r.minor)

	var agree, creates, updates, rejected, messageOnly, reported int
	kinds := map[string]bool{}
	differences := map[string]int{} // what differs, indexes taken out → requests
	for i, c := range cases {
		a := answers[i]
		if c.update() {
			updates++
		} else {
			creates++
		}
		kinds[c.kind] = true
		errs, warnings := c.ours(v)
		mine := ourCauses(errs)
		var problem string
		switch {
		case a.Error != "":
			problem = "the oracle failed: " + a.Error
		case (len(mine) == 0) != (len(a.Causes) == 0):
			problem = "verdicts differ"
		case !slices.Equal(set(mine, cause.pair), set(a.Causes, cause.pair)):
			problem = "(field, reason) pairs differ"
		case len(a.Causes) == 0 && !slices.Equal(sortedWarnings(a.Warnings), ourWarningStrings(warnings)):
			problem = "warnings differ"
		}
		if problem != "" {
			differences[differenceKey(problem, c.kind, mine, a.Causes)]++
			if reported++; reported <= 20 {
				t.Errorf("%s: %s on %s %s (%s)\n  ours:\n%s  %s:\n%s  warnings: ours %q, server %q\n  object: %s",
					r.version, problem, c.kind, map[bool]string{true: "update", false: "create"}[c.update()], c.label,
					listCauses(mine), r.version, listCauses(a.Causes), ourWarningStrings(warnings), a.Warnings, shortJSON(c.obj))
			}
			continue
		}
		agree++
		if len(a.Causes) > 0 {
			rejected++
		}
		if !generatedName(c.obj) && !slices.Equal(set(mine, cause.String), set(a.Causes, cause.String)) {
			messageOnly++
		}
	}
	for _, d := range slices.Sorted(maps.Keys(differences)) {
		t.Logf("%s: %d requests: %s", r.version, differences[d], d)
	}
	var kindNames []string
	for k := range kinds {
		kindNames = append(kindNames, k)
	}
	sort.Strings(kindNames)
	// make check prints the lines of go test -v that start with "matrix:".
	line := fmt.Sprintf("matrix: %s: %d/%d agree (%d creates, %d updates, %d rejected; %d kinds); %d with other messages for the same paths; oracle %s",
		r.version, agree, len(cases), creates, updates, rejected, len(kindNames), messageOnly, oracleTime.Round(time.Millisecond))
	t.Log(line)
	fmt.Println(line)
}

func sortedWarnings(ws []string) []string {
	out := slices.Clone(ws)
	sort.Strings(out)
	return slices.Compact(out)
}

func ourWarningStrings(ws []warning.Warning) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.String())
	}
	return sortedWarnings(out)
}

// generatedName reports an object named by the server (its messages quote a random name).
func generatedName(obj any) bool {
	b, _ := json.Marshal(obj)
	var m struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	_ = json.Unmarshal(b, &m)
	return m.Metadata.Name == "" && m.Metadata.GenerateName != ""
}

func shortJSON(obj any) string {
	b, _ := json.Marshal(obj)
	if len(b) > 1200 {
		return string(b[:1200]) + fmt.Sprintf("…(%d bytes)", len(b))
	}
	return string(b)
}

// differenceKey names what differs between two answers, indexes taken out: the pairs one side
// has and the other has not.
func differenceKey(problem, kind string, ours, theirs []cause) string {
	norm := func(cs []cause) []string {
		var out []string
		for _, c := range cs {
			out = append(out, indexRE.ReplaceAllString(c.pair(), "[*]"))
		}
		sort.Strings(out)
		return slices.Compact(out)
	}
	o, s := norm(ours), norm(theirs)
	var onlyOurs, onlyTheirs []string
	for _, x := range o {
		if !slices.Contains(s, x) {
			onlyOurs = append(onlyOurs, x)
		}
	}
	for _, x := range s {
		if !slices.Contains(o, x) {
			onlyTheirs = append(onlyTheirs, x)
		}
	}
	return fmt.Sprintf("%s, %s: only ours %v, only the release's %v", problem, kind, onlyOurs, onlyTheirs)
}
