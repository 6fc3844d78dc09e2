package differential

import (
	"context"
	"fmt"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	admissionclient "k8s.io/client-go/kubernetes/typed/admissionregistration/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/simulate"
)

// serverCase is one generated case (a policy and its binding, or a webhook
// configuration) as the harness handles it.
type serverCase interface {
	// create creates the case's first object, which the server may reject
	// as invalid: the generator makes some the server rejects (an
	// expression over params without a paramKind), and they are not
	// admission cases. An error that is not the server's Invalid fails the
	// test.
	create(ctx context.Context, a admissionclient.AdmissionregistrationV1Interface) error
	// complete creates the rest of the case (a policy's binding); any
	// error fails the test.
	complete(ctx context.Context, a admissionclient.AdmissionregistrationV1Interface) error
	// remove deletes what create and complete made.
	remove(ctx context.Context, a admissionclient.AdmissionregistrationV1Interface)
	// requestList is the case's requests.
	requestList() []*request
}

// differentialRun is one kind's cases on the server and the counts of its
// requests.
type differentialRun[C serverCase] struct {
	w        *world
	ctx      context.Context
	start    time.Time
	cases    []C // the cases the server accepted
	rejected int // the cases the server rejected as invalid

	total, agree, retried int
}

// install generates n cases with newCase and prepares them on the server:
// updates need stored objects, so every third request's object is stored
// before any case exists and the request becomes its update; then the cases
// are created, those the server rejects as invalid are left out, and their
// objects are deleted when the test ends. It waits for the server's
// admission plugins to see them.
func install[C serverCase](t *testing.T, ctx context.Context, w *world, start time.Time, g *generator, n int, newCase func(g *generator, i int) C) *differentialRun[C] {
	t.Helper()
	var cases []C
	for i := 0; i < n; i++ {
		cases = append(cases, newCase(g, i))
	}
	for _, c := range cases {
		for j, r := range c.requestList() {
			if j%3 != 0 || r.old != nil || r.subresource != "" {
				continue
			}
			old, err := w.stored(ctx, r.object)
			if err != nil {
				t.Fatal(err)
			}
			r.old = old
			r.object = g.changed(old)
		}
	}
	admission := w.admin.AdmissionregistrationV1()
	d := &differentialRun[C]{w: w, ctx: ctx, start: start}
	for _, c := range cases {
		if err := c.create(ctx, admission); err != nil {
			if !apierrors.IsInvalid(err) {
				t.Fatal(err)
			}
			d.rejected++
			t.Logf("rejected by the server: %v", err)
			continue
		}
		if err := c.complete(ctx, admission); err != nil {
			t.Fatal(err)
		}
		d.cases = append(d.cases, c)
	}
	t.Cleanup(func() {
		for _, c := range d.cases {
			c.remove(ctx, admission)
		}
		settle()
	})
	settle()
	return d
}

// answers are one request's answers: ask sends the request to the server
// (again), same says whether the server's last answer agrees with the
// offline one, and disagreement describes both when they do not.
type answers struct {
	ask          func()
	same         func() bool
	disagreement func() string
}

// compare sends every request of every case to the server and has check
// answer it offline (check also counts what the offline answer did). A
// request whose answers differ is asked again after 1, 2, 4 and 8 seconds,
// since the server's admission plugins may not have seen the objects yet (on
// a busy machine their informers lag), before it is called a disagreement.
func (d *differentialRun[C]) compare(t *testing.T, check func(c C, r *request, sr *simulate.Request) answers) {
	t.Helper()
	for _, c := range d.cases {
		for _, r := range c.requestList() {
			d.total++
			sr, err := r.offline(d.w)
			if err != nil {
				t.Fatal(err)
			}
			a := check(c, r, sr)
			a.ask()
			if !a.same() {
				for wait := time.Second; wait <= 8*time.Second && !a.same(); wait *= 2 {
					time.Sleep(wait)
					a.ask()
				}
				if a.same() {
					d.retried++
				}
			}
			if a.same() {
				d.agree++
				continue
			}
			t.Error(a.disagreement())
		}
	}
}

// report logs and prints the run's line: "differential: agree/total
// what (N kinds, R more rejected by the server; counts, X agreed only when
// asked again); kube-apiserver version, duration".
func (d *differentialRun[C]) report(t *testing.T, what, kinds, counts string) {
	t.Helper()
	line := fmt.Sprintf("differential: %d/%d %s (%d %s, %d more rejected by the server; %s, %d agreed only when asked again); kube-apiserver %s, %s",
		d.agree, d.total, what, len(d.cases), kinds, d.rejected, counts, d.retried, d.w.version, time.Since(d.start).Round(time.Millisecond))
	t.Log(line)
	// make check prints the lines of go test -v that start with "differential:".
	fmt.Println(line)
}

// objectClient is the part of a typed client of one kind the harness uses.
type objectClient[T any] interface {
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// policyCase is one generated policy (validating or mutating) and its
// binding, with its requests; clients picks the clients of their kinds.
type policyCase[P, B metav1.Object] struct {
	policy   P
	binding  B
	requests []*request
	clients  func(a admissionclient.AdmissionregistrationV1Interface) (objectClient[P], objectClient[B])
}

func (c *policyCase[P, B]) create(ctx context.Context, a admissionclient.AdmissionregistrationV1Interface) error {
	policies, _ := c.clients(a)
	if _, err := policies.Create(ctx, c.policy, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("policy %s: %w", c.policy.GetName(), err)
	}
	return nil
}

func (c *policyCase[P, B]) complete(ctx context.Context, a admissionclient.AdmissionregistrationV1Interface) error {
	_, bindings := c.clients(a)
	if _, err := bindings.Create(ctx, c.binding, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("binding %s: %w", c.binding.GetName(), err)
	}
	return nil
}

func (c *policyCase[P, B]) remove(ctx context.Context, a admissionclient.AdmissionregistrationV1Interface) {
	policies, bindings := c.clients(a)
	_ = bindings.Delete(ctx, c.binding.GetName(), metav1.DeleteOptions{})
	_ = policies.Delete(ctx, c.policy.GetName(), metav1.DeleteOptions{})
}

func (c *policyCase[P, B]) requestList() []*request { return c.requests }
