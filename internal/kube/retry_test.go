package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var gr = schema.GroupResource{Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations"}

func TestTransient(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want bool
		wait time.Duration
	}{
		{"nil", nil, false, 0},
		{"429 with Retry-After", apierrors.NewTooManyRequests("slow down", 3), true, 3 * time.Second},
		{"429 without Retry-After", apierrors.NewTooManyRequests("slow down", 0), true, 0},
		{"500", apierrors.NewInternalError(errors.New("boom")), true, 0},
		{"503", apierrors.NewServiceUnavailable("etcd"), true, 0},
		{"504", apierrors.NewTimeoutError("etcd timeout", 0), true, 0},
		{"server timeout", apierrors.NewServerTimeout(gr, "patch", 2), true, 2 * time.Second},
		{"connection refused", fmt.Errorf("dial: %w", syscall.ECONNREFUSED), true, 0},
		{"connection reset", fmt.Errorf("read: %w", syscall.ECONNRESET), true, 0},
		{"unexpected EOF", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true, 0},
		{"TLS handshake timeout", errors.New("net/http: TLS handshake timeout"), true, 0},
		{"400", apierrors.NewBadRequest("no"), false, 0},
		{"401", apierrors.NewUnauthorized("who"), false, 0},
		{"403", apierrors.NewForbidden(gr, "x", errors.New("rbac")), false, 0},
		{"404", apierrors.NewNotFound(gr, "x"), false, 0},
		{"409", apierrors.NewConflict(gr, "x", errors.New("managers")), false, 0},
		{"422", apierrors.NewInvalid(schema.GroupKind{Kind: "MutatingWebhookConfiguration"}, "x", nil), false, 0},
		{"413 with a body that is no Status", apierrors.NewGenericServerResponse(413, "patch", gr, "x", "<html>413 Request Entity Too Large</html>", 0, true), false, 0},
		{"502 with a body that is no Status", apierrors.NewGenericServerResponse(502, "patch", gr, "x", "<html>Bad Gateway</html>", 0, true), true, 0},
		{"canceled", context.Canceled, false, 0},
		{"x509", errors.New("x509: certificate signed by unknown authority"), false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, wait := Transient(c.err)
			if got != c.want || wait != c.wait {
				t.Errorf("Transient = %v, %v; want %v, %v", got, wait, c.want, c.wait)
			}
		})
	}
}

func fastClient() (*Client, *int) {
	retries := 0
	c := &Client{Options: Options{Backoff: Backoff{Initial: time.Millisecond, Max: 4 * time.Millisecond}}}
	c.onRetry = func(int, error) { retries++ }
	return c, &retries
}

func TestRetryUntilSuccess(t *testing.T) {
	c, retries := fastClient()
	calls := 0
	err := c.retry(context.Background(), func(context.Context) error {
		calls++
		if calls < 4 {
			return apierrors.NewServiceUnavailable("busy")
		}
		return nil
	})
	if err != nil || calls != 4 || *retries != 3 {
		t.Fatalf("err=%v calls=%d retries=%d; want nil 4 3", err, calls, *retries)
	}
}

func TestNoRetryOnVerdict(t *testing.T) {
	c, retries := fastClient()
	calls := 0
	want := apierrors.NewForbidden(gr, "x", errors.New("rbac"))
	err := c.retry(context.Background(), func(context.Context) error { calls++; return want })
	if !errors.Is(err, want) || calls != 1 || *retries != 0 {
		t.Fatalf("err=%v calls=%d retries=%d", err, calls, *retries)
	}
}

func TestRetryGivesUpWhenTheContextEnds(t *testing.T) {
	c, _ := fastClient()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := c.retry(ctx, func(context.Context) error { return apierrors.NewTooManyRequests("busy", 0) })
	var re *RetryError
	if !errors.As(err, &re) || re.Attempts < 2 || !apierrors.IsTooManyRequests(err) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a RetryError wrapping the 429 and the deadline", err)
	}
}

func TestMayHaveWritten(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"connection reset", fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{"unexpected EOF", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true},
		{"500", apierrors.NewInternalError(errors.New("boom")), true},
		{"504", apierrors.NewTimeoutError("etcd timeout", 0), true},
		{"deadline during the request", fmt.Errorf("patch: %w", context.DeadlineExceeded), true},
		{"gave up after a 429", &RetryError{Attempts: 3, Last: apierrors.NewTooManyRequests("slow down", 1), Cause: context.DeadlineExceeded}, true},
		{"429", apierrors.NewTooManyRequests("slow down", 1), false},
		{"403", apierrors.NewForbidden(gr, "x", errors.New("rbac")), false},
		{"409", apierrors.NewConflict(gr, "x", errors.New("managers")), false},
		{"422", apierrors.NewInvalid(schema.GroupKind{Kind: "MutatingWebhookConfiguration"}, "x", nil), false},
		{"credential plugin", errors.New("getting credentials: exec: executable not found"), false},
		{"x509", errors.New("x509: certificate signed by unknown authority"), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := MayHaveWritten(c.err); got != c.want {
				t.Errorf("MayHaveWritten(%v) = %v; want %v", c.err, got, c.want)
			}
		})
	}
}

// With FailFast, a request that got no answer is not repeated; what the
// server answered (429, 5xx) still is.
func TestRetryFailFast(t *testing.T) {
	refused := fmt.Errorf("dial: %w", syscall.ECONNREFUSED)
	c, retries := fastClient()
	calls := 0
	err := c.retry(FailFast(context.Background()), func(context.Context) error { calls++; return refused })
	if !errors.Is(err, syscall.ECONNREFUSED) || calls != 1 || *retries != 0 {
		t.Errorf("refused with FailFast: err %v after %d calls, %d retries; want one call", err, calls, *retries)
	}

	c, retries = fastClient()
	calls = 0
	err = c.retry(FailFast(context.Background()), func(context.Context) error {
		calls++
		if calls < 3 {
			return apierrors.NewServiceUnavailable("etcd")
		}
		return nil
	})
	if err != nil || calls != 3 || *retries != 2 {
		t.Errorf("503 with FailFast: err %v after %d calls, %d retries; want success on the third", err, calls, *retries)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	c, retries = fastClient()
	if err := c.retry(ctx, func(context.Context) error { return refused }); err == nil || *retries == 0 {
		t.Errorf("refused without FailFast: err %v after %d retries; want retries until the deadline", err, *retries)
	}
}

// A request that fails because the time is up, before the context says so
// (client-go's rate limiter refuses to wait past the deadline, and a
// deadline can pass a moment before ctx.Err() reports it), is reported as
// the time running out, with the failures before it, like one that fails
// after the context ended.
func TestRetryOutOfTimeBeforeTheContextSaysSo(t *testing.T) {
	c, _ := fastClient()
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	unavailable := apierrors.NewServiceUnavailable("etcd")
	attempts := 0
	err := c.retry(ctx, func(context.Context) error {
		attempts++
		if attempts < 3 {
			return unavailable
		}
		return fmt.Errorf("client rate limiter Wait returned an error: %w", errors.New("rate: Wait(n=1) would exceed context deadline"))
	})
	var gaveUp *RetryError
	if !errors.As(err, &gaveUp) || gaveUp.Attempts != 3 || !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, unavailable) {
		t.Fatalf("got %v (%T), want a RetryError after 3 attempts, caused by the deadline, with the 503 as last failure", err, err)
	}

	past, cancelPast := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancelPast()
	if cause := outOfTime(past, errors.New("any failure")); !errors.Is(cause, context.DeadlineExceeded) {
		t.Fatalf("outOfTime with a past deadline = %v, want context.DeadlineExceeded", cause)
	}
	if cause := outOfTime(context.Background(), errors.New("rate: Wait(n=1) would exceed context deadline")); cause != nil {
		t.Fatalf("outOfTime without a deadline = %v, want nil", cause)
	}
}
