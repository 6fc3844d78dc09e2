package policy_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdkacctest "github.com/hashicorp/terraform-plugin-testing/helper/acctest"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/metadata"
)

// The apply keeps the plan's word: a policy is in force when its apply returns
// (wait_for_enforcement), the gate of a binding holds for a change of its policy alone
// (fail_on_existing_denials, recorded on the binding in the cluster), and a saved plan is
// planned again at apply, so the gate sees what was created in between. Driven with the
// Terraform CLI, the provider served from this process.

// workspace is a Terraform module in a temporary directory, run with the CLI against the
// provider served from this process.
type workspace struct {
	t   *testing.T
	tf  string
	dir string
	env []string
}

func newWorkspace(t *testing.T) *workspace {
	t.Helper()
	acctest.Cluster(t)
	tf := acctest.TerraformPath(t)
	address := "registry.terraform.io/seed-a73d233f/admission"
	providers, stop := acctest.ServeProvider(t, address)
	t.Cleanup(stop)
	w := &workspace{t: t, tf: tf, dir: t.TempDir(),
		env: append(os.Environ(), "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1", "TF_REATTACH_PROVIDERS="+providers)}
	w.write(acctest.ProviderBlock(w.t))
	w.must("init", "-input=false", "-backend=false")
	return w
}

// write writes the module: the terraform block and cfg.
func (w *workspace) write(cfg string) {
	w.t.Helper()
	module := acctest.RequiredProviders("registry.terraform.io/seed-a73d233f/admission") + cfg
	if err := os.WriteFile(filepath.Join(w.dir, "main.tf"), []byte(module), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// run runs the CLI with args; the output and the exit code.
func (w *workspace) run(args ...string) (string, int) {
	w.t.Helper()
	cmd := exec.Command(w.tf, append(args, "-no-color")...)
	cmd.Dir, cmd.Env = w.dir, w.env
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	case err != nil:
		w.t.Fatalf("terraform %s: %v", strings.Join(args, " "), err)
	}
	return string(out), 0
}

func (w *workspace) must(args ...string) string {
	w.t.Helper()
	out, code := w.run(args...)
	if code != 0 {
		w.t.Fatalf("terraform %s: exit %d\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

// testNamespace makes a namespace labelled enforce=<its name>, which the test's bindings
// select, so that they act on nothing else.
func testNamespace(t *testing.T, cs kubernetes.Interface) string {
	t.Helper()
	ns := "enforce-" + sdkacctest.RandString(8)
	_, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{"enforce": ns}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	return ns
}

// seedDeployment makes a Deployment of replicas in ns.
func seedDeployment(t *testing.T, cs kubernetes.Interface, ns, name string, replicas int32) {
	t.Helper()
	labels := map[string]string{"app": name}
	_, err := cs.AppsV1().Deployments(ns).Create(context.Background(), &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example.com/app:1"}}},
			},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
}

// replicasPolicy is a policy that deployments have at most max replicas, and its Deny
// binding on the namespace ns, with the binding's extra settings.
func replicasPolicy(name, ns string, max int, bindingExtra string) string {
	return fmt.Sprintf(`
resource "admission_validating_admission_policy" "replicas" {
  metadata { name = %[1]q }
  spec {
    failure_policy = "Fail"
    match_constraints {
      resource_rules {
        api_groups   = ["apps"]
        api_versions = ["v1"]
        operations   = ["CREATE", "UPDATE"]
        resources    = ["deployments"]
      }
    }
    validations {
      expression         = "object.spec.replicas <= %[3]d"
      message_expression = "'at most %[3]d replicas, not ' + string(object.spec.replicas)"
    }
  }
}

resource "admission_validating_admission_policy_binding" "replicas" {
  metadata { name = %[1]q }
  spec {
    policy_name        = admission_validating_admission_policy.replicas.metadata[0].name
    validation_actions = ["Deny"]
    match_resources {
      namespace_selector {
        match_labels = { enforce = %[2]q }
      }
    }
  }
  %[4]s
}
`, name, ns, max, bindingExtra)
}

// A binding in the cluster with fail_on_existing_denials = true: tightening only its policy
// (at most 5 replicas to at most 2, over Deployments of 3, 4 and 4 replicas) fails the plan
// with an error that names the three; with the gate off, the same plan succeeds with a
// warning. The gate is recorded on the binding as an annotation that shows in no plan.
func TestAccGateCoversItsPolicy(t *testing.T) {
	t.Parallel()
	cs := acctest.Clientset(t)
	ns := testNamespace(t, cs)
	for i, r := range []int32{3, 4, 4} {
		seedDeployment(t, cs, ns, fmt.Sprintf("web-%d", i), r)
	}
	name := randomName()
	w := newWorkspace(t)
	provider := acctest.ProviderBlock(t)
	gateOn := "fail_on_existing_denials = true"

	w.write(provider + replicasPolicy(name, ns, 5, gateOn))
	w.must("apply", "-auto-approve", "-input=false")
	b, err := cs.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Annotations[metadata.GateAnnotation]; got != "true" {
		t.Fatalf("the binding applied with the gate on has %s=%q, want \"true\"", metadata.GateAnnotation, got)
	}
	if out, code := w.run("plan", "-input=false", "-detailed-exitcode"); code != 0 {
		t.Fatalf("the plan after the apply is not empty (exit %d): the gate's annotation shows?\n%s", code, out)
	}
	if out := w.must("state", "show", "admission_validating_admission_policy_binding.replicas"); strings.Contains(out, metadata.GateAnnotation) {
		t.Errorf("the gate's annotation leaks into the state:\n%s", out)
	}

	// Only the policy changes: the plan fails, naming the objects.
	w.write(provider + replicasPolicy(name, ns, 2, gateOn))
	out, code := w.run("plan", "-input=false", "-detailed-exitcode")
	if code != 1 {
		t.Fatalf("the plan of the tightened policy under a gated binding: exit %d, want 1 (an error)\n%s", code, out)
	}
	if !strings.Contains(out, "Error: Binding would deny existing objects") {
		t.Errorf("the plan's error is not the gate's:\n%s", out)
	}
	for _, d := range []string{"web-0", "web-1", "web-2"} {
		if !strings.Contains(out, ns+"/"+d) {
			t.Errorf("the plan's error does not name %s/%s:\n%s", ns, d, out)
		}
	}

	// The gate off: applied, the annotation goes; the same change of the policy is a warning.
	w.write(provider + replicasPolicy(name, ns, 5, ""))
	w.must("apply", "-auto-approve", "-input=false")
	b, err = cs.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := b.Annotations[metadata.GateAnnotation]; ok {
		t.Fatalf("the binding applied with the gate off still has %s=%q", metadata.GateAnnotation, got)
	}
	w.write(provider + replicasPolicy(name, ns, 2, ""))
	out, code = w.run("plan", "-input=false", "-detailed-exitcode")
	if code != 2 {
		t.Fatalf("the plan of the tightened policy under a binding without the gate: exit %d, want 2 (changes)\n%s", code, out)
	}
	if !strings.Contains(out, "Warning: Policy would deny existing objects") || !strings.Contains(out, ns+"/web-0") {
		t.Errorf("the plan does not warn of the objects the policy would deny:\n%s", out)
	}
	w.must("destroy", "-auto-approve", "-input=false")
}

// A saved plan applied later is planned again at apply: with the gate on, a Deployment that
// the planned binding would deny, created after `terraform plan -out`, fails `terraform apply
// plan`, which names it and writes nothing.
func TestAccSavedPlanGateSeesObjectsCreatedSince(t *testing.T) {
	t.Parallel()
	cs := acctest.Clientset(t)
	ns := testNamespace(t, cs)
	seedDeployment(t, cs, ns, "small", 1)
	name := randomName()
	w := newWorkspace(t)
	w.write(acctest.ProviderBlock(t) + replicasPolicy(name, ns, 2, "fail_on_existing_denials = true"))
	out := w.must("plan", "-input=false", "-out=saved.tfplan")
	if !strings.Contains(out, "Policy denies no existing object") {
		t.Fatalf("the plan does not say that the policy denies no existing object:\n%s", out)
	}
	seedDeployment(t, cs, ns, "big", 4)

	out, code := w.run("apply", "-input=false", "saved.tfplan")
	if code == 0 {
		t.Fatalf("the saved plan applied over a Deployment the gated binding would deny:\n%s", out)
	}
	if !strings.Contains(out, "Binding would deny existing objects") || !strings.Contains(out, ns+"/big") {
		t.Errorf("the apply's error does not name %s/big:\n%s", ns, out)
	}
	if strings.Contains(out, ns+"/small") {
		t.Errorf("the apply's error names %s/small, which the policy admits:\n%s", ns, out)
	}
	_, err := cs.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Get(context.Background(), name, metav1.GetOptions{})
	if err == nil {
		t.Errorf("the binding was written although the gate failed the apply")
	}
	// The policy, planned before the binding, may have been written: an empty configuration
	// removes it (a destroy would plan the gated binding again).
	w.write(acctest.ProviderBlock(t))
	w.must("apply", "-auto-approve", "-input=false")
}

// configMapPolicy is a policy that ConfigMaps have an "owner" key, Deny-bound on the
// namespace ns under the name binding (no binding when binding is "").
func configMapPolicy(policy, binding, ns string) string {
	cfg := fmt.Sprintf(`
resource "admission_validating_admission_policy" "owner" {
  metadata { name = %q }
  spec {
    failure_policy = "Fail"
    match_constraints {
      resource_rules {
        api_groups   = [""]
        api_versions = ["v1"]
        operations   = ["CREATE", "UPDATE"]
        resources    = ["configmaps"]
      }
    }
    validations {
      expression = "has(object.data) && 'owner' in object.data"
      message    = "a ConfigMap needs an owner"
    }
  }
}
`, policy)
	if binding != "" {
		cfg += fmt.Sprintf(`
resource "admission_validating_admission_policy_binding" "owner" {
  metadata { name = %q }
  spec {
    policy_name        = admission_validating_admission_policy.owner.metadata[0].name
    validation_actions = ["Deny"]
    match_resources {
      namespace_selector {
        match_labels = { enforce = %q }
      }
    }
  }
}
`, binding, ns)
	}
	return cfg
}

// violates sends, as a server dry run, the create of a ConfigMap without an owner in ns: the
// error that denied it, nil when the server admitted it.
func violates(cs kubernetes.Interface, ns string) error {
	_, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "no-owner-" + sdkacctest.RandString(6)},
		Data:       map[string]string{"key": "value"},
	}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	return err
}

// After each of 20 applies of a Deny policy and binding, a violating write sent the moment
// the apply returns is denied by that binding: 10 of a policy and binding created together,
// 10 of a binding added to a policy that exists; in each, half in a namespace with an existing
// ConfigMap that the binding denies (the plan's impact names it, and its dry run proves the
// binding in force) and half in one without (the reload period). Then, with
// wait_for_enforcement = false, the same applies, for the time the wait adds.
func TestAccEnforcedWhenApplyReturns(t *testing.T) {
	t.Parallel()
	cs := acctest.Clientset(t)
	seeded, clean := testNamespace(t, cs), testNamespace(t, cs)
	// The existing object the seeded namespace's binding denies.
	if _, err := cs.CoreV1().ConfigMaps(seeded).Create(context.Background(), &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "legacy"}, Data: map[string]string{"key": "value"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w := newWorkspace(t)
	type round struct {
		together, proof, wait bool
		took                  time.Duration
	}
	var rounds []round
	apply := func(r round, cfg string) time.Duration {
		t.Helper()
		provider := acctest.ProviderBlock(t)
		if !r.wait {
			provider = acctest.ProviderBlock(t, "wait_for_enforcement = false")
		}
		w.write(provider + cfg)
		start := time.Now()
		w.must("apply", "-auto-approve", "-input=false")
		return time.Since(start)
	}
	existing := "enforce-" + sdkacctest.RandString(8)
	denied := 0
	for i := range 28 {
		r := round{together: i%2 == 0, proof: i%4 < 2, wait: i < 20}
		ns := clean
		if r.proof {
			ns = seeded
		}
		policy, binding := existing, fmt.Sprintf("%s-%d", existing, i)
		if r.together {
			policy = binding
		} else {
			// The policy first, alone: no binding applies it, so its apply does not wait.
			apply(r, configMapPolicy(policy, "", ns))
		}
		r.took = apply(r, configMapPolicy(policy, binding, ns))
		err := violates(cs, ns)
		want := fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request", policy, binding)
		switch {
		case r.wait && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("round %d (together %v, proof %v): the violating write sent when the apply returned: %v, want denied by %q", i, r.together, r.proof, err, want)
		case r.wait:
			denied++
		case err == nil:
			t.Logf("round %d without the wait: the violating write sent when the apply returned was admitted", i)
		}
		t.Logf("round %d: together %v, proof %v, wait %v: apply %s", i, r.together, r.proof, r.wait, r.took.Round(time.Millisecond))
		rounds = append(rounds, r)
		if r.together {
			w.must("destroy", "-auto-approve", "-input=false")
		} else {
			apply(round{wait: r.wait}, configMapPolicy(policy, "", ns))
		}
	}
	if denied != 20 {
		t.Errorf("denied %d of 20 violating writes sent when the apply returned", denied)
	}
	times := func(keep func(round) bool) (median, worst time.Duration, n int) {
		var ds []time.Duration
		for _, r := range rounds {
			if keep(r) {
				ds = append(ds, r.took)
			}
		}
		slices.Sort(ds)
		if len(ds) == 0 {
			return 0, 0, 0
		}
		return ds[len(ds)/2], ds[len(ds)-1], len(ds)
	}
	for _, proof := range []bool{true, false} {
		m, worst, n := times(func(r round) bool { return r.wait && r.proof == proof })
		t.Logf("applies with the wait, proof by dry run %v: %d, median %s, worst %s", proof, n, m.Round(time.Millisecond), worst.Round(time.Millisecond))
	}
	m, worst, n := times(func(r round) bool { return !r.wait })
	t.Logf("applies without the wait: %d, median %s, worst %s", n, m.Round(time.Millisecond), worst.Round(time.Millisecond))
	w.write(acctest.ProviderBlock(t))
	w.must("apply", "-auto-approve", "-input=false")
}
