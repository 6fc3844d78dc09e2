package impact

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/live"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/matching"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/simulate"
)

// Verdict is what the server does with the next write of one existing object, for one
// policy and binding.
type Verdict struct {
	Resource  Resource
	Namespace string
	Name      string
	// Matched: the policy applies to the write (rules, selectors, match conditions).
	Matched bool
	// CannotTell says why the offline evaluation cannot know the answer; the other fields
	// are then not set.
	CannotTell string

	// Of a validating policy: Denied (the Deny action, or a failure that rejects), Warned
	// (the Warn action) and Audited (the Audit action), each with its messages.
	Denied, Warned, Audited bool
	Message                 string
	Warnings, Audit         []string

	// Of a mutating policy: the API paths of the fields it changes, and Denied when the
	// mutation rejects the write (Message says why).
	Changes []string
}

// Ref is the object as the report names it: namespace/name, or the name of a cluster-scoped
// object.
func (v Verdict) Ref() string {
	if v.Namespace == "" {
		return v.Name
	}
	return v.Namespace + "/" + v.Name
}

// unchangedUpdate is the request of the next write of obj, an UPDATE that leaves it as it is,
// as admission sees it.
func unchangedUpdate(obj *unstructured.Unstructured, r Resource) admission.Attributes {
	return admission.NewAttributesRecord(obj, obj, r.Kind, obj.GetNamespace(), obj.GetName(), r.GVR, "", admission.Update,
		&metav1.UpdateOptions{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "UpdateOptions"}}, false, writer)
}

// writer is the user of the evaluated writes: any user. A policy whose answer depends on the
// user is "cannot tell" (readsWriter).
var writer = &user.DefaultInfo{Name: simulate.DefaultUsername, Groups: []string{user.AllAuthenticated}}

// run is one impact: the cluster, what it read, and its deadline.
type run struct {
	c          *Cluster
	matcher    *matching.Matcher
	namespaces *matching.Live
	webhooks   []matching.Webhook
	// webhooksErr is why the mutating webhooks could not be read.
	webhooksErr error
	// mutators are the cluster's mutating admission policies, which change a write before
	// the validating policies see it; mutatorsErr is why they could not be read.
	mutators    []mutator
	mutatorsErr error
	// mutatorsUnknown says why the chain is not known: a part planned in the same run is known
	// only after apply.
	mutatorsUnknown string
	// covers are the mutators whose rules may match each resource; chained the writes as the
	// mutators leave them, by object.
	covers  map[string][]mutator
	chained map[string]chainedWrite
	params  *paramCache
}

func (c *Cluster) newRun(ctx context.Context, webhooks bool) (*run, error) {
	return c.newRunWith(ctx, webhooks, nil)
}

// newRunWith is newRun; with chain, the run's mutators are the chain with planned in place of
// its policy and binding (a mutating impact's, for the order of the mutating policies).
func (c *Cluster) newRunWith(ctx context.Context, webhooks bool, planned *MutatingPair) (*run, error) {
	ns := c.liveNamespaces(ctx)
	m, err := matching.New(matching.Config{Namespaces: ns})
	if err != nil {
		return nil, err
	}
	r := &run{c: c, matcher: m, namespaces: ns, params: &paramCache{c: c, got: map[string]*live.Params{}}}
	if webhooks {
		r.webhooks, r.webhooksErr = c.mutatingWebhooks(ctx)
	}
	if webhooks || planned != nil {
		r.mutators, r.mutatorsUnknown, r.mutatorsErr = c.chain(ctx, planned)
	}
	return r, nil
}

// namespaceOf is the live namespace of obj, nil for a cluster-scoped one; an error when it is
// not among those read.
func (r *run) namespaceOf(obj *unstructured.Unstructured) (*corev1.Namespace, error) {
	if obj.GetNamespace() == "" {
		return nil, nil
	}
	ns, err := r.namespaces.Lister().Get(obj.GetNamespace())
	if err != nil {
		if r.namespaces.Incomplete() != nil {
			return nil, fmt.Errorf("its namespace was not read: %w", r.namespaces.Incomplete())
		}
		return nil, err
	}
	return ns, nil
}

// webhookFirst names the mutating webhook that sees the write of attr before the validating
// policies, "" for none: what it answers is not known offline.
func (r *run) webhookFirst(ctx context.Context, attr admission.Attributes) string {
	if r.webhooksErr != nil {
		return "the mutating webhook configurations, which see the write first, could not be read: " + r.webhooksErr.Error()
	}
	for _, h := range r.webhooks {
		if a := r.matcher.Webhook(ctx, h, attr); a.Outcome != matching.NotCalled {
			return fmt.Sprintf("the mutating webhook %q sees the write first, and what it answers is not known offline", h.Name())
		}
	}
	return ""
}

// validating is a validating policy and binding ready to evaluate.
type validating struct {
	policy  *admissionregistrationv1.ValidatingAdmissionPolicy
	binding *admissionregistrationv1.ValidatingAdmissionPolicyBinding
	// writer is what the policy reads of the writer, "" for nothing.
	writer string
}

func newValidating(p *admissionregistrationv1.ValidatingAdmissionPolicy, b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) *validating {
	var exprs []string
	for _, c := range p.Spec.MatchConditions {
		exprs = append(exprs, c.Expression)
	}
	for _, v := range p.Spec.Variables {
		exprs = append(exprs, v.Expression)
	}
	for _, v := range p.Spec.Validations {
		exprs = append(exprs, v.Expression, v.MessageExpression)
	}
	for _, a := range p.Spec.AuditAnnotations {
		exprs = append(exprs, a.ValueExpression)
	}
	return &validating{policy: p, binding: b, writer: readsWriter(exprs...)}
}

// evaluate is the verdict of v on the next write of obj, as the mutating admission policies
// leave it; where their order changes the verdict, the object is apart, with the orders named.
func (r *run) evaluate(ctx context.Context, v *validating, obj *unstructured.Unstructured, res Resource) Verdict {
	writes, why := []writtenAs{{object: obj}}, ""
	if len(r.mutators) > 0 || r.mutatorsErr != nil {
		writes, why = r.written(ctx, obj, res)
	}
	if why != "" {
		out := Verdict{Resource: res, Namespace: obj.GetNamespace(), Name: obj.GetName()}
		switch a := r.matcher.PolicyResources(unchangedUpdate(obj, res), v.policy.Spec.MatchConstraints, v.binding.Spec.MatchResources); a.Outcome {
		case matching.NotCalled:
			return out
		case matching.Failed:
			out.Matched, out.CannotTell = true, "matching it failed: "+a.Err.Error()
			return out
		}
		out.Matched, out.CannotTell = true, why
		return out
	}
	first := r.evaluateWritten(ctx, v, obj, writes[0].object, res)
	if len(writes) == 1 {
		return first
	}
	var orders []string
	differ := false
	for i, w := range writes {
		got := first
		if i > 0 {
			got = r.evaluateWritten(ctx, v, obj, w.object, res)
			differ = differ || got.CannotTell != "" || first.CannotTell != "" || got.Matched != first.Matched ||
				got.Denied != first.Denied || got.Warned != first.Warned || got.Audited != first.Audited
			first.Matched = first.Matched || got.Matched
		}
		orders = append(orders, fmt.Sprintf("%s after %s", got.outcomeWord(), w.ordersText()))
	}
	if differ {
		first.Matched = true
		first.CannotTell = "its verdict depends on the order the server runs the mutating admission policies in, which it does not fix: " +
			strings.Join(orders, "; ")
	}
	return first
}

// outcomeWord is the verdict in a word or two: "denied", "warned", "audited", "admitted".
func (v Verdict) outcomeWord() string {
	switch {
	case v.CannotTell != "":
		return "not known (" + v.CannotTell + ")"
	case v.Denied:
		return "denied"
	case v.Warned:
		return "warned"
	case v.Audited:
		return "audited"
	}
	return "admitted"
}

// evaluateWritten is the verdict of v on the write of obj that the mutating policies turned into
// written.
func (r *run) evaluateWritten(ctx context.Context, v *validating, obj, written *unstructured.Unstructured, res Resource) Verdict {
	out := Verdict{Resource: res, Namespace: obj.GetNamespace(), Name: obj.GetName()}
	attr := unchangedUpdate(obj, res)
	if written != obj {
		attr = admission.NewAttributesRecord(written, obj, res.Kind, obj.GetNamespace(), obj.GetName(), res.GVR, "", admission.Update,
			&metav1.UpdateOptions{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "UpdateOptions"}}, false, writer)
	}
	switch a := r.matcher.PolicyResources(attr, v.policy.Spec.MatchConstraints, v.binding.Spec.MatchResources); a.Outcome {
	case matching.NotCalled:
		return out
	case matching.Failed:
		out.Matched, out.CannotTell = true, "matching it failed: "+a.Err.Error()
		return out
	}
	out.Matched = true
	if why := r.webhookFirst(ctx, attr); why != "" {
		out.CannotTell = why
		return out
	}
	ns, err := r.namespaceOf(obj)
	if err != nil {
		out.CannotTell = err.Error()
		return out
	}
	params, err := r.params.of(ctx, v.policy.Spec.ParamKind, v.binding.Spec.ParamRef, obj.GetNamespace())
	if err != nil {
		out.CannotTell = err.Error()
		return out
	}
	req := &simulate.Request{Operation: admission.Update, Object: written, OldObject: obj, Kind: res.Kind, Resource: res.GVR,
		Name: obj.GetName(), Namespace: ns, UserInfo: writer, Params: params}
	var answer *simulate.ValidateResult
	if v.writer == "" {
		answer, err = simulate.Validate(ctx, v.policy, v.binding, req)
	} else {
		// The writer left unknown: only the objects whose verdict turns on it are apart.
		var depends bool
		answer, depends, err = simulate.ValidateWriterUnknown(ctx, v.policy, v.binding, req)
		if err == nil && depends {
			out.CannotTell = "the policy's verdict on them turns on " + v.writer + ", and who writes the object next is not known"
			return out
		}
	}
	if err != nil {
		out.CannotTell = err.Error()
		return out
	}
	if !answer.Matched {
		out.Matched = false
		return out
	}
	out.Denied = !answer.Allowed
	if out.Denied {
		out.Message = trimPrefixes(answer.Message)
	}
	for _, w := range answer.Warnings {
		out.Warnings = append(out.Warnings, trimPrefixes(w))
	}
	out.Warned = len(out.Warnings) > 0
	out.Audit = auditMessages(answer.AuditAnnotations)
	out.Audited = len(out.Audit) > 0
	return out
}

// trimPrefixes drops from a message of the server what the report says already: which
// policy and binding ("ValidatingAdmissionPolicy 'p' with binding 'b' denied request: ",
// "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': ", as
// k8s.io/apiserver pkg/admission/plugin/policy/validating's dispatcher words them).
func trimPrefixes(msg string) string {
	for _, sep := range []string{" denied request: ", "' with binding '"} {
		i := strings.Index(msg, sep)
		if i < 0 {
			continue
		}
		rest := msg[i+len(sep):]
		if sep == "' with binding '" {
			if j := strings.Index(rest, "': "); j >= 0 {
				return rest[j+3:]
			}
			continue
		}
		return rest
	}
	return msg
}

// auditFailureKey is the audit annotation the Audit action writes
// (k8s.io/apiserver pkg/admission/plugin/policy/validating ValidationFailureAuditAnnotation).
const auditFailureKey = "validation.policy.admission.k8s.io/validation_failure"

// auditMessages are the messages of the validation failures the Audit action records.
func auditMessages(annotations map[string]string) []string {
	raw, ok := annotations[auditFailureKey]
	if !ok {
		return nil
	}
	var failures []struct {
		Message string `json:"message"`
	}
	if err := json.Unmarshal([]byte(raw), &failures); err != nil {
		return []string{raw}
	}
	var out []string
	for _, f := range failures {
		out = append(out, f.Message)
	}
	return out
}

// objectSelectors are the object selectors of match resources, as one list selector: the
// objects a list need read (both must select an object for the policy to apply). Nothing when
// a selector cannot be read (the matcher then says why of each object).
func objectSelectors(mrs ...*admissionregistrationv1.MatchResources) string {
	sel := labels.Everything()
	for _, mr := range mrs {
		if mr == nil || mr.ObjectSelector == nil {
			continue
		}
		s, err := metav1.LabelSelectorAsSelector(mr.ObjectSelector)
		if err != nil {
			return ""
		}
		reqs, selectable := s.Requirements()
		if !selectable {
			return ""
		}
		sel = sel.Add(reqs...)
	}
	return sel.String()
}
