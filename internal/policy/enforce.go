package policy

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/core"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/impact"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
)

// Enforced when the apply returns: kube-apiserver does not enforce an admission policy or
// binding when it stores it. Its policy source (k8s.io/apiserver
// pkg/admission/plugin/policy/generic, policySource.Run and refreshPolicies) marks its list
// dirty when its informers see a policy or binding change, and builds the list again in a
// loop every second (policyRefreshIntervalDefault); until then the server admits with the
// list it had. So the apply of each of the four kinds waits, after the write, until the
// server enforces what was written (wait_for_enforcement, on by default), within the
// resource's timeout:
//
//   - Proven through the server where the plan gave a write the change must act on: the plan
//     made at apply (Terraform plans each resource again just before it applies it, in the
//     same provider process) found existing objects that the pair now denies, warns on, or no
//     longer denies (the impact, impact.Result). Their unchanged UPDATE, the write the impact
//     evaluated, is sent as a server dry run (it goes through admission, and stores nothing)
//     until the server's answer names the pair as the plan said: denied with "ValidatingAdmissionPolicy
//     'p' with binding 'b' denied request" (the validating dispatcher's message), warned with
//     "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b'", or no longer
//     denied by it. A pair that was not in force before (a new binding or policy) proves
//     itself by any denial or warning; a changed one only by a flip.
//   - Otherwise (no such object: a binding whose policy matches nothing that exists yet, a
//     mutating policy, a change the existing objects do not show, a probe the credentials may
//     not send), by the server's reload period with a margin: reloadWait after the write.
//   - Not at all for half a pair: a policy that no binding in the cluster applies, a binding
//     whose policy is not there. The server enforces nothing of it, and the write of the
//     other half (the binding created after its policy) waits for both: the list the server
//     loads after that write has both.
//
// An HA cluster has several API servers, each with its own informers and reload loop: the
// dry run proves the change in force on the server that answered it; the others load it on
// the same schedule, which only the reload wait covers.

const (
	// reloadWait is the server's reload period (policyRefreshIntervalDefault, 1 s) with a
	// margin for the informer's delay and the compilation of the list.
	reloadWait = 3 * time.Second
	// probeEvery is how often a probe is sent again while it does not prove yet.
	probeEvery = 100 * time.Millisecond
	// probesKept is how many objects of each sort a pair's impact gives as probes.
	probesKept = 3
)

// The kinds whose plans give probes, as the probes are recorded (kind/name).
var (
	kindValidatingPolicy  = kube.ValidatingAdmissionPolicies.Name
	kindValidatingBinding = kube.ValidatingAdmissionPolicyBindings.Name
)

// effect is what a probe's dry run must show.
type effect int

const (
	mustDeny effect = iota
	mustWarn
	mustAdmit // no longer denied by the pair
)

func (e effect) String() string {
	return [...]string{"denied", "warned", "no longer denied"}[e]
}

// probe is one existing object whose unchanged update must show what the written pair does.
type probe struct {
	resource        impact.Resource
	namespace, name string
	policy, binding string
	want            effect
}

func (p probe) String() string {
	ref := p.name
	if p.namespace != "" {
		ref = p.namespace + "/" + p.name
	}
	return fmt.Sprintf("%s %s %s by ValidatingAdmissionPolicy %q with binding %q", p.resource, ref, p.want, p.policy, p.binding)
}

// probes are the probes the last plan of each object gave, by client and then by kind/name:
// the plan made at apply records them, the apply that follows takes them.
var probes core.PerClient[*sync.Map]

func probesOf(c *kube.Client) *sync.Map {
	return probes.Get(c, func() (*sync.Map, bool) { return &sync.Map{}, true })
}

// planProbes starts the probes of the object kind/name planned in env: none so far.
func planProbes(env core.PlanEnv, kind, name string) {
	if env.Client != nil {
		probesOf(env.Client).Delete(kind + "/" + name)
	}
}

// addProbes adds the probes of the impact res of the object kind/name planned in env: fresh
// when the pair was not in force before (no live pair to flip from).
func addProbes(env core.PlanEnv, kind, name string, res *impact.Result, fresh bool) {
	if env.Client == nil || res == nil {
		return
	}
	var ps []probe
	add := func(t impact.Tally, want effect) {
		for i, v := range t.First {
			if i == probesKept {
				break
			}
			if v.CannotTell == "" {
				ps = append(ps, probe{resource: v.Resource, namespace: v.Namespace, name: v.Name, policy: res.Policy, binding: res.Binding, want: want})
			}
		}
	}
	if fresh {
		add(res.Denied, mustDeny)
		add(res.Warned, mustWarn)
	} else {
		add(res.NewlyDenied, mustDeny)
		add(res.NoLongerDenied, mustAdmit)
	}
	if len(ps) == 0 {
		return
	}
	m := probesOf(env.Client)
	key := kind + "/" + name
	if v, ok := m.Load(key); ok {
		if prev, ok := v.([]probe); ok {
			ps = append(prev, ps...)
		}
	}
	m.Store(key, ps)
}

// afterWrite is the AfterWrite of every kind of the family: the wait until the server
// enforces the object kind/name just written.
func afterWrite[T any](kind string, meta func(*T) *metav1.ObjectMeta) func(ctx context.Context, c *kube.Client, obj *T) diag.Diagnostics {
	return func(ctx context.Context, c *kube.Client, obj *T) diag.Diagnostics {
		if c == nil || !c.WaitForEnforcement {
			return nil
		}
		name := meta(obj).Name
		if ok, err := paired(ctx, c, obj); err == nil && !ok {
			// A policy that no binding applies, or a binding whose policy is not there:
			// the server enforces nothing of it yet, and the write that completes the pair
			// waits for both.
			tflog.Debug(ctx, "nothing to wait for: the object has no counterpart in the cluster", map[string]any{"kind": kind, "name": name})
			return nil
		}
		return waitEnforced(ctx, c, kind, name)
	}
}

// paired reports whether the cluster has the other half of obj's pair: a binding of the
// policy obj, the policy of the binding obj.
func paired(ctx context.Context, c *kube.Client, obj any) (bool, error) {
	switch o := obj.(type) {
	case *validatingPolicy:
		bs, err := kube.For(c, kube.ValidatingAdmissionPolicyBindings).List(ctx, "")
		return slices.ContainsFunc(bs, func(b validatingBinding) bool { return b.Spec.PolicyName == o.Name }), err
	case *validatingBinding:
		p, err := kube.For(c, kube.ValidatingAdmissionPolicies).Get(ctx, o.Spec.PolicyName)
		return p != nil, err
	case *mutatingPolicy:
		bs, err := kube.For(c, kube.MutatingAdmissionPolicyBindings).List(ctx, "")
		return slices.ContainsFunc(bs, func(b mutatingBinding) bool { return b.Spec.PolicyName == o.Name }), err
	case *mutatingBinding:
		p, err := kube.For(c, kube.MutatingAdmissionPolicies).Get(ctx, o.Spec.PolicyName)
		return p != nil, err
	}
	return true, nil
}

// waitEnforced waits until the server enforces the object kind/name just written: proven by
// a probe, else the reload wait.
func waitEnforced(ctx context.Context, c *kube.Client, kind, name string) diag.Diagnostics {
	var diags diag.Diagnostics
	written := time.Now()
	until := written.Add(reloadWait)
	var ps []probe
	if v, ok := probesOf(c).LoadAndDelete(kind + "/" + name); ok {
		ps, _ = v.([]probe)
	}
	if len(ps) > 0 {
		proof, err := prove(ctx, c, ps, until)
		if proof != "" {
			tflog.Info(ctx, "the server enforces the object: a dry run shows it", map[string]any{
				"kind": kind, "name": name, "proof": proof, "waited": time.Since(written).String()})
			return nil
		}
		tflog.Info(ctx, "no probe proved the object in force; waiting for the server's reload period", map[string]any{
			"kind": kind, "name": name, "probes": len(ps), "last": fmt.Sprint(err)})
	}
	timer := time.NewTimer(time.Until(until))
	defer timer.Stop()
	select {
	case <-timer.C:
		tflog.Info(ctx, "waited the server's reload period", map[string]any{"kind": kind, "name": name, "waited": time.Since(written).String()})
	case <-ctx.Done():
		diags.AddWarning(kind+" written, not known to be enforced yet",
			fmt.Sprintf("The %s %q is written, but the timeout ran out before the API server's reload period (%s, with a margin) had passed: "+
				"it may not be in force yet. kube-apiserver loads admission policies and bindings again about once a second after they change.",
				kind, name, reloadWait))
	}
	return diags
}

// prove sends the probes' dry runs until one shows what it must (its description) or until;
// the last reason none did when none does.
func prove(ctx context.Context, c *kube.Client, ps []probe, until time.Time) (string, error) {
	var (
		mu       sync.Mutex
		warnings []string
	)
	dyn, err := c.DynamicWithWarnings(func(_ context.Context, text string) {
		mu.Lock()
		defer mu.Unlock()
		warnings = append(warnings, text)
	})
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithDeadline(ctx, until)
	defer cancel()
	objects := map[int]*unstructured.Unstructured{}
	var last error
	for {
		for i := range ps {
			p := &ps[i]
			if p.name == "" {
				continue // dropped
			}
			mu.Lock()
			warnings = warnings[:0]
			mu.Unlock()
			ok, err := p.send(ctx, dyn, objects, i)
			if ok {
				return p.String(), nil
			}
			if err == nil {
				mu.Lock()
				ok = p.shows(nil, warnings)
				mu.Unlock()
				if ok {
					return p.String(), nil
				}
				continue
			}
			last = err
			if errors.Is(err, errUnusable) {
				p.name = ""
			}
		}
		if ctx.Err() != nil || allDropped(ps) {
			return "", last
		}
		select {
		case <-ctx.Done():
			return "", last
		case <-time.After(probeEvery):
		}
	}
}

// errUnusable marks a probe that cannot prove anything: its object is gone, or the server
// answers its dry run with what is not the pair's (the credentials may not update it, a
// webhook with side effects refuses dry runs).
var errUnusable = errors.New("the probe cannot prove")

func allDropped(ps []probe) bool {
	for _, p := range ps {
		if p.name != "" {
			return false
		}
	}
	return true
}

// send sends the unchanged update of p's object as a server dry run: ok when the answer is an
// error that shows what p must; a nil error when it admitted (the caller judges the
// warnings).
func (p *probe) send(ctx context.Context, dyn dynamic.Interface, objects map[int]*unstructured.Unstructured, i int) (ok bool, err error) {
	var ri dynamic.ResourceInterface = dyn.Resource(p.resource.GVR)
	if p.namespace != "" {
		ri = dyn.Resource(p.resource.GVR).Namespace(p.namespace)
	}
	obj := objects[i]
	if obj == nil {
		obj, err = ri.Get(ctx, p.name, metav1.GetOptions{})
		if err != nil {
			if apierrors.IsNotFound(err) || apierrors.IsForbidden(err) {
				return false, fmt.Errorf("%w: %s: %v", errUnusable, p, err)
			}
			return false, err
		}
		objects[i] = obj
	}
	_, err = ri.Update(ctx, obj, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
	switch {
	case err == nil:
		return false, nil
	case apierrors.IsConflict(err):
		delete(objects, i) // changed since: read again
		return false, err
	case p.shows(err, nil):
		return true, nil
	case strings.Contains(err.Error(), "ValidatingAdmissionPolicy '"):
		return false, err // another policy's answer, or the pair's as it was: not yet
	case apierrors.IsNotFound(err) || apierrors.IsForbidden(err) || apierrors.IsBadRequest(err) || apierrors.IsInvalid(err):
		return false, fmt.Errorf("%w: %s: %v", errUnusable, p, err)
	}
	return false, err
}

// shows reports whether the answer to p's dry run (its error, or the warnings of a write it
// admitted) shows what p must.
func (p *probe) shows(err error, warnings []string) bool {
	pair := fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s'", p.policy, p.binding)
	switch p.want {
	case mustDeny:
		return err != nil && strings.Contains(err.Error(), pair+" denied request")
	case mustWarn:
		for _, w := range warnings {
			if strings.Contains(w, "Validation failed for "+pair) {
				return true
			}
		}
		return false
	default: // mustAdmit: admitted, or denied by another policy's admission answer only
		return err == nil || strings.Contains(err.Error(), "ValidatingAdmissionPolicy '") && !strings.Contains(err.Error(), pair+" denied request")
	}
}
