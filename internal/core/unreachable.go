package core

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

// A cluster that cannot be reached fails every check of a plan that reads it, for every
// resource, the same way. The plan says so once, on the first resource that meets the failure
// (whichever it is, so a plan of one resource says it too), with what was checked offline and
// what was not; the other resources of the plan go on without repeating it. The provider
// process serves one Terraform walk, and its client (one per provider configuration) is what
// the plan shares: what was said is kept per client and per class of failure (a refused
// connection and a certificate the client cannot verify are two).

// SummaryUnreachable is the summary of that one warning.
const SummaryUnreachable = "Plan checked without the cluster"

// unreachableSaid are, per client, the classes of failure said in this run.
var unreachableSaid PerClient[*sync.Map]

// Unreachable is the plan's one warning that the cluster of c cannot be reached, for err:
// given (first true) to the first caller of the run that meets err's class of failure, not to
// the next. ok is false when err is not such a failure: the server's answer about one object
// or kind (forbidden, not found, throttled), which each resource says itself.
func Unreachable(c *kube.Client, err error) (w warning.Warning, first, ok bool) {
	class, ok := unreachableClass(err)
	if !ok || c == nil {
		return w, false, ok
	}
	said := unreachableSaid.Get(c, func() (*sync.Map, bool) { return &sync.Map{}, true })
	if _, loaded := said.LoadOrStore(class, true); loaded {
		return w, false, true
	}
	return warning.Warning{Kind: warning.Unread, Summary: SummaryUnreachable, Message: unreachableMessage(c, err)}, true, true
}

// unreachableClass is the class of a failure to reach the cluster: the transport's error
// without the request's URL (net.OpError, url.Error: "dial tcp 127.0.0.1:6443: connect:
// connection refused"), a deadline, or credentials the server does not accept (401). An
// answer of the server about one request (any other status) is none, nor is an error of the
// client before it sent anything.
func unreachableClass(err error) (string, bool) {
	if err == nil {
		return "", false
	}
	if apierrors.IsUnauthorized(err) {
		return "unauthorized", true
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return "", false
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return op.Error(), true
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "deadline", true
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error(), true
	}
	// Anything else was never sent: client-go's own checks of a request (k8s.io/client-go
	// rest.(*Request).Do, "resource name may not be empty"), which the resource says itself.
	return "", false
}

// unreachableMessage says where, why, and what the plan did and did not check.
func unreachableMessage(c *kube.Client, err error) string {
	host := ""
	if h := c.Host(); h != "" {
		host = " at " + h
	}
	return fmt.Sprintf("The API server%s could not be reached, so the plan was checked offline only, for every resource of this provider "+
		"configuration (said once for the whole plan, on the first resource that met it):\n\n%s\n\n"+
		"Checked offline: the server's validation rules (for the Kubernetes version the provider is given or guesses), CEL compilation, "+
		"type checking against the built-in kinds, and the advice read from the configuration itself (lockout, timeouts, hints). "+
		"Not checked: the dry run on the server (its own verdict, other admission plugins), custom resources' schemas, "+
		"whether a binding's policy and params exist, webhooks' services, and the impact of policies on the objects the cluster runs. "+
		"Those show at apply. Set dry_run_on_plan = false in the provider to plan without the cluster.",
		host, Explain(err, "the admission kinds"))
}
