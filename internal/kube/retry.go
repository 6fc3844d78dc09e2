package kube

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/http2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// Every request the provider makes is safe to repeat: reads, server-side
// apply (applying the same configuration twice stores the same object) and
// delete (a second delete finds nothing, which is success). So each is
// retried on transient failures until its context ends.

// Backoff is the retry schedule: exponential from Initial, capped at Max,
// with up to Jitter (a fraction) added at random.
type Backoff struct {
	Initial, Max time.Duration
	Jitter       float64
}

// DefaultBackoff is used when Options.Backoff is zero.
var DefaultBackoff = Backoff{Initial: 250 * time.Millisecond, Max: 8 * time.Second, Jitter: 0.5}

// retry runs fn until it succeeds, fails in a way retrying cannot fix, or
// ctx ends. It returns the last error, wrapped with the attempt count when
// the context ended first.
func (c *Client) retry(ctx context.Context, fn func(context.Context) error) error {
	b := c.Backoff
	if b.Initial == 0 {
		b = DefaultBackoff
	}
	delay := b.Initial
	var lastTransient error
	for attempt := 1; ; attempt++ {
		err := fn(ctx)
		if cause := outOfTime(ctx, err); cause != nil {
			// The time ran out during a request: say so, with the failure
			// that kept the requests from working.
			if lastTransient == nil {
				lastTransient = err
			}
			return &RetryError{Attempts: attempt, Last: lastTransient, Cause: cause}
		}
		transient, wait := Transient(err)
		if err == nil || !transient || (failsFast(ctx) && !answered(err)) {
			return err
		}
		lastTransient = err
		if wait < delay {
			wait = delay
		}
		wait += time.Duration(rand.Float64() * b.Jitter * float64(wait))
		if c.onRetry != nil {
			c.onRetry(attempt, err)
		}
		select {
		case <-ctx.Done():
			return &RetryError{Attempts: attempt, Last: err, Cause: ctx.Err()}
		case <-time.After(wait):
		}
		delay = min(2*delay, b.Max)
	}
}

// outOfTime is why a request that failed with err could not be made in the
// time ctx allows, or nil if that is not why it failed: ctx has ended; or its
// deadline has passed but its Done channel has not closed yet; or client-go's
// rate limiter refused to wait past the deadline for its turn
// (golang.org/x/time/rate.Limiter.Wait, "would exceed context deadline"),
// which it does before ctx ends.
func outOfTime(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if cause := ctx.Err(); cause != nil {
		return cause
	}
	if deadline, ok := ctx.Deadline(); ok && !time.Now().Before(deadline) {
		return context.DeadlineExceeded
	}
	if _, ok := ctx.Deadline(); ok && strings.Contains(err.Error(), "would exceed context deadline") {
		return context.DeadlineExceeded
	}
	return nil
}

type failFastKey struct{}

// FailFast marks ctx for requests that give up at once when no answer comes
// back (connection refused, reset or timed out), and retry only what the
// server answered (429, 5xx): a plan does not wait for a cluster that is
// down.
func FailFast(ctx context.Context) context.Context {
	return context.WithValue(ctx, failFastKey{}, true)
}

func failsFast(ctx context.Context) bool { return ctx.Value(failFastKey{}) != nil }

// answered reports whether err is the server's answer, not a failure to get
// one.
func answered(err error) bool {
	var status apierrors.APIStatus
	return errors.As(err, &status)
}

// RetryError is a transient failure that lasted longer than the operation's
// time allowed.
type RetryError struct {
	Attempts int
	Last     error
	Cause    error
}

func (e *RetryError) Error() string {
	return "gave up after " + strconv.Itoa(e.Attempts) + " attempts (" + e.Cause.Error() + "); last error: " + e.Last.Error()
}

func (e *RetryError) Unwrap() []error { return []error{e.Last, e.Cause} }

// Transient reports whether err may go away if the request is repeated, and
// how long the server asked to wait, if it did.
func Transient(err error) (bool, time.Duration) {
	if err == nil {
		return false, 0
	}
	if d, ok := apierrors.SuggestsClientDelay(err); ok && (apierrors.IsTooManyRequests(err) || apierrors.IsServerTimeout(err) || apierrors.IsServiceUnavailable(err)) {
		return true, time.Duration(d) * time.Second
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		if code := status.Status().Code; code >= 400 && code < 500 && code != 429 && code != 408 {
			// A verdict, also when its body is not a Status (client-go's
			// errors.NewGenericServerResponse, apierrors.IsUnexpectedServerError):
			// a proxy's 413 page, 400, 401, 403, 404, 409, 422 and the like fail at once.
			return false, 0
		}
	}
	switch {
	case apierrors.IsTooManyRequests(err), apierrors.IsServerTimeout(err), apierrors.IsTimeout(err),
		apierrors.IsServiceUnavailable(err), apierrors.IsInternalError(err), apierrors.IsUnexpectedServerError(err):
		return true, 0
	}
	if errors.As(err, &status) {
		code := status.Status().Code
		return code == 500 || code == 502 || code == 503 || code == 504, 0
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false, 0
	}
	if utilnet.IsConnectionRefused(err) || utilnet.IsConnectionReset(err) || utilnet.IsProbableEOF(err) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return true, 0
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return true, 0
	}
	var streamErr http2.StreamError
	if errors.As(err, &streamErr) {
		return true, 0
	}
	msg := err.Error()
	return strings.Contains(msg, "stream error") || strings.Contains(msg, "TLS handshake timeout") || strings.Contains(msg, "http2: client connection lost") ||
		strings.Contains(msg, "connection reset by peer") || strings.Contains(msg, "broken pipe"), 0
}

// MayHaveWritten reports whether a write that failed with err may all the
// same have been stored: the request went out and no verdict came back (a
// dropped connection, a timeout, a 5xx), or the provider gave up after
// several attempts, any of which may have landed. An answer in the 4xx range
// (invalid, forbidden, conflict, too many requests) and a failure before
// sending (credentials, TLS) say that nothing was written.
func MayHaveWritten(err error) bool {
	var gaveUp *RetryError
	if errors.As(err, &gaveUp) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return true
	}
	transient, _ := Transient(err)
	return transient && !apierrors.IsTooManyRequests(err)
}
