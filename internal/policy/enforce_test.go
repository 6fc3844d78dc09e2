package policy

import (
	"errors"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/core"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/impact"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/metadata"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfconv"
)

// The server's answers, as the validating dispatcher words them (k8s.io/apiserver
// pkg/admission/plugin/policy/validating, dispatcher.go), against what each probe must show.
func TestProbeShows(t *testing.T) {
	denied := errors.New(`deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: at most 2 replicas`)
	other := errors.New(`deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'other' denied request: no`)
	warned := []string{"Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': at most 2 replicas"}
	for _, tc := range []struct {
		name     string
		want     effect
		err      error
		warnings []string
		shows    bool
	}{
		{"denied by the pair", mustDeny, denied, nil, true},
		{"denied by another binding", mustDeny, other, nil, false},
		{"admitted, not denied yet", mustDeny, nil, nil, false},
		{"warned by the pair", mustWarn, nil, warned, true},
		{"admitted without warning", mustWarn, nil, nil, false},
		{"no longer denied: admitted", mustAdmit, nil, nil, true},
		{"no longer denied: another binding denies", mustAdmit, other, nil, true},
		{"still denied by the pair", mustAdmit, denied, nil, false},
		{"no longer denied? a webhook refuses the dry run", mustAdmit, errors.New("admission webhook \"w\" does not support dry run"), nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := probe{policy: "p", binding: "b", name: "web", want: tc.want}
			if got := p.shows(tc.err, tc.warnings); got != tc.shows {
				t.Errorf("shows = %v, want %v", got, tc.shows)
			}
		})
	}
}

// A fresh pair proves itself by its denials and warnings; a changed one only by its flips.
func TestAddProbes(t *testing.T) {
	c := &kube.Client{}
	env := core.PlanEnv{Client: c}
	v := func(name string) impact.Verdict { return impact.Verdict{Namespace: "ns", Name: name, Matched: true} }
	res := &impact.Result{Policy: "p", Binding: "b",
		Denied:      impact.Tally{Count: 5, First: []impact.Verdict{v("d1"), v("d2"), v("d3"), v("d4")}},
		Warned:      impact.Tally{Count: 1, First: []impact.Verdict{v("w1")}},
		NewlyDenied: impact.Tally{Count: 1, First: []impact.Verdict{v("n1")}},
	}
	taken := func() []probe {
		v, _ := probesOf(c).LoadAndDelete("K/x")
		ps, _ := v.([]probe)
		return ps
	}
	planProbes(env, "K", "x")
	addProbes(env, "K", "x", res, true)
	ps := taken()
	if len(ps) != probesKept+1 || ps[0].name != "d1" || ps[0].want != mustDeny || ps[probesKept].name != "w1" || ps[probesKept].want != mustWarn {
		t.Errorf("fresh pair: probes %v, want the first %d denied and the warned", ps, probesKept)
	}
	addProbes(env, "K", "x", res, false)
	if ps := taken(); len(ps) != 1 || ps[0].name != "n1" || ps[0].want != mustDeny {
		t.Errorf("changed pair: probes %v, want the newly denied one", ps)
	}
	addProbes(env, "K", "x", res, true)
	planProbes(env, "K", "x")
	if ps := taken(); len(ps) != 0 {
		t.Errorf("a new plan keeps the probes of the last: %v", ps)
	}
}

// The gate goes to the cluster with the binding, and reads back from the state, off when the
// cluster does not record it.
func TestGate(t *testing.T) {
	var m validatingBindingModel
	m.FailOnExistingDenials = types.BoolValue(true)
	obj := &validatingBinding{}
	validatingBindings.Expand(&tfconv.Expander{}, &m, obj)
	if !gateRecorded(obj) {
		t.Fatalf("the binding with the gate on expands without %s: %v", metadata.GateAnnotation, obj.Annotations)
	}
	if got := gateRead(obj, &m); !got.ValueBool() {
		t.Errorf("read with the gate recorded: %v, want true", got)
	}
	if got := gateRead(&validatingBinding{}, &m); got.IsNull() || got.ValueBool() {
		t.Errorf("read without the annotation, the gate on in the state: %v, want false", got)
	}
	if got := gateRead(obj, nil); !got.IsNull() {
		t.Errorf("read without a prior state: %v, want null", got)
	}
	m.FailOnExistingDenials = types.BoolNull()
	obj = &validatingBinding{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"team": "a"}}}
	validatingBindings.Expand(&tfconv.Expander{}, &m, obj)
	if gateRecorded(obj) || obj.Annotations["team"] != "a" {
		t.Errorf("the binding without the gate expands with annotations %v", obj.Annotations)
	}
	if _, own := metadata.Own(metav1.ObjectMeta{Annotations: map[string]string{metadata.GateAnnotation: "true"}}); len(own) != 0 {
		t.Errorf("an import reads the gate's annotation into metadata.annotations: %v", own)
	}
}
