package validation

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

// A configuration is checked twice. ValidateConfig, which runs before the provider is
// configured (terraform validate), knows neither the server's version nor the stored object:
// it reports Offline, the errors of a create that every supported server gives. ModifyPlan
// knows whether the object exists (its prior state is what the server stores) and can learn
// the server's version: it reports AtPlan, the verdict of that server on that request, less
// what Offline reported.
//
// The checks that depend on the version are monotone over the supported range: the CEL
// environments only gain functions from one release to the next, and the reserved name suffix
// becomes an error once and stays one. So a request whose verdicts at OldestSupported, Assumed
// and NewestSupported agree has the same verdict at every supported version, and no version
// needs to be known for it.

// Judgement is what a server of one version says of one request: the errors that reject it,
// and the warnings it gives when it accepts it.
type Judgement struct {
	Errors   field.ErrorList
	Warnings []warning.Warning
}

// Check is a request to the servers of every version: the judgement of the server of version v.
type Check func(v Version) Judgement

// Offline returns the errors of create (the check of a create) that every supported server
// gives, in the order of a server of version Assumed, less those a server enforces only on a
// create (CreateOnly): what can be said of a configuration knowing neither the server nor the
// stored object.
func Offline(create Check) field.ErrorList {
	return slices.DeleteFunc(common(newSpread(create)), CreateOnly)
}

// VersionNote is a verdict that depends on the server's version, reported as a warning when
// the version in play is not one the checks know: the error, and what it depends on.
type VersionNote struct {
	Error *field.Error
	Note  string
}

// Verdict is what AtPlan finds beyond Offline.
type Verdict struct {
	// Errors are the errors of the server in play, or, when its version is not known, those
	// that every supported server gives.
	Errors field.ErrorList
	// Warnings are the server's own warnings on the request (or, when its version is not
	// known, those of a server of version Assumed).
	Warnings []warning.Warning
	// Notes are the errors some supported servers give and others do not, when the version
	// in play is not one of them.
	Notes []VersionNote
	// Version is the version the verdict is for, Assumed when none was known, and Asked
	// whether serverVersion was called.
	Version Version
	Asked   bool
}

// AtPlan returns the verdict on request (a create, or an update of the stored object) that
// Offline(create) has not already given. serverVersion is called only when the verdict depends
// on the server's version, and returns it, or the zero Version when it is not known.
//
// With the version known and supported, the verdict is that server's. Otherwise the errors
// every supported server gives are errors, and those only some give are notes that say which,
// and which version the checks assumed: a configuration that some supported server accepts is
// never blocked on a guess. A version outside the supported range is judged as its nearest
// supported neighbour, whose errors that not every supported server gives are notes.
func AtPlan(create, request Check, serverVersion func() Version) Verdict {
	reported := keysOf(Offline(create))
	fresh := func(errs field.ErrorList) field.ErrorList {
		return slices.DeleteFunc(slices.Clone(errs), func(e *field.Error) bool { return reported[errorKey(e)] })
	}
	s := newSpread(request)
	if !s.dependsOnVersion() {
		j := s.at(Assumed)
		return Verdict{Errors: fresh(j.Errors), Warnings: j.Warnings, Version: Assumed}
	}
	v := serverVersion()
	if v.Supported() {
		j := s.at(v)
		return Verdict{Errors: fresh(j.Errors), Warnings: j.Warnings, Version: v, Asked: true}
	}

	why := fmt.Sprintf("The provider does not know the version of the Kubernetes API server (set kubernetes_version in the provider "+
		"configuration, or let it reach the cluster), so this is a warning; the checks assumed %s.", Assumed)
	ref := Assumed
	switch {
	case v.Known() && v.minor < OldestSupported.minor:
		ref = OldestSupported
		why = fmt.Sprintf("The API server is Kubernetes %s, older than the versions the provider's checks know (%s to %s), so this is a warning; "+
			"the checks assumed %s.", v, OldestSupported, NewestSupported, ref)
	case v.Known():
		ref = NewestSupported
		why = fmt.Sprintf("The API server is Kubernetes %s, newer than the versions the provider's checks know (%s to %s), so this is a warning; "+
			"the checks assumed %s.", v, OldestSupported, NewestSupported, ref)
	}
	out := Verdict{Version: ref, Asked: true, Warnings: s.at(ref).Warnings}
	everywhere := common(s)
	out.Errors = fresh(everywhere)
	// Each error some supported server gives and another does not, in the order of ref's,
	// then of the other versions' when the version is not known at all.
	scan := []Version{ref}
	if !v.Known() {
		scan = append(scan, supportedVersions()...)
	}
	byKey := map[string]*field.Error{}
	var order []string
	for _, at := range scan {
		for _, e := range s.at(at).Errors {
			k := errorKey(e)
			if _, seen := byKey[k]; !seen && !reported[k] {
				byKey[k] = e
				order = append(order, k)
			}
		}
	}
	inAll := keysOf(everywhere)
	for _, k := range order {
		if inAll[k] {
			continue
		}
		var rejecting []Version
		for _, at := range supportedVersions() {
			if keysOf(s.at(at).Errors)[k] {
				rejecting = append(rejecting, at)
			}
		}
		out.Notes = append(out.Notes, VersionNote{byKey[k], whichReject(rejecting) + " " + why})
	}
	return out
}

// whichReject says which supported versions reject, and which accept: "Kubernetes 1.31 to
// 1.33 reject this; 1.34 to 1.38 accept it."
func whichReject(rejecting []Version) string {
	var accepting []Version
	for _, v := range supportedVersions() {
		if !slices.Contains(rejecting, v) {
			accepting = append(accepting, v)
		}
	}
	return fmt.Sprintf("Kubernetes %s reject this; %s accept it.", versionRanges(rejecting), versionRanges(accepting))
}

// versionRanges writes versions, in order, as ranges: "1.31 to 1.33 and 1.36".
func versionRanges(vs []Version) string {
	var parts []string
	for i := 0; i < len(vs); {
		j := i
		for j+1 < len(vs) && vs[j+1].minor == vs[j].minor+1 {
			j++
		}
		if j == i {
			parts = append(parts, vs[i].String())
		} else {
			parts = append(parts, vs[i].String()+" to "+vs[j].String())
		}
		i = j + 1
	}
	return strings.Join(parts, " and ")
}

// spread is the judgements of one request at each version, made on demand.
type spread struct {
	check Check
	at_   map[Version]Judgement
}

func newSpread(c Check) *spread { return &spread{check: c, at_: map[Version]Judgement{}} }

func (s *spread) at(v Version) Judgement {
	j, ok := s.at_[v]
	if !ok {
		j = s.check(v)
		s.at_[v] = j
	}
	return j
}

// dependsOnVersion reports whether servers of some supported versions judge differently (see
// the monotony argued above: the two ends and Assumed tell).
func (s *spread) dependsOnVersion() bool {
	k := judgementKey(s.at(Assumed))
	return judgementKey(s.at(OldestSupported)) != k || judgementKey(s.at(NewestSupported)) != k
}

// common returns the errors of Assumed's judgement that the oldest and the newest supported
// servers give too, and so every supported server.
func common(s *spread) field.ErrorList {
	if len(s.at(Assumed).Errors) == 0 {
		return nil // the usual case: no other version need be judged
	}
	oldest, newest := keysOf(s.at(OldestSupported).Errors), keysOf(s.at(NewestSupported).Errors)
	var out field.ErrorList
	for _, e := range s.at(Assumed).Errors {
		if k := errorKey(e); oldest[k] && newest[k] {
			out = append(out, e)
		}
	}
	return out
}

// errorKey identifies an error across versions: its type, path, value and detail.
func errorKey(e *field.Error) string { return e.Error() }

func keysOf(errs field.ErrorList) map[string]bool {
	m := make(map[string]bool, len(errs))
	for _, e := range errs {
		m[errorKey(e)] = true
	}
	return m
}

func judgementKey(j Judgement) string {
	var b strings.Builder
	keys := make([]string, 0, len(j.Errors)+len(j.Warnings))
	for _, e := range j.Errors {
		keys = append(keys, "E "+errorKey(e))
	}
	for _, w := range j.Warnings {
		keys = append(keys, "W "+w.String())
	}
	slices.Sort(keys)
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte('\n')
	}
	return b.String()
}
