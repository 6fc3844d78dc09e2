// Package warning is what the plan warns about: a configuration the API server accepts, with
// what it will do or what will hurt, at the API field path to change. The server's rules
// (internal/validation) give the server's own warnings; the advice (internal/advice) and the
// families (internal/policy's type checking and bindings) give the rest. Each warning has a
// Kind, so that callers tell them apart by what they are, never by their words.
package warning

import "k8s.io/apimachinery/pkg/util/validation/field"

// Warning is advice about a configuration the server accepts. Path is a server field path, as
// in validation's errors, so the same mapping finds its attribute. Summary is the headline,
// one per sort of warning, so that Terraform folds only warnings of the same sort together.
type Warning struct {
	Path    *field.Path
	Kind    Kind
	Summary string
	Message string
	// Gated: the configuration asks that this fail the plan (a binding's gate on its impact),
	// so it is reported as an error.
	Gated bool
}

// String gives the warning as the server prints its own: "<path>: <message>".
func (w Warning) String() string {
	if w.Path == nil {
		return w.Message
	}
	return w.Path.String() + ": " + w.Message
}

// Kind is what a warning is about.
type Kind int

const (
	// Server is a warning the API server itself gives when it accepts the object (a reserved
	// name, a rule naming a resource no webhook sees).
	Server Kind = iota + 1
	// Lockout: a fail-closed webhook or policy intercepts requests that keep the cluster
	// alive (kube-system's workloads, the nodes' heartbeats, kube-apiserver's own writes, a
	// webhook's own backend).
	Lockout
	// Timeout: the timeouts of fail-closed webhooks called one after another for one request
	// add up to the request's deadline.
	Timeout
	// Hint: a value the server stores that will not work as written (a caBundle that is not
	// PEM, a reinvoked webhook with side effects, a JSON patch path that is not a pointer).
	Hint
	// TypeCheck: kube-apiserver's type checker finds an expression that does not fit the
	// schemas of the kinds the policy matches.
	TypeCheck
	// Reference: what a binding refers to is missing in the cluster or incomplete (a policy
	// that does not exist, a param_ref the policy needs).
	Reference
	// Impact: what a planned policy would do to the objects the cluster already runs, on
	// their next write (internal/impact).
	Impact
	// Outage: what the object needs in the cluster is not there, so that the requests it
	// matches are rejected until it is (a fail-closed webhook's service with no ready
	// endpoint, the params of a binding whose parameterNotFoundAction is Deny).
	Outage
	// Bypass: requests the object is meant to see go around it (matchPolicy Exact on a
	// resource the cluster serves at other versions too).
	Bypass
	// Unread: a check that reads the cluster could not read what it needed (forbidden, slow,
	// too many objects): it says what it could not see and makes no claim.
	Unread
	// Certificate: a certificate the API server needs to call a webhook does not serve: a
	// ca_bundle certificate that has expired, is not valid yet or expires soon; a backend's
	// serving certificate that the ca_bundle does not verify (unknown authority, wrong name,
	// expired); a cert-manager Certificate that is not ready or not renewed in time.
	Certificate
)

// Intercepts reports whether the warning weighs what the object intercepts: its rules,
// selectors, match conditions and timeouts together (Lockout, Timeout), so that it says nothing
// while one of those is not known.
func (k Kind) Intercepts() bool { return k == Lockout || k == Timeout }

func (k Kind) String() string {
	switch k {
	case Server:
		return "server"
	case Lockout:
		return "lockout"
	case Timeout:
		return "timeout"
	case Hint:
		return "hint"
	case TypeCheck:
		return "type check"
	case Reference:
		return "reference"
	case Impact:
		return "impact"
	case Outage:
		return "outage"
	case Bypass:
		return "bypass"
	case Unread:
		return "unread"
	case Certificate:
		return "certificate"
	}
	return "unknown"
}
