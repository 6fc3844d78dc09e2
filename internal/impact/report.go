package impact

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

// Report is how a Result reads in the plan.
type Report struct {
	// Subject names what was evaluated, as the sentences begin: `Binding "b" of
	// ValidatingAdmissionPolicy "p", as planned,`.
	Subject string
	// Path is the API field the warnings are about (the binding's validation actions, the
	// policy's validations or mutations).
	Path *field.Path
	// Gate makes what would deny existing objects an error, and with it what could not be
	// told or read of a binding that denies: the configuration asks that the plan fail.
	Gate bool
	// Bounds name the settings that bound the impact, for the sentences that say a list was
	// cut: "impact_max_objects", "impact_timeout".
	MaxObjectsSetting, BudgetSetting string
	// Bounds are those the impact ran with.
	Bounds Bounds
}

// Summaries of the impact's warnings, one per sort.
const (
	SummaryDeny        = "Policy would deny existing objects"
	SummaryWarn        = "Policy would warn on existing objects"
	SummaryAudit       = "Policy would audit existing objects"
	SummaryNone        = "Policy denies no existing object"
	SummaryFlips       = "Policy change flips existing objects"
	SummaryIncomplete  = "Policy impact incomplete"
	SummaryChange      = "Policy would change existing objects"
	SummaryNoChange    = "Policy changes no existing object"
	SummaryReject      = "Policy would reject writes of existing objects"
	SummaryKnownLater  = "Policy impact known after apply"
	SummaryGateFailure = "Binding would deny existing objects"
	SummaryOrder       = "Mutating policies' result depends on their order"
)

// nextWrite says which write the verdicts are about.
const nextWrite = "on their next write (each evaluated as an UPDATE that leaves it unchanged: what the next kubectl apply, " +
	"helm upgrade, sync or controller update of it is)"

// Warnings are the plan's warnings of a validating policy's result.
func (res *Result) Warnings(rep Report) []warning.Warning {
	var out []warning.Warning
	add := func(summary, msg string, gated bool) {
		if gated {
			summary = SummaryGateFailure
			msg += "\n\nThe binding's fail_on_existing_denials is true, so the plan fails: fix these objects first, or roll out with Warn or Audit."
		}
		out = append(out, warning.Warning{Path: rep.Path, Kind: warning.Impact, Summary: summary, Message: msg, Gated: gated})
	}
	scope := res.scope()
	denies := hasAction(res.Actions, admissionregistrationv1.Deny)
	if res.Denied.Count > 0 {
		add(SummaryDeny, fmt.Sprintf("%s would deny %s of %s%s, %s:\n%s", rep.Subject, number(res.Denied.Count), scope, in(res.Denied), nextWrite,
			listed(res.Denied, func(v Verdict) string { return v.Message }))+res.footer(), rep.Gate)
	}
	if res.Warned.Count > 0 {
		add(SummaryWarn, fmt.Sprintf("%s would warn on %s of %s%s, %s:\n%s", rep.Subject, number(res.Warned.Count), scope, in(res.Warned), nextWrite,
			listed(res.Warned, func(v Verdict) string { return strings.Join(v.Warnings, "; ") }))+res.footer(), false)
	}
	if res.Audited.Count > 0 {
		add(SummaryAudit, fmt.Sprintf("%s would record %s of %s%s as failing in the audit log, %s:\n%s", rep.Subject, number(res.Audited.Count), scope,
			in(res.Audited), nextWrite, listed(res.Audited, func(v Verdict) string { return strings.Join(v.Audit, "; ") }))+res.footer(), false)
	}
	if res.Denied.Count+res.Warned.Count+res.Audited.Count == 0 {
		add(SummaryNone, res.none(rep.Subject, actionVerbs(res.Actions)), false)
	}
	if res.Flips && res.NewlyDenied.Count+res.NoLongerDenied.Count > 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "Against the version in the cluster, %s newly denies %s and no longer denies %s:", rep.Subject,
			count(res.NewlyDenied.Count), count(res.NoLongerDenied.Count))
		if res.NewlyDenied.Count > 0 {
			b.WriteString("\nNewly denied:\n" + listed(res.NewlyDenied, func(v Verdict) string { return v.Message }))
		}
		if res.NoLongerDenied.Count > 0 {
			b.WriteString("\nNo longer denied:\n" + listed(res.NoLongerDenied, func(v Verdict) string { return v.Message }))
		}
		add(SummaryFlips, b.String(), false)
	}
	if gaps := res.gaps(rep); gaps != "" {
		add(SummaryIncomplete, strings.TrimSuffix(rep.Subject, ",")+": "+gaps, rep.Gate && denies)
	}
	return out
}

// MutatingWarnings are the plan's warnings of a mutating policy's result.
func (res *Result) MutatingWarnings(rep Report) []warning.Warning {
	var out []warning.Warning
	add := func(summary, msg string) {
		out = append(out, warning.Warning{Path: rep.Path, Kind: warning.Impact, Summary: summary, Message: msg})
	}
	scope := res.scope()
	if res.Changed.Count > 0 {
		add(SummaryChange, fmt.Sprintf("%s would change %s of %s%s, %s, in these fields:\n%s", rep.Subject, number(res.Changed.Count), scope, in(res.Changed), nextWrite,
			listed(res.Changed, func(v Verdict) string { return strings.Join(v.Changes, ", ") }))+res.footer())
	}
	if res.Denied.Count > 0 {
		add(SummaryReject, fmt.Sprintf("%s would reject the next write of %s of %s%s:\n%s", rep.Subject, number(res.Denied.Count), scope, in(res.Denied),
			listed(res.Denied, func(v Verdict) string { return v.Message }))+res.footer())
	}
	if res.Changed.Count+res.Denied.Count == 0 {
		add(SummaryNoChange, res.none(rep.Subject, "change"))
	}
	if res.OrderDependent.Count > 0 {
		add(SummaryOrder, fmt.Sprintf("%s and the other mutating admission policies that change the same writes (in the cluster, or planned in the same run) "+
			"would leave %s of %s%s otherwise in one order than in another, %s. The server runs mutating admission policies in no fixed order "+
			"(its list of policies is rebuilt after each change, in no fixed order), so which of these the next write gets is not known: "+
			"make them commute (each sets only what it alone sets, or each only where the field is absent and the others agree), or merge them. "+
			"Only the policies' order is simulated, not the mutating webhooks'.\n%s", rep.Subject, number(res.OrderDependent.Count), scope,
			in(res.OrderDependent), nextWrite, listed(res.OrderDependent, func(v Verdict) string { return v.Message }))+res.footer())
	}
	if gaps := res.gaps(rep); gaps != "" {
		add(SummaryIncomplete, strings.TrimSuffix(rep.Subject, ",")+": "+gaps)
	}
	return out
}

// none is the one line of a result with nothing to report.
func (res *Result) none(subject, verbs string) string {
	switch {
	case res.NoUpdate:
		return subject + " affects no existing object: its rules leave out UPDATE, so the next writes of the objects the cluster runs are not evaluated."
	case res.Matched == 0:
		return fmt.Sprintf("%s matches none of the %s existing objects examined%s, so it would %s none of them on their next write.", subject,
			number(res.Examined), res.listedResources(), verbs)
	}
	judged := res.Matched - res.CannotTell.Count
	line := fmt.Sprintf("%s would %s none of %s on their next write", subject, verbs, res.scope())
	if res.CannotTell.Count > 0 {
		line += fmt.Sprintf(" that it could judge (%s; it cannot tell for %s, below)", count(judged), count(res.CannotTell.Count))
	}
	return line + "." + res.footer()
}

// scope is "the 1,204 existing Deployments and StatefulSets it matches".
func (res *Result) scope() string {
	return fmt.Sprintf("the %s existing %s it matches", number(res.Matched), kinds(res.MatchedKinds, res.Matched))
}

// footer says what was examined, on a line of its own.
func (res *Result) footer() string {
	s := fmt.Sprintf("\n\nExamined %s objects%s in %s.", number(res.Examined), res.listedResources(), res.Elapsed.Round(time.Millisecond))
	if res.Flips && res.NewlyDenied.Count+res.NoLongerDenied.Count == 0 {
		s += " No object flips against the version in the cluster."
	}
	return s
}

// listedResources is " of deployments.apps and statefulsets.apps", "" when none was listed.
func (res *Result) listedResources() string {
	var names []string
	for _, l := range res.Lists {
		names = append(names, l.Resource.String())
	}
	if len(names) == 0 {
		return ""
	}
	return " of " + andList(names)
}

// gaps says what the impact could not see: lists cut or refused, what it cannot tell.
func (res *Result) gaps(rep Report) string {
	return res.cannotTellGap(res.Unseen(rep))
}

// Unseen says, one a sentence, what the impact could not read: the lists cut by the bounds
// (named with rep's settings) or refused, and what else it could not read.
func (res *Result) Unseen(rep Report) []string {
	var parts []string
	for _, l := range res.Lists {
		switch {
		case l.Cut == CutByLimit && l.Total >= 0:
			parts = append(parts, fmt.Sprintf("examined %s of %s %s (the most per resource: %s%s)", number(l.Examined), number(int(l.Total)),
				l.Resource, number(rep.Bounds.maxObjects()), setting(rep.MaxObjectsSetting)))
		case l.Cut == CutByLimit:
			parts = append(parts, fmt.Sprintf("examined %s %s and left the rest (the most per resource: %s%s)", number(l.Examined), l.Resource,
				number(rep.Bounds.maxObjects()), setting(rep.MaxObjectsSetting)))
		case l.Cut == CutByTime:
			parts = append(parts, fmt.Sprintf("examined %s %s before the time budget ran out (%s%s)", number(l.Examined), l.Resource,
				rep.Bounds.budget(), setting(rep.BudgetSetting)))
		case l.Err != nil:
			parts = append(parts, "could not list "+describeErr(l.Resource.String(), l.Err))
		}
	}
	return append(parts, res.Incomplete...)
}

// cannotTellGap is parts and what the impact cannot tell, in one sentence.
func (res *Result) cannotTellGap(parts []string) string {
	if res.CannotTell.Count > 0 {
		reasons := map[string]int{}
		for _, v := range res.CannotTell.First {
			reasons[v.CannotTell]++
		}
		keys := make([]string, 0, len(reasons))
		for k := range reasons {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts = append(parts, fmt.Sprintf("cannot tell for %s of the objects it matches, counted apart and not as admitted (%s):\n%s",
			count(res.CannotTell.Count), strings.Join(keys, "; "), listed(res.CannotTell, func(Verdict) string { return "" })))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + "."
}

func setting(name string) string {
	if name == "" {
		return ""
	}
	return ", the provider's " + name
}

// listed is a tally's first objects, one a line with what say gives, and how many more.
func listed(t Tally, say func(Verdict) string) string {
	var b strings.Builder
	for i, v := range t.First {
		if i == ListedFirst {
			break
		}
		b.WriteString("  " + v.Ref())
		if s := say(v); s != "" {
			b.WriteString(": " + s)
		}
		b.WriteString("\n")
	}
	elsewhere := 0
	for _, n := range t.Elsewhere {
		elsewhere += n
	}
	if shown := min(len(t.First), ListedFirst); t.Count-elsewhere > shown {
		fmt.Fprintf(&b, "  and %s more\n", number(t.Count-elsewhere-shown))
	}
	for _, by := range slices.Sorted(maps.Keys(t.Elsewhere)) {
		which := "The other"
		if len(t.First) == 0 && len(t.Elsewhere) == 1 && t.Elsewhere[by] == t.Count {
			which = "All"
		}
		fmt.Fprintf(&b, "%s %s named in the same list of %s.\n", which, pluralIs(t.Elsewhere[by]), strings.TrimSuffix(by, ","))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// in is " (in 2 namespaces)", the namespaces of a tally's objects; "" for cluster-scoped ones.
func in(t Tally) string {
	switch n := len(t.Namespaces); n {
	case 0:
		return ""
	case 1:
		return " (in 1 namespace)"
	default:
		return " (in " + number(n) + " namespaces)"
	}
}

// count is "3 objects" wording's first half: "1 object", "3 objects".
func count(n int) string {
	if n == 1 {
		return "1 object"
	}
	return number(n) + " objects"
}

// number is n with thousands separated: 1,204.
func number(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return s
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// kinds is "Deployments and StatefulSets", the kinds of the matched objects; "objects" for none.
func kinds(byKind map[string]int, total int) string {
	if len(byKind) == 0 {
		return "objects"
	}
	names := make([]string, 0, len(byKind))
	for k := range byKind {
		if total == 1 {
			names = append(names, k)
		} else {
			names = append(names, plural(k))
		}
	}
	sort.Strings(names)
	return andList(names)
}

func andList(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// plural is a kind's plural, as the API's docs write them: Deployments, Ingresses, NetworkPolicies.
func plural(kind string) string {
	switch {
	case strings.HasSuffix(kind, "s"), strings.HasSuffix(kind, "x"), strings.HasSuffix(kind, "ch"), strings.HasSuffix(kind, "sh"):
		return kind + "es"
	case strings.HasSuffix(kind, "y") && len(kind) > 1 && !strings.ContainsRune("aeiou", rune(kind[len(kind)-2])):
		return kind[:len(kind)-1] + "ies"
	}
	return kind + "s"
}

func hasAction(actions []admissionregistrationv1.ValidationAction, a admissionregistrationv1.ValidationAction) bool {
	for _, x := range actions {
		if x == a {
			return true
		}
	}
	return false
}

// actionVerbs is what the binding's actions do: "deny", "warn on and audit".
func actionVerbs(actions []admissionregistrationv1.ValidationAction) string {
	var verbs []string
	for _, a := range actions {
		switch a {
		case admissionregistrationv1.Deny:
			verbs = append(verbs, "deny")
		case admissionregistrationv1.Warn:
			verbs = append(verbs, "warn on")
		case admissionregistrationv1.Audit:
			verbs = append(verbs, "audit")
		}
	}
	if len(verbs) == 0 {
		return "deny"
	}
	return andList(verbs)
}

// pluralIs is "1 is", "3 are".
func pluralIs(n int) string {
	if n == 1 {
		return "1 is"
	}
	return number(n) + " are"
}
