package core

import (
	"errors"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
)

// refused is a refused connection as client-go returns it, for a request at path.
func refused(path string) error {
	return &url.Error{Op: "Get", URL: "https://127.0.0.1:1" + path, Err: &net.OpError{Op: "dial", Net: "tcp",
		Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}, Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}
}

// A cluster that cannot be reached is said once per client and class of failure, whatever
// request met it; an answer of the server about one request is not such a failure.
func TestUnreachableOncePerClass(t *testing.T) {
	a, b := &kube.Client{}, &kube.Client{}
	w, first, ok := Unreachable(a, refused("/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/x"))
	if !ok || !first || w.Summary != SummaryUnreachable || !strings.Contains(w.Message, "connection refused") ||
		!strings.Contains(w.Message, "Not checked:") {
		t.Fatalf("first: %v %v %v", w, first, ok)
	}
	if _, first, ok := Unreachable(a, refused("/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings")); !ok || first {
		t.Errorf("the same refusal on another request is said again (first %v, ok %v)", first, ok)
	}
	if _, first, ok := Unreachable(a, apierrors.NewUnauthorized("no")); !ok || !first {
		t.Errorf("another class of failure is not said (first %v, ok %v)", first, ok)
	}
	if _, first, _ := Unreachable(b, refused("/x")); !first {
		t.Errorf("another client's plan is not told")
	}
	if _, _, ok := Unreachable(a, errors.New("resource name may not be empty")); ok {
		t.Error("an error of the client before any request is not an unreachable cluster")
	}
	if _, _, ok := Unreachable(a, apierrors.NewForbidden(schema.GroupResource{Resource: "x"}, "y", errors.New("RBAC"))); ok {
		t.Errorf("a forbidden request is the server's answer about it, not an unreachable cluster")
	}
}
