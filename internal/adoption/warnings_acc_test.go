package adoption_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	sdkacctest "github.com/hashicorp/terraform-plugin-testing/helper/acctest"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/jsontest"
)

// TestAccAdoptedThenChanged runs with the CLI what the plan and apply say to
// a person adopting objects that `kubectl apply` made: the import plans only
// imports and its apply warns of nothing; changing fields that kubectl set
// takes them over, and the apply says that (not that changes made outside
// Terraform were reverted: there were none); a change made afterwards with
// kubectl edit shows in the plan and the apply reverts it, saying so. The
// last-applied annotation stays on the server throughout.
func TestAccAdoptedThenChanged(t *testing.T) {
	m := makeAll(t, tools[0], "warn-"+strings.ToLower(sdkacctest.RandString(5)))
	if m.tool.name != "kubectl-client-side-apply" {
		t.Fatalf("tools[0] is %s", m.tool.name)
	}
	dyn, err := dynamic.NewForConfig(acctest.Cluster(t).RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	webhook, policy := m.objects[0], m.objects[2]
	tf := newModule(t)

	tf.write("main.tf", m.config(t, true, nil))
	planned := tf.plan("Plan: 6 to import, 0 to add, 0 to change, 0 to destroy.")
	out := tf.mustRun("apply", "-auto-approve", "-input=false")
	if !strings.Contains(out, "Resources: 6 imported, 0 added, 0 changed, 0 destroyed.") {
		t.Fatalf("the apply of the import:\n%s", out)
	}
	if ws := newWarnings(planned, out); len(ws) > 0 {
		t.Errorf("the apply of the import warns %q:\n%s", ws, out)
	}
	tf.plan("")

	// The configuration changes what kubectl set: the webhook's timeout and
	// the policy's validation.
	changed := m.config(t, false, nil)
	for _, r := range [][2]string{{"timeout_seconds           = 30", "timeout_seconds           = 10"}, {"object.spec.replicas <= 5", "object.spec.replicas <= 3"}} {
		if strings.Count(changed, r[0]) < 1 {
			t.Fatalf("configuration has no %q", r[0])
		}
		changed = strings.Replace(changed, r[0], r[1], 1)
	}
	tf.write("main.tf", changed)
	planned = tf.plan("Plan: 0 to add, 2 to change, 0 to destroy.")
	out = tf.mustRun("apply", "-auto-approve", "-input=false")
	want := []string{
		fmt.Sprintf("Fields of %q taken over from other field managers", policy.name),
		fmt.Sprintf("Fields of %q taken over from other field managers", webhook.name),
	}
	if ws := newWarnings(planned, out); !slices.Equal(sorted(ws), sorted(want)) {
		t.Errorf("the apply of the change warns %q, want %q:\n%s", ws, want, out)
	}
	if !strings.Contains(out, `kubectl-client-side-apply`) {
		t.Errorf("the warning does not name kubectl's field manager:\n%s", out)
	}
	hookTimeout := func() int64 {
		cur, err := get(t, dyn, webhook)
		if err != nil {
			t.Fatal(err)
		}
		hooks, _, _ := unstructured.NestedSlice(cur.Object, "webhooks")
		v, _, _ := unstructured.NestedInt64(jsontest.Object(t, hooks, 0), "timeoutSeconds")
		return v
	}
	if got := hookTimeout(); got != 10 {
		t.Errorf("timeoutSeconds %d after the apply, want 10", got)
	}
	tf.plan("")

	// kubectl edit changes the timeout: the plan shows it, the apply
	// reverts it and says so.
	cur, err := get(t, dyn, webhook)
	if err != nil {
		t.Fatal(err)
	}
	hooks, _, _ := unstructured.NestedSlice(cur.Object, "webhooks")
	if err := unstructured.SetNestedField(jsontest.Object(t, hooks, 0), int64(20), "timeoutSeconds"); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedSlice(cur.Object, hooks, "webhooks"); err != nil {
		t.Fatal(err)
	}
	if _, err := dyn.Resource(webhook.kind.gvr()).Update(context.Background(), cur, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
		t.Fatal(err)
	}
	planned = tf.plan("Plan: 0 to add, 1 to change, 0 to destroy.")
	if !strings.Contains(planned, "~ timeout_seconds           = 20 -> 10") {
		t.Errorf("the plan does not show the edited timeout:\n%s", planned)
	}
	out = tf.mustRun("apply", "-auto-approve", "-input=false")
	want = []string{fmt.Sprintf("Changes made outside Terraform to %q were reverted", webhook.name)}
	if ws := newWarnings(planned, out); !slices.Equal(ws, want) || !strings.Contains(out, `kubectl-edit`) {
		t.Errorf("the apply of the repair warns %q, want %q naming kubectl-edit:\n%s", ws, want, out)
	}
	if got := hookTimeout(); got != 10 {
		t.Errorf("timeoutSeconds %d after the repair, want 10", got)
	}
	tf.plan("")
	if err := othersKept(t, dyn, m)(nil); err != nil {
		t.Error(err)
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
