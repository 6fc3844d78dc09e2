package impact_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/impact"
)

// The impact the plan reports, against the server's own answer: objects are seeded, the plan
// of three validating policies (Deny, Warn, Audit; namespace and object selectors, a match
// condition, variables, params) names what each would deny, warn on or audit, and that of a
// mutating policy what it would change; the policies are applied, and each seeded object is
// written back unchanged as a server dry run: the objects the server rejects, warns about,
// audits or changes must be exactly those the plan named, and the denied ones those the data
// source's verdicts give. Then a change of a policy gives its flips, a binding whose policy is
// not known before apply says so, and the gate fails the plan.

var (
	deploymentsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	configMapsGVR  = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	widgetsGVR     = schema.GroupVersionResource{Group: "impact.example.com", Version: "v1", Resource: "widgets"}
	crdGVR         = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

const (
	namespaces        = 10 // impact-0 … impact-9; the even ones labelled env=prod
	deploymentsPerNS  = 25
	configMapsPerNS   = 20
	widgetsPerNS      = 10
	maxReplicas       = 3
	paramsNamespace   = "impact-params"
	impactConfigBlock = `
resource "admission_validating_admission_policy" "replicas" {
  metadata { name = "impact-replicas" }
  spec {
    failure_policy = "Fail"
    param_kind {
      api_version = "v1"
      kind        = "ConfigMap"
    }
    match_constraints {
      resource_rules {
        operations   = ["CREATE", "UPDATE"]
        api_groups   = ["apps"]
        api_versions = ["v1"]
        resources    = ["deployments"]
      }
    }
    match_conditions {
      name       = "not-exempt"
      expression = "!has(object.metadata.labels) || !('exempt' in object.metadata.labels)"
    }
    variables {
      name       = "limit"
      expression = "int(params.data.maxReplicas)"
    }
    validations {
      expression         = "object.spec.replicas <= variables.limit"
      message_expression = "'at most ' + string(variables.limit) + ' replicas, not ' + string(object.spec.replicas)"
    }
  }
}

resource "admission_validating_admission_policy_binding" "replicas" {
  metadata { name = "impact-replicas" }
  spec {
    policy_name = admission_validating_admission_policy.replicas.metadata[0].name
    param_ref {
      name                       = "limits"
      namespace                  = "impact-params"
      parameter_not_found_action = "Deny"
    }
    validation_actions = ["Deny"]
    match_resources {
      namespace_selector {
        match_labels = { env = "prod" }
      }
    }
  }
  %s
}

resource "admission_validating_admission_policy" "team" {
  metadata { name = "impact-team" }
  spec {
    match_constraints {
      resource_rules {
        operations   = ["CREATE", "UPDATE"]
        api_groups   = ["", "apps"]
        api_versions = ["v1"]
        resources    = ["deployments", "configmaps"]
      }
      object_selector {
        match_labels = { tier = "web" }
      }
    }
    validations {
      expression = "has(object.metadata.labels) && 'team' in object.metadata.labels"
      message    = "a team label is needed"
    }
  }
}

resource "admission_validating_admission_policy_binding" "team" {
  metadata { name = "impact-team" }
  spec {
    policy_name        = admission_validating_admission_policy.team.metadata[0].name
    validation_actions = ["Warn"]
  }
}

resource "admission_validating_admission_policy" "widgets" {
  metadata { name = "impact-widgets" }
  spec {
    match_constraints {
      resource_rules {
        operations   = ["UPDATE"]
        api_groups   = ["impact.example.com"]
        api_versions = ["*"]
        resources    = ["widgets"]
      }
    }
    validations {
      expression         = "object.spec.size < 5"
      message_expression = "'size ' + string(object.spec.size) + ' is too big'"
    }
  }
}

resource "admission_validating_admission_policy_binding" "widgets" {
  metadata { name = "impact-widgets" }
  spec {
    policy_name        = admission_validating_admission_policy.widgets.metadata[0].name
    validation_actions = ["Audit"]
    match_resources {
      namespace_selector {
        match_expressions {
          key      = "env"
          operator = "NotIn"
          values   = ["prod"]
        }
      }
    }
  }
}

resource "admission_mutating_admission_policy" "owner" {
  metadata { name = "impact-owner" }
  spec {
    match_constraints {
      resource_rules {
        operations   = ["CREATE", "UPDATE"]
        api_groups   = [""]
        api_versions = ["v1"]
        resources    = ["configmaps"]
      }
      namespace_selector {
        match_labels = { "kubernetes.io/metadata.name" = "impact-3" }
      }
    }
    match_conditions {
      name       = "no-owner"
      expression = "!has(object.metadata.labels) || !('owner' in object.metadata.labels)"
    }
    mutations {
      patch_type = "ApplyConfiguration"
      apply_configuration {
        expression = "Object{metadata: Object.metadata{labels: {\"owner\": \"unknown\"}}}"
      }
    }
    reinvocation_policy = "Never"
  }
}

resource "admission_mutating_admission_policy_binding" "owner" {
  metadata { name = "impact-owner" }
  spec {
    policy_name = admission_mutating_admission_policy.owner.metadata[0].name
  }
}

data "admission_validating_admission_policy_impact" "replicas" {
  policy  = admission_validating_admission_policy.replicas
  binding = admission_validating_admission_policy_binding.replicas
}

output "denied" {
  value = [for o in data.admission_validating_admission_policy_impact.replicas.objects : o.ref if o.denied]
}

output "matched" {
  value = data.admission_validating_admission_policy_impact.replicas.matched
}
`
)

func TestAccImpactAgreesWithTheServer(t *testing.T) {
	cp := acctest.Cluster(t)
	cfg := rest.CopyConfig(cp.RESTConfig())
	cfg.QPS, cfg.Burst = 200, 400
	warnings := &warningLog{}
	cfg.WarningHandler = warnings
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	seeded := seed(t, ctx, dyn)
	t.Logf("seeded %d objects", len(seeded))

	// The plan, before anything is applied: the bindings judge their policies as planned.
	began := time.Now()
	w := newWorkspace(t, cp.KubeconfigPath)
	out, ok := w.run(t, "plan", "-json", "-input=false", "-lock=false")
	planTime := time.Since(began)
	if !ok {
		t.Fatalf("the plan failed:\n%s", out)
	}
	diags := diagnostics(out)
	plan := map[string]map[string]bool{}
	for summary, binding := range map[string]string{impact.SummaryDeny: "impact-replicas", impact.SummaryWarn: "impact-team", impact.SummaryAudit: "impact-widgets"} {
		d := find(t, diags, summary, `Binding "`+binding+`"`)
		plan[binding] = named(t, d.Detail)
	}
	planChanged := named(t, find(t, diags, impact.SummaryChange, `Binding "impact-owner"`).Detail)
	for _, d := range diags {
		if d.Summary == impact.SummaryIncomplete {
			t.Errorf("the impact says it could not see everything: %s", d.Detail)
		}
	}

	if out, ok := w.run(t, "apply", "-auto-approve", "-input=false", "-lock=false"); !ok {
		t.Fatalf("the apply failed:\n%s", out)
	}
	dataDenied := w.output(t, "denied")

	// The server's admission plugins see new policies through their informers, a moment after
	// the apply: wait until an object of each policy gets its answer.
	waitInEffect(t, ctx, dyn, warnings)

	// The server's answer: each seeded object written back unchanged, as a dry run.
	server := map[string]map[string]bool{"impact-replicas": {}, "impact-team": {}, "impact-widgets": {}}
	serverChanged := map[string]bool{}
	policyIn := regexp.MustCompile(`ValidatingAdmissionPolicy '([^']+)'`)
	began = time.Now()
	for _, s := range seeded {
		obj, err := dyn.Resource(s.gvr).Namespace(s.namespace).Get(ctx, s.name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		warnings.reset()
		written, err := dyn.Resource(s.gvr).Namespace(s.namespace).Update(ctx, obj, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
		ref := s.namespace + "/" + s.name
		if err == nil && written.GetLabels()["owner"] != obj.GetLabels()["owner"] {
			serverChanged[ref] = true
		}
		if err != nil {
			m := policyIn.FindStringSubmatch(err.Error())
			if m == nil {
				t.Fatalf("dry-run update of %s: %v", ref, err)
			}
			server[m[1]][ref] = true
		}
		for _, w := range warnings.taken() {
			if m := policyIn.FindStringSubmatch(w); m != nil {
				server[m[1]][ref] = true
			}
		}
	}
	writeTime := time.Since(began)
	for ref := range audited(t, "impact-widgets") {
		server["impact-widgets"][ref] = true
	}

	agree, total := 0, 0
	for _, binding := range []string{"impact-replicas", "impact-team", "impact-widgets"} {
		p, s := plan[binding], server[binding]
		if len(s) == 0 {
			t.Errorf("%s: the server answers nothing: the seed does not test it", binding)
		}
		seen := map[string]bool{}
		for _, o := range seeded {
			ref := o.namespace + "/" + o.name
			seen[ref] = true // d-, c- and w- keep the names of the kinds apart
			total++
			if p[ref] == s[ref] {
				agree++
				continue
			}
			t.Errorf("%s: %s: the plan says %v, the server %v", binding, ref, p[ref], s[ref])
		}
		for ref := range p {
			if !seen[ref] {
				total++
				t.Errorf("%s: the plan names %s, which was not seeded", binding, ref)
			}
		}
	}
	if got, want := strings.Join(slices.Sorted(maps.Keys(planChanged)), ","), strings.Join(slices.Sorted(maps.Keys(serverChanged)), ","); got != want || len(serverChanged) == 0 {
		t.Errorf("the objects the mutating policy changes on their next write:\n plan   %s\n server %s", got, want)
	}
	if got, want := strings.Join(dataDenied, ","), strings.Join(slices.Sorted(maps.Keys(server["impact-replicas"])), ","); got != want {
		t.Errorf("the data source's denied objects:\n got %s\nwant %s", got, want)
	}

	// A change: the flips against the policy in the cluster; a binding whose policy is not
	// known before apply, quiet.
	flipped := func(cfg string) string {
		return strings.Replace(cfg, "object.spec.replicas <= variables.limit", "object.spec.replicas <= variables.limit * 3", 1)
	}
	w.write(t, "", flipped, func(cfg string) string { return cfg + fmt.Sprintf(laterBinding, "") })
	out, ok = w.run(t, "plan", "-json", "-input=false", "-lock=false")
	if !ok {
		t.Fatalf("the plan of the change failed:\n%s", out)
	}
	diags = diagnostics(out)
	flips := find(t, diags, impact.SummaryFlips, `ValidatingAdmissionPolicy "impact-replicas", as planned, through its binding "impact-replicas"`)
	if !strings.Contains(flips.Detail, "newly denies 0 objects and no longer denies 15 objects") {
		t.Errorf("the flips: %s", flips.Detail)
	}
	if n := len(named(t, flips.Detail)); n != 15 {
		t.Errorf("the flips name %d objects, not 15", n)
	}
	for _, d := range diags {
		if strings.Contains(d.Detail, `"impact-later"`) {
			t.Errorf("a binding that names its policy by the id of one created in the same apply draws no warning without the gate: %s", d.Detail)
		}
	}
	// With the gate, the plan cannot judge it, and says so as an error.
	w.write(t, "", flipped, func(cfg string) string { return cfg + fmt.Sprintf(laterBinding, "fail_on_existing_denials = true") })
	out, ok = w.run(t, "plan", "-json", "-input=false", "-lock=false")
	if later := find(t, diagnostics(out), impact.SummaryGateFailure, `Binding "impact-later"`); ok || later.Severity != "error" ||
		!strings.Contains(later.Detail, "known after apply") {
		t.Errorf("the gate on a binding whose policy is known only at apply: plan succeeded %v, %s: %s", ok, later.Severity, later.Detail)
	}

	// The gate: the same configuration, with fail_on_existing_denials, fails the plan.
	w.write(t, "fail_on_existing_denials = true")
	out, ok = w.run(t, "plan", "-json", "-input=false", "-lock=false")
	if ok {
		t.Errorf("with the gate on, a binding that would deny existing objects must fail the plan")
	}
	if gated := find(t, diagnostics(out), impact.SummaryGateFailure, `Binding "impact-replicas"`); gated.Severity != "error" {
		t.Errorf("the gate's diagnostic is a %s", gated.Severity)
	}
	// The bounds: at most 20 objects per resource; what was cut is said, with how many there
	// are, in the plan of a change of the policy.
	w.providerExtra = "impact_max_objects = 20"
	w.write(t, "", func(cfg string) string { return strings.Replace(cfg, "' is too big'", "' is too large'", 1) })
	out, ok = w.run(t, "plan", "-json", "-input=false", "-lock=false")
	if !ok {
		t.Fatalf("the plan with the bounds failed:\n%s", out)
	}
	cut := find(t, diagnostics(out), impact.SummaryIncomplete, `ValidatingAdmissionPolicy "impact-widgets", as planned, through its binding "impact-widgets"`)
	for _, want := range []string{"examined 20 of 100 widgets.impact.example.com (the most per resource: 20, the provider's impact_max_objects)"} {
		if !strings.Contains(cut.Detail, want) {
			t.Errorf("the cut is not said (%q): %s", want, cut.Detail)
		}
	}

	fmt.Printf("impact: %d/%d verdicts (object and policy) agree between the plan and the server's dry-run writes (denied %d, warned %d, audited %d of %d seeded); the mutating policy changes %d, the plan named %d; plan %s, %d dry-run writes %s\n",
		agree, total, len(server["impact-replicas"]), len(server["impact-team"]), len(server["impact-widgets"]), len(seeded), len(serverChanged), len(planChanged),
		planTime.Round(time.Millisecond), len(seeded), writeTime.Round(time.Millisecond))
}

// waitInEffect waits until the server answers a dry-run write of impact-0/d-0 with a denial,
// of impact-0/c-1 with a warning, of impact-3/c-1 with a change, and records impact-1/w-5 in
// the audit log as failing.
func waitInEffect(t *testing.T, ctx context.Context, dyn dynamic.Interface, warnings *warningLog) {
	t.Helper()
	write := func(gvr schema.GroupVersionResource, ns, name string) (*unstructured.Unstructured, *unstructured.Unstructured, error) {
		obj, err := dyn.Resource(gvr).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		warnings.reset()
		written, err := dyn.Resource(gvr).Namespace(ns).Update(ctx, obj, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
		return obj, written, err
	}
	deadline := time.Now().Add(time.Minute)
	for {
		_, _, denyErr := write(deploymentsGVR, "impact-0", "d-0")
		_, _, _ = write(configMapsGVR, "impact-0", "c-1")
		warned := len(warnings.taken()) > 0
		obj, written, err := write(configMapsGVR, "impact-3", "c-1")
		changed := err == nil && written.GetLabels()["owner"] != obj.GetLabels()["owner"]
		_, _, _ = write(widgetsGVR, "impact-1", "w-5")
		if denyErr != nil && warned && changed && audited(t, "impact-widgets")["impact-1/w-5"] {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the policies are not in effect a minute after the apply: denied %v, warned %v, changed %v", denyErr != nil, warned, changed)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

type seededObject struct {
	gvr             schema.GroupVersionResource
	namespace, name string
}

// seed creates the namespaces, the params, the custom resource definition and the objects:
//   - Deployments d-0…d-24: replicas 9 for every eighth (d-0, d-8, d-16, d-24), the last of
//     them exempt; tier=web for d-1, d-6, …, without a team label in impact-0 and impact-1;
//   - ConfigMaps c-0…c-19: tier=web for c-1, c-6, …, the same way; owner=b for every fourth;
//   - Widgets w-0…w-9: size i%7.
func seed(t *testing.T, ctx context.Context, dyn dynamic.Interface) []seededObject {
	t.Helper()
	create := func(gvr schema.GroupVersionResource, ns string, obj map[string]any) {
		t.Helper()
		if _, err := dyn.Resource(gvr).Namespace(ns).Create(ctx, &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create %s %s: %v", gvr.Resource, ns, err)
		}
	}
	nsGVR := schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	for i := range namespaces {
		labels := map[string]any{}
		if i%2 == 0 {
			labels["env"] = "prod"
		}
		create(nsGVR, "", map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": fmt.Sprintf("impact-%d", i), "labels": labels}})
	}
	create(nsGVR, "", map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": paramsNamespace}})
	create(configMapsGVR, paramsNamespace, map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "limits"}, "data": map[string]any{"maxReplicas": fmt.Sprint(maxReplicas)}})
	create(crdGVR, "", map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets.impact.example.com"},
		"spec": map[string]any{"group": "impact.example.com", "scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true, "schema": map[string]any{"openAPIV3Schema": map[string]any{
				"type": "object", "properties": map[string]any{"spec": map[string]any{"type": "object",
					"properties": map[string]any{"size": map[string]any{"type": "integer"}}}}}}}}}})
	deadline := time.Now().Add(time.Minute)
	for {
		_, err := dyn.Resource(widgetsGVR).Namespace("default").List(ctx, metav1.ListOptions{Limit: 1})
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the widgets are not served: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}

	var out []seededObject
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make(chan error, namespaces)
	for i := range namespaces {
		ns := fmt.Sprintf("impact-%d", i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			put := func(gvr schema.GroupVersionResource, obj map[string]any) bool {
				u := &unstructured.Unstructured{Object: obj}
				if _, err := dyn.Resource(gvr).Namespace(ns).Create(ctx, u, metav1.CreateOptions{}); err != nil {
					errs <- fmt.Errorf("create %s %s/%s: %w", gvr.Resource, ns, u.GetName(), err)
					return false
				}
				mu.Lock()
				out = append(out, seededObject{gvr, ns, u.GetName()})
				mu.Unlock()
				return true
			}
			labelsOf := func(j int) map[string]any {
				l := map[string]any{"app": fmt.Sprint(j)}
				if j%5 == 1 {
					l["tier"] = "web"
					if j%10 != 1 || i >= 2 {
						l["team"] = "a"
					}
				}
				return l
			}
			for j := range deploymentsPerNS {
				replicas := int64(1)
				if j%8 == 0 {
					replicas = 9
				}
				l := labelsOf(j)
				if j == 24 {
					l["exempt"] = "true"
				}
				name := fmt.Sprintf("d-%d", j)
				if !put(deploymentsGVR, map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
					"metadata": map[string]any{"name": name, "labels": l},
					"spec": map[string]any{"replicas": replicas, "selector": map[string]any{"matchLabels": map[string]any{"app": name}},
						"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": name}},
							"spec": map[string]any{"containers": []any{map[string]any{"name": "app", "image": "registry.k8s.io/pause:3.10"}}}}}}) {
					return
				}
			}
			for j := range configMapsPerNS {
				l := labelsOf(j)
				if j%4 == 0 {
					l["owner"] = "b"
				}
				if !put(configMapsGVR, map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
					"metadata": map[string]any{"name": fmt.Sprintf("c-%d", j), "labels": l}, "data": map[string]any{"k": "v"}}) {
					return
				}
			}
			for j := range widgetsPerNS {
				if !put(widgetsGVR, map[string]any{"apiVersion": "impact.example.com/v1", "kind": "Widget",
					"metadata": map[string]any{"name": fmt.Sprintf("w-%d", j)}, "spec": map[string]any{"size": int64(j % 7)}}) {
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].gvr.Resource+out[i].namespace+out[i].name < out[j].gvr.Resource+out[j].namespace+out[j].name
	})
	return out
}

// warningLog keeps the warnings of the server's answers (rest.WarningHandler).
type warningLog struct {
	mu  sync.Mutex
	got []string
}

func (w *warningLog) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.got = append(w.got, text)
}

func (w *warningLog) reset() { w.mu.Lock(); w.got = nil; w.mu.Unlock() }

func (w *warningLog) taken() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.got)
}

// audited are the objects the audit log records as failing the policy, on a dry-run update.
func audited(t *testing.T, policy string) map[string]bool {
	t.Helper()
	log, err := os.ReadFile(auditLog)
	if err != nil {
		t.Fatalf("the audit log: %v", err)
	}
	out := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(log))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e struct {
			Verb        string            `json:"verb"`
			RequestURI  string            `json:"requestURI"`
			Annotations map[string]string `json:"annotations"`
			ObjectRef   struct {
				Namespace string `json:"namespace"`
				Name      string `json:"name"`
			} `json:"objectRef"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Verb != "update" || !strings.Contains(e.RequestURI, "dryRun=All") {
			continue
		}
		if strings.Contains(e.Annotations["validation.policy.admission.k8s.io/validation_failure"], `"policy":"`+policy+`"`) {
			out[e.ObjectRef.Namespace+"/"+e.ObjectRef.Name] = true
		}
	}
	return out
}

// workspace is a module of the configuration, planned and applied with the provider served
// from this process.
type workspace struct {
	dir, kubeconfig string
	// providerExtra are settings of the provider block.
	providerExtra string
	env           []string
	tf            string
}

func newWorkspace(t *testing.T, kubeconfig string) *workspace {
	t.Helper()
	address := "registry.terraform.io/seed-a73d233f/admission"
	providers, stop := acctest.ServeProvider(t, address)
	t.Cleanup(stop)
	w := &workspace{dir: t.TempDir(), kubeconfig: kubeconfig, tf: acctest.TerraformPath(t),
		env: append(os.Environ(), "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1", "TF_REATTACH_PROVIDERS="+providers)}
	w.write(t, "")
	if out, ok := w.run(t, "init", "-input=false", "-backend=false"); !ok {
		t.Fatalf("terraform init:\n%s", out)
	}
	return w
}

// laterBinding is a binding whose policy_name is known only at apply.
const laterBinding = `
resource "terraform_data" "policy_name" {
  input = "impact-team"
}

resource "admission_validating_admission_policy_binding" "later" {
  metadata { name = "impact-later" }
  spec {
    policy_name        = terraform_data.policy_name.output
    validation_actions = ["Deny"]
  }
  %s
}
`

// write writes the module, with gate in the replicas binding, changed by edits.
func (w *workspace) write(t *testing.T, gate string, edits ...func(string) string) {
	t.Helper()
	cfg := fmt.Sprintf(impactConfigBlock, gate)
	for _, e := range edits {
		cfg = e(cfg)
	}
	module := acctest.RequiredProviders("registry.terraform.io/seed-a73d233f/admission") +
		fmt.Sprintf("provider \"admission\" {\n  config_path = %q\n  %s\n}\n", w.kubeconfig, w.providerExtra) + cfg
	if err := os.WriteFile(filepath.Join(w.dir, "main.tf"), []byte(module), 0o600); err != nil {
		t.Fatal(err)
	}
}

func (w *workspace) run(t testing.TB, args ...string) (string, bool) {
	t.Helper()
	cmd := exec.Command(w.tf, args...)
	cmd.Dir, cmd.Env = w.dir, w.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err == nil
}

func (w *workspace) output(t *testing.T, name string) []string {
	t.Helper()
	cmd := exec.Command(w.tf, "output", "-json", name)
	cmd.Dir, cmd.Env = w.dir, w.env
	out, err := cmd.Output()
	var v []string
	if err != nil || json.Unmarshal(out, &v) != nil {
		t.Fatalf("output %s: %s", name, out)
	}
	sort.Strings(v)
	return v
}

func diagnostics(out string) []acctest.Diagnostic {
	var diags []acctest.Diagnostic
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var line struct {
			Type       string              `json:"type"`
			Diagnostic *acctest.Diagnostic `json:"diagnostic"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Type == "diagnostic" && line.Diagnostic != nil {
			diags = append(diags, *line.Diagnostic)
		}
	}
	return diags
}

// find is the diagnostic of that summary whose detail names subject.
func find(t testing.TB, diags []acctest.Diagnostic, summary, subject string) acctest.Diagnostic {
	t.Helper()
	for _, d := range diags {
		if d.Summary == summary && strings.Contains(d.Detail, subject) {
			return d
		}
	}
	var all []string
	for _, d := range diags {
		all = append(all, d.Severity+": "+d.Summary+": "+d.Detail)
	}
	t.Fatalf("no %q diagnostic for %s among:\n%s", summary, subject, strings.Join(all, "\n\n"))
	return acctest.Diagnostic{}
}

// named are the objects a warning of the impact names, one a line ("  ns/name: message"); the
// test's seed keeps each list within the ones named, so a count of more fails.
func named(t *testing.T, detail string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, line := range strings.Split(detail, "\n") {
		if !strings.HasPrefix(line, "  ") {
			continue
		}
		line = strings.TrimPrefix(line, "  ")
		if strings.HasPrefix(line, "and ") && strings.HasSuffix(line, " more") {
			t.Fatalf("the seed makes a list longer than the plan names: %s", line)
		}
		ref, _, _ := strings.Cut(line, ": ")
		out[ref] = true
	}
	return out
}
