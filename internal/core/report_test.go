package core

import (
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestIsVerdict(t *testing.T) {
	gr := schema.GroupResource{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicies"}
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"422 Invalid", apierrors.NewInvalid(schema.GroupKind{Kind: "ValidatingAdmissionPolicy"}, "x", nil), true},
		{"409 Conflict", apierrors.NewConflict(gr, "x", errors.New("managers")), true},
		{"400 Bad Request", apierrors.NewBadRequest("no"), true},
		{"413 Request Entity Too Large", apierrors.NewRequestEntityTooLargeError("limit is 3145728"), true},
		{"415 Unsupported Media Type", apierrors.NewGenericServerResponse(415, "patch", gr, "x", "", 0, false), true},
		{"405 Method Not Allowed", apierrors.NewMethodNotSupported(gr, "patch"), true},
		{"401 Unauthorized", apierrors.NewUnauthorized("who"), false},
		{"403 Forbidden", apierrors.NewForbidden(gr, "x", errors.New("rbac")), false},
		{"404 Not Found", apierrors.NewNotFound(gr, "x"), false},
		{"429 Too Many Requests", apierrors.NewTooManyRequests("slow down", 1), false},
		{"500", apierrors.NewInternalError(errors.New("boom")), false},
		{"504", apierrors.NewTimeoutError("etcd", 0), false},
		{"no answer", errors.New("connection refused"), false},
	}
	for _, c := range cases {
		if got := IsVerdict(c.err); got != c.want {
			t.Errorf("%s: IsVerdict = %v, want %v", c.name, got, c.want)
		}
	}
}
