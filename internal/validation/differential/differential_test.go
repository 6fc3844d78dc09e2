package differential

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/advice"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/webhook"
)

// workers is how many dry-run creates are in flight at once (the machine has few cores, and the
// API server shares them).
const workers = 4

// cause is one error as the server reports it in details.causes: path, reason (the field error
// type, e.g. FieldValueInvalid) and message (the error without its path).
type cause struct {
	Field, Reason, Message string
}

func (c cause) pair() string { return c.Field + " " + c.Reason }

func (c cause) String() string { return c.Field + " " + c.Reason + ": " + c.Message }

// outcome is what Validate and the server made of one object.
type outcome struct {
	ours        []cause  // Validate's errors, as causes, with the server's de-duplication applied
	ourWarnings []string // Validate's warnings that the server gives as well (virtual resources)
	answer
}

// answer is the server's answer to a dry-run create.
type answer struct {
	accepted     bool     // the server accepted the dry-run create
	causes       []cause  // the server's causes, when it answered 422 Invalid
	warnings     []string // the server's warnings, when it accepted
	serverErr    error    // any other answer: a disagreement
	serverStatus string   // code and reason of that answer
}

// ourCauses turns Validate's errors into the causes the server would send.
//
// Normalisation: a 1.37 server drops every error whose full text (path, type, value and detail)
// repeats an earlier one. Its registry passes the handwritten errors through
// field.ErrorList.Filter (validate.FilterCoveredHandwrittenErrors, part of the declarative
// validation step), and Filter goes through ErrorList.ToAggregate, which de-duplicates by
// err.Error(). So two labels with the same bad value give one cause, not the two errors the
// validation code returns. We drop the same repeats, by the same key, before comparing. This
// cannot hide a disagreement: only errors identical in every part, path and message included,
// are merged, and the comparison below is on sets of (path, reason) anyway.
func ourCauses(errs field.ErrorList) []cause {
	var out []cause
	seen := map[string]bool{}
	for _, e := range errs {
		if seen[e.Error()] {
			continue
		}
		seen[e.Error()] = true
		out = append(out, cause{Field: e.Field, Reason: string(e.Type), Message: e.ErrorBody()})
	}
	return out
}

// virtualResourceWarning marks the warnings both sides give (WarningsForMutatingWebhookRules in k8s.io/kubernetes pkg/apis/admissionregistration/validation); the others of Validate
// (caBundle, failurePolicy, reinvocation) are advice of our own that the server does not give.
const virtualResourceWarning = "is excluded from admission webhooks"

type warningsKey struct{}

// recorder collects the warnings of one request; the client finds it in the request's context.
type recorder struct {
	mu   sync.Mutex
	msgs []string
}

type contextWarnings struct{}

func (contextWarnings) HandleWarningHeaderWithContext(ctx context.Context, _ int, _ string, text string) {
	if r, ok := ctx.Value(warningsKey{}).(*recorder); ok {
		r.mu.Lock()
		r.msgs = append(r.msgs, text)
		r.mu.Unlock()
	}
}

// kind is a kind of configuration under test: its cases and how one is sent to the server.
type kind struct {
	name  string // the API kind, as webhook.Form names it
	cases []testCase
	// create sends the configuration of the kind made from o to the server with opts.
	create func(ctx context.Context, o *mwc, opts metav1.CreateOptions) error
	note   string // said at the end of the figure line's parenthesis, if not empty
}

// kindsUnderTest are the kinds of configuration under test, each created through cs.
func kindsUnderTest(cs kubernetes.Interface) []kind {
	api := cs.AdmissionregistrationV1()
	mutating := generate()
	validating, dropped := validatingCases(mutating)
	return []kind{{
		name:  "MutatingWebhookConfiguration",
		cases: mutating,
		create: func(ctx context.Context, o *mwc, opts metav1.CreateOptions) error {
			_, err := api.MutatingWebhookConfigurations().Create(ctx, o, opts)
			return err
		},
	}, {
		name:  "ValidatingWebhookConfiguration",
		cases: validating,
		create: func(ctx context.Context, o *mwc, opts metav1.CreateOptions) error {
			_, err := api.ValidatingWebhookConfigurations().Create(ctx, validatingForm(o), opts)
			return err
		},
		note: fmt.Sprintf("%d generated configurations left out: reinvocationPolicy was all that broke them", dropped),
	}}
}

// dryRunCreate sends the configuration of kind k made from c.obj to the server as a dry-run
// create.
func (k kind) dryRunCreate(c testCase) answer {
	return dryRun(func(ctx context.Context, opts metav1.CreateOptions) error { return k.create(ctx, c.obj, opts) })
}

// dryRun makes a dry-run create with create and returns the server's answer, retrying only
// answers that say nothing about the object (throttling, timeouts).
func dryRun(create func(ctx context.Context, opts metav1.CreateOptions) error) (o answer) {
	for attempt := 1; ; attempt++ {
		rec := &recorder{}
		ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), warningsKey{}, rec), 30*time.Second)
		err := create(ctx, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		cancel()
		if err != nil && attempt < 4 && (apierrors.IsTooManyRequests(err) || apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) || errors.Is(err, context.DeadlineExceeded)) {
			time.Sleep(time.Duration(attempt) * 200 * time.Millisecond)
			continue
		}
		if err == nil {
			o.accepted = true
			o.warnings = rec.msgs
			return o
		}
		var status apierrors.APIStatus
		if errors.As(err, &status) {
			s := status.Status()
			if s.Code == 422 && s.Reason == metav1.StatusReasonInvalid && s.Details != nil && len(s.Details.Causes) > 0 {
				for _, sc := range s.Details.Causes {
					o.causes = append(o.causes, cause{Field: sc.Field, Reason: string(sc.Type), Message: sc.Message})
				}
				return o
			}
			o.serverStatus = fmt.Sprintf("HTTP %d %s", s.Code, s.Reason)
		}
		o.serverErr = err
		return o
	}
}

func ours(c testCase) outcome {
	defaulted := validation.Default(c.obj)
	o := outcome{ours: ourCauses(validation.Validate(defaulted))}
	for _, w := range append(advice.Advice(defaulted, nil, true), validation.ServerWarnings(validation.Assumed, defaulted, false)...) {
		if strings.Contains(w.Message, virtualResourceWarning) {
			o.ourWarnings = append(o.ourWarnings, w.String())
		}
	}
	return o
}

// set returns the distinct keys of causes, sorted.
func set(causes []cause, key func(cause) string) []string {
	var out []string
	for _, c := range causes {
		out = append(out, key(c))
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// disagreement says how Validate and the server differ on one object, or "" if they agree: the
// same verdict and the same set of (field path, reason) pairs. Other answers than 201 and 422
// Invalid are disagreements.
func (o outcome) disagreement() string {
	if o.serverErr != nil {
		return fmt.Sprintf("the server answered %s: %v", o.serverStatus, o.serverErr)
	}
	if (len(o.ours) == 0) != o.accepted {
		return "verdicts differ"
	}
	if !slices.Equal(set(o.ours, cause.pair), set(o.causes, cause.pair)) {
		return "(field, reason) pairs differ"
	}
	return ""
}

// messageDifference says whether the messages differ too, when the pairs agree.
//
// Normalisation: when an object has generateName and no name, the server validates a name made
// of generateName (cut to 58 characters) and 5 random characters of its generator's alphabet,
// and Validate one with "xxxxx" (x is in that alphabet). Errors about metadata.name quote that
// name, so those 5 characters are masked on both sides. Nothing else is rewritten.
func (o outcome) messageDifference(c testCase) bool {
	norm := func(x cause) string { return x.String() }
	if c.obj.Name == "" && c.obj.GenerateName != "" {
		prefix := c.obj.GenerateName[:min(len(c.obj.GenerateName), 58)]
		generated := regexp.MustCompile(regexp.QuoteMeta(strconv.Quote(prefix)[:len(strconv.Quote(prefix))-1]) + `[bcdfghjklmnpqrstvwxz2456789]{5}"`)
		norm = func(x cause) string {
			if x.Field == "metadata.name" {
				x.Message = generated.ReplaceAllLiteralString(x.Message, strconv.Quote(prefix+"·····"))
			}
			return x.String()
		}
	}
	return !slices.Equal(set(o.ours, norm), set(o.causes, norm))
}

// warningDifference compares the virtual-resource warnings of an accepted object.
func (o outcome) warningDifference() bool {
	var server []string
	for _, w := range o.warnings {
		if strings.Contains(w, virtualResourceWarning) {
			server = append(server, w)
		}
	}
	sort.Strings(server)
	mine := slices.Clone(o.ourWarnings)
	sort.Strings(mine)
	return !slices.Equal(slices.Compact(server), slices.Compact(mine))
}

func summary(c testCase) string {
	b, _ := json.Marshal(c.obj)
	s := string(b)
	if len(s) > 1500 {
		s = s[:1500] + fmt.Sprintf("…(%d bytes)", len(b))
	}
	return c.String() + "\n    object: " + s
}

func listCauses(cs []cause) string {
	if len(cs) == 0 {
		return "    (none: accepted)\n"
	}
	var b strings.Builder
	for _, c := range cs {
		msg := c.Message
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		fmt.Fprintf(&b, "    - %s %s: %s\n", c.Field, c.Reason, msg)
	}
	return b.String()
}

var indexRE = regexp.MustCompile(`\[\d+\]`)

// TestDifferentialAgainstAPIServer sends every generated object, as a MutatingWebhookConfiguration
// and as a ValidatingWebhookConfiguration, to kube-apiserver as a dry-run create and requires
// Validate (after Default) to reach the same verdict with the same set of (field path, reason)
// pairs.
func TestDifferentialAgainstAPIServer(t *testing.T) {
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
	for _, k := range kindsUnderTest(cs) {
		t.Run(k.name, func(t *testing.T) { k.check(t, version.GitVersion) })
	}
}

// check judges every case of kind k both ways, reports each disagreement as an error and prints
// the figure line.
func (k kind) check(t *testing.T, serverVersion string) {
	cases := k.cases
	results := make([]outcome, len(cases))
	began := time.Now()
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Go(func() {
			for i := range next {
				o := ours(cases[i])
				o.answer = k.dryRunCreate(cases[i])
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
		agree, valid, invalid, messageOnly, warningDiffs int
		rulesCovered                                     = map[string]bool{}
		kinds                                            = map[string]bool{}
		unmapped                                         = map[string]bool{}
		silent                                           = map[string][2]int{} // rule whose verdict the generator leaves to the server → accepted, rejected
		otherWarnings                                    = map[string]int{}
		paths                                            = webhook.Form(k.name).Paths()
	)
	for i, c := range cases {
		o := results[i]
		if d := o.disagreement(); d != "" {
			t.Errorf("DISAGREEMENT %s\n  %s\n  ours:\n%s  server:\n%s", d, summary(c), listCauses(o.ours), listCauses(o.causes))
			continue
		}
		agree++
		if o.accepted {
			valid++
		} else {
			invalid++
		}
		if o.messageDifference(c) {
			messageOnly++
			t.Logf("same paths, different messages: %s\n  ours:\n%s  server:\n%s", c, listCauses(o.ours), listCauses(o.causes))
		}
		if o.accepted && o.warningDifference() {
			warningDiffs++
			t.Errorf("virtual-resource warnings differ: %s\n  ours:   %q\n  server: %q", summary(c), o.ourWarnings, o.warnings)
		}
		// The generator's label is the verdict the rule gives; the server must bear it out, or the
		// rule is not exercised the way the generator claims (and the count below would lie).
		switch {
		case c.want == accept && !o.accepted, c.want == reject && o.accepted:
			t.Errorf("the generator expects %s but the server did not: %s\n  server:\n%s", c.want, summary(c), listCauses(o.causes))
		case c.rule != validRule && !strings.HasPrefix(c.rule, "several rules"):
			rulesCovered[c.rule] = true
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
			if _, ok := paths.AttributePath(sc.Field); !ok {
				unmapped[sc.Field] = true
			}
		}
		for _, w := range o.warnings {
			if !strings.Contains(w, virtualResourceWarning) {
				otherWarnings[indexRE.ReplaceAllString(w, "[*]")]++
			}
		}
	}

	t.Logf("kinds of (path, reason) the server returned: %s", strings.Join(slices.Sorted(maps.Keys(kinds)), "; "))
	for _, r := range slices.Sorted(maps.Keys(silent)) {
		t.Logf("spec silent, server decides: %s: %d accepted, %d rejected", r, silent[r][0], silent[r][1])
	}
	for _, w := range slices.Sorted(maps.Keys(otherWarnings)) {
		t.Logf("server warning we do not compare (%d objects): %s", otherWarnings[w], w)
	}
	for _, f := range slices.Sorted(maps.Keys(unmapped)) {
		t.Logf("NOTE: server cause field %q maps to no Terraform attribute (webhook.Form(kind).Paths()); its diagnostic cannot point at a line", f)
	}
	note := ""
	if k.note != "" {
		note = "; " + k.note
	}
	// make check prints the lines of go test -v that start with "differential:".
	line := fmt.Sprintf("differential: %d/%d %ss agree (%d valid, %d invalid; %d rules covered, %d kinds of (path, reason) seen%s); "+
		"%d with other messages for the same paths; %d warning differences; kube-apiserver %s, %s",
		agree, len(cases), k.name, valid, invalid, len(rulesCovered), len(kinds), note, messageOnly, warningDiffs, serverVersion, elapsed.Round(time.Millisecond))
	t.Log(line)
	fmt.Println(line)
}
