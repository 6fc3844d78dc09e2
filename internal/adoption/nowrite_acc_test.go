package adoption_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	sdkacctest "github.com/hashicorp/terraform-plugin-testing/helper/acctest"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest/faultproxy"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/jsontest"
)

// Objects whose configuration, written from the manifest they were made
// from, spells out a value the server does not store (an empty selector
// block, values = [] on a DoesNotExist requirement, ca_bundle = "") or
// declares a key the import leaves to another tool (Helm's managed-by
// label): the plan is an update, its dry run gives back the object the
// server has, so the plan says in a warning that the apply writes nothing,
// naming those values, the apply writes nothing, and the next plan is empty.

// ourManager is the provider's field manager.
const ourManager = "terraform-provider-admission"

// spelling is one object of the tests: a manifest of testdata made by a
// tool, and the resource block a person writes from it.
type spelling struct {
	label    string // resource label; the object is <prefix>-<label with dashes>
	kind     kind
	manifest string
	tool     string // name of a tool of tools
	// labels are the metadata labels of the configuration beside the
	// manifest's own (Helm's managed-by label, for the object that declares
	// it).
	labels map[string]string
	// body is the resource block after its metadata block; policy is the
	// name of the policy a binding names.
	body func(policy string) string
	// causes are the attribute paths the warning names, in order; none when
	// the import plans no change.
	causes []string
}

// webhookBlock is a webhook block of a configuration.
func webhookBlock(lines string) string { return "\n  webhook {\n" + lines + "  }\n" }

var spellings = []spelling{
	{
		label: "pod_mutator", kind: mutatingWebhooks, manifest: "pod-mutator.yaml", tool: "kubectl-client-side-apply",
		body: func(string) string {
			return webhookBlock(`    name                      = "pod-mutator.example.com"
    admission_review_versions = ["v1"]
    failure_policy            = "Ignore"
    match_policy              = "Exact"
    side_effects              = "None"
    timeout_seconds           = 5
    client_config {
      service {
        name      = "pod-mutator"
        namespace = "default"
        path      = "/mutate-v1-pod"
        port      = 443
      }
    }
    namespace_selector {}
    object_selector {}
    rule {
      api_groups   = [""]
      api_versions = ["v1"]
      operations   = ["CREATE"]
      resources    = ["pods"]
      scope        = "*"
    }
`)
		},
		causes: []string{"webhook[0].namespace_selector", "webhook[0].object_selector"},
	},
	{
		label: "scaledobjects", kind: validatingWebhooks, manifest: "scaledobjects-validating.yaml", tool: "kubectl-client-side-apply",
		body: func(string) string {
			return webhookBlock(`    name                      = "vscaledobject.autoscaling.example.com"
    admission_review_versions = ["v1"]
    failure_policy            = "Ignore"
    match_policy              = "Equivalent"
    side_effects              = "None"
    timeout_seconds           = 10
    client_config {
      service {
        name      = "admission-webhooks"
        namespace = "autoscaler"
        path      = "/validate-scaledobject"
      }
    }
    namespace_selector {}
    object_selector {}
    rule {
      api_groups   = ["autoscaling.example.com"]
      api_versions = ["v1alpha1"]
      operations   = ["CREATE", "UPDATE"]
      resources    = ["scaledobjects"]
    }
`)
		},
		causes: []string{"webhook[0].namespace_selector", "webhook[0].object_selector"},
	},
	{
		label: "pod_identity", kind: mutatingWebhooks, manifest: "pod-identity-mutating.yaml", tool: "kubectl-client-side-apply",
		body: func(string) string {
			return webhookBlock(`    name                      = "pod-identity-webhook.example.com"
    admission_review_versions = ["v1beta1"]
    failure_policy            = "Ignore"
    side_effects              = "None"
    client_config {
      service {
        name      = "pod-identity-webhook"
        namespace = "default"
        path      = "/mutate"
      }
    }
    object_selector {
      match_expressions {
        key      = "example.com/skip-pod-identity-webhook"
        operator = "DoesNotExist"
        values   = []
      }
    }
    rule {
      api_groups   = [""]
      api_versions = ["v1"]
      operations   = ["CREATE"]
      resources    = ["pods"]
    }
`)
		},
		causes: []string{"webhook[0].object_selector[0].match_expressions[0].values"},
	},
	{
		// kubectl apply kept the manifest in the last-applied annotation:
		// the import reads its empty caBundle as "", and nothing changes.
		label: "injector_kubectl", kind: mutatingWebhooks, manifest: "agent-injector-mutating.yaml", tool: "kubectl-client-side-apply",
		body: agentInjector,
	},
	{
		// Helm keeps no such annotation: the import reads none.
		label: "injector_helm", kind: mutatingWebhooks, manifest: "agent-injector-mutating.yaml", tool: "helm",
		body:   agentInjector,
		causes: []string{"webhook[0].client_config[0].ca_bundle"},
	},
	{
		label: "policy_helm", kind: validatingPolicies, manifest: "demo-policy.yaml", tool: "helm",
		labels: map[string]string{"app.kubernetes.io/managed-by": "Helm"},
		body:   func(string) string { return validatingPolicies.body("", nil) },
		causes: []string{`metadata[0].labels["app.kubernetes.io/managed-by"]`},
	},
	{
		label: "binding", kind: validatingBindings, manifest: "empty-selectors-binding.yaml", tool: "kubectl-client-side-apply",
		body: func(policy string) string {
			return fmt.Sprintf(`
  spec {
    policy_name        = %q
    validation_actions = ["Deny"]
    match_resources {
      namespace_selector {}
      object_selector {}
    }
  }
`, policy)
		},
		causes: []string{"spec[0].match_resources[0].namespace_selector", "spec[0].match_resources[0].object_selector"},
	},
	{
		label: "owner_policy", kind: mutatingPolicies, manifest: "owner-label-policy.yaml", tool: "kubectl-client-side-apply",
		body: func(string) string {
			return `
  spec {
    failure_policy      = "Fail"
    reinvocation_policy = "Never"
    match_constraints {
      namespace_selector {}
      object_selector {}
      resource_rules {
        api_groups   = ["apps"]
        api_versions = ["v1"]
        operations   = ["CREATE"]
        resources    = ["deployments"]
      }
    }
    mutations {
      patch_type = "ApplyConfiguration"
      apply_configuration {
        expression = <<-EOT
          Object{
            metadata: Object.metadata{
              labels: {"example.com/owner": "platform"}
            }
          }
        EOT
      }
    }
  }
`
		},
		causes: []string{"spec[0].match_constraints[0].namespace_selector", "spec[0].match_constraints[0].object_selector"},
	},
	{
		label: "owner_binding", kind: mutatingBindings, manifest: "owner-label-binding.yaml", tool: "kubectl-client-side-apply",
		body: func(policy string) string {
			return fmt.Sprintf(`
  spec {
    policy_name = %q
    match_resources {
      namespace_selector {}
      object_selector {
        match_expressions {
          key      = "example.com/skip-owner-label"
          operator = "DoesNotExist"
          values   = []
        }
      }
    }
  }
`, policy)
		},
		causes: []string{"spec[0].match_resources[0].namespace_selector", "spec[0].match_resources[0].object_selector[0].match_expressions[0].values"},
	},
}

func agentInjector(string) string {
	return webhookBlock(`    name                      = "agent-injector.secrets.example.com"
    admission_review_versions = ["v1", "v1beta1"]
    failure_policy            = "Ignore"
    match_policy              = "Exact"
    side_effects              = "None"
    timeout_seconds           = 30
    client_config {
      service {
        name      = "agent-injector-svc"
        namespace = "secrets"
        path      = "/mutate"
      }
      ca_bundle = ""
    }
    object_selector {
      match_expressions {
        key      = "app.kubernetes.io/name"
        operator = "NotIn"
        values   = ["agent-injector"]
      }
    }
    rule {
      api_groups   = [""]
      api_versions = ["v1"]
      operations   = ["CREATE"]
      resources    = ["pods"]
      scope        = "Namespaced"
    }
`)
}

func toolNamed(t *testing.T, name string) tool {
	t.Helper()
	for _, tl := range tools {
		if tl.name == name {
			return tl
		}
	}
	t.Fatalf("no tool %s", name)
	return tool{}
}

// spelled is the set of objects of spellings one test made.
type spelled struct {
	items   []spelling
	objects []object
	// runLabel is a label on every object (and in every configuration), for
	// terraform query.
	runLabel string
}

// makeSpellings makes the objects of spellings (those labelled only, if
// any), named <prefix>-<label>, each binding naming the policy of its family
// made before it, with the label runLabel=<prefix>.
func makeSpellings(t *testing.T, prefix string, only ...string) spelled {
	t.Helper()
	dyn, err := dynamic.NewForConfig(acctest.Cluster(t).RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	s := spelled{runLabel: "example.com/adoption-nowrite"}
	policies := map[string]string{}
	for _, sp := range spellings {
		if len(only) > 0 && !slices.Contains(only, sp.label) {
			continue
		}
		s.items = append(s.items, sp)
		tl := toolNamed(t, sp.tool)
		u := load(t, sp.manifest)
		name := prefix + "-" + strings.ReplaceAll(sp.label, "_", "-")
		u.SetName(name)
		u.SetLabels(merged(u.GetLabels(), map[string]string{s.runLabel: prefix}))
		if p := sp.kind.policyOf(); p != nil {
			if err := unstructured.SetNestedField(u.Object, policies[p.resourceType], "spec", "policyName"); err != nil {
				t.Fatal(err)
			}
		} else if sp.kind.resourceType != mutatingWebhooks.resourceType && sp.kind.resourceType != validatingWebhooks.resourceType {
			policies[sp.kind.resourceType] = name
		}
		o := object{kind: sp.kind, name: name, label: sp.label, address: sp.kind.resourceType + "." + sp.label,
			ownLabels: maps.Clone(u.GetLabels()), ownAnnotations: maps.Clone(u.GetAnnotations())}
		u.SetLabels(merged(u.GetLabels(), tl.labels))
		setAnnotations(u, tl.annotations)
		c := dyn.Resource(sp.kind.gvr())
		tl.make(t, c, u)
		t.Cleanup(func() { _ = c.Delete(context.Background(), name, metav1.DeleteOptions{}) })
		cur, err := c.Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		o.resourceVersion = cur.GetResourceVersion()
		s.objects = append(s.objects, o)
	}
	return s
}

// config is the configuration of the objects, with import blocks when
// imports is set; edit, when not nil, changes the resource block of the
// object at index i.
func (s spelled) config(t *testing.T, provider string, imports bool, edit func(i int, block string) string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(provider)
	policies := map[string]string{}
	for i, sp := range s.items {
		o := s.objects[i]
		policy := ""
		if p := sp.kind.policyOf(); p != nil {
			policy = policies[p.resourceType]
		} else {
			policies[sp.kind.resourceType] = o.name
		}
		labels := merged(maps.Clone(o.ownLabels), sp.labels)
		block := fmt.Sprintf("\nresource %q %q {\n  metadata {\n    name = %q\n%s  }%s}\n",
			sp.kind.resourceType, sp.label, o.name, metaLines(labels, o.ownAnnotations), sp.body(policy))
		if edit != nil {
			block = edit(i, block)
		}
		b.WriteString(block)
		if imports {
			fmt.Fprintf(&b, "\nimport {\n  to = %s\n  id = %q\n}\n", o.address, o.name)
		}
	}
	return b.String()
}

// wroteNothing checks that the objects at indexes are as their tool left
// them: the same resource version, and no managed fields of ours.
func wroteNothing(t *testing.T, dyn dynamic.Interface, s spelled, indexes ...int) error {
	for _, i := range indexes {
		o := s.objects[i]
		cur, err := get(t, dyn, o)
		if err != nil {
			return err
		}
		if cur.GetResourceVersion() != o.resourceVersion || slices.ContainsFunc(cur.GetManagedFields(), func(e metav1.ManagedFieldsEntry) bool { return e.Manager == ourManager }) {
			return fmt.Errorf("%s was written: resource version %s, then %s; managed fields %v", o.name, o.resourceVersion, cur.GetResourceVersion(), managers(cur))
		}
	}
	return nil
}

// written checks that the object at index i was written by Terraform since
// the tool made it.
func written(t *testing.T, dyn dynamic.Interface, s spelled, i int) error {
	o := s.objects[i]
	cur, err := get(t, dyn, o)
	if err != nil {
		return err
	}
	if cur.GetResourceVersion() == o.resourceVersion || !slices.ContainsFunc(cur.GetManagedFields(), func(e metav1.ManagedFieldsEntry) bool { return e.Manager == ourManager }) {
		return fmt.Errorf("%s was not written: resource version %s, then %s; managed fields %v", o.name, o.resourceVersion, cur.GetResourceVersion(), managers(cur))
	}
	return nil
}

// all are the indexes of every object of s.
func (s spelled) all() []int {
	out := make([]int, len(s.objects))
	for i := range out {
		out[i] = i
	}
	return out
}

// index is the index of the object of the spelling labelled label.
func (s spelled) index(t *testing.T, label string) int {
	t.Helper()
	i := slices.IndexFunc(s.items, func(sp spelling) bool { return sp.label == label })
	if i < 0 {
		t.Fatalf("no spelling %s", label)
	}
	return i
}

// TestAccUpdateWritesNothing imports the objects of spellings with import
// blocks: those whose configuration spells a value the server does not
// store plan an update, the others nothing; the apply writes none of them
// (same resource version, no managed fields of Terraform's), and the next
// plan is empty. Then objects that differ for real plan their change and the
// apply writes them: a label that another client added, which the
// configuration declares with another value, and a changed rule.
func TestAccUpdateWritesNothing(t *testing.T) {
	s := makeSpellings(t, "nowrite-"+strings.ToLower(sdkacctest.RandString(5)))
	dyn, err := dynamic.NewForConfig(acctest.Cluster(t).RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	var importChecks []plancheck.PlanCheck
	for i, sp := range s.items {
		action := plancheck.ResourceActionUpdate
		if len(sp.causes) == 0 {
			action = plancheck.ResourceActionNoop
		}
		importChecks = append(importChecks, plancheck.ExpectResourceAction(s.objects[i].address, action))
	}
	all := s.all()
	mutator, scaled := s.index(t, "pod_mutator"), s.index(t, "scaledobjects")
	provider := acctest.ProviderBlock(t)
	differ := s.config(t, provider, false, func(i int, block string) string {
		switch i {
		case mutator:
			return strings.Replace(block, "    labels = {\n", "    labels = {\n      \"team\" = \"search\"\n", 1)
		case scaled:
			return strings.Replace(block, `operations   = ["CREATE", "UPDATE"]`, `operations   = ["CREATE"]`, 1)
		}
		return block
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: s.config(t, provider, true, nil),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             importChecks,
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: func(*terraform.State) error { return wroteNothing(t, dyn, s, all...) },
			},
			{
				Config:   s.config(t, provider, false, nil),
				PlanOnly: true,
			},
			{
				PreConfig: func() {
					patch(t, dyn.Resource(s.objects[mutator].kind.gvr()), s.objects[mutator].name, "kubectl-label",
						map[string]any{"metadata": map[string]any{"labels": map[string]any{"team": "payments"}}})
					s.objects[mutator].resourceVersion = mustGet(t, dyn, s.objects[mutator]).GetResourceVersion()
				},
				Config: differ,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(s.objects[mutator].address, plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction(s.objects[scaled].address, plancheck.ResourceActionUpdate),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: func(*terraform.State) error {
					others := slices.DeleteFunc(slices.Clone(all), func(i int) bool { return i == mutator || i == scaled })
					return errorsOf(written(t, dyn, s, mutator), written(t, dyn, s, scaled), wroteNothing(t, dyn, s, others...),
						labelIs(t, dyn, s.objects[mutator], "team", "search")(nil))
				},
			},
		},
	})
}

func mustGet(t *testing.T, dyn dynamic.Interface, o object) *unstructured.Unstructured {
	t.Helper()
	cur, err := get(t, dyn, o)
	if err != nil {
		t.Fatal(err)
	}
	return cur
}

// errorsOf is the first error of errs.
func errorsOf(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// TestAccUpdateWritesNothingUnlessChanged imports an object whose
// configuration spells empty selectors, through a proxy that counts the
// requests and has another client change the object (its timeout, kubectl
// edit) while terraform apply runs: before the plan that apply makes again,
// or after it, just before the update reads the object. Either way the
// object is no longer the one the plan judged, and the apply writes it: the
// timeout is the configuration's again, Terraform's field manager owns it,
// and the next plan is empty. Unchanged, the proxy sees no write at all.
func TestAccUpdateWritesNothingUnlessChanged(t *testing.T) {
	for _, when := range []string{"never", "before the plan of the apply", "before the update"} {
		t.Run(when, func(t *testing.T) {
			t.Parallel()
			s := makeSpellings(t, "nowrite-race-"+strings.ToLower(sdkacctest.RandString(5)), "pod_mutator")
			o := s.objects[0]
			dyn, err := dynamic.NewForConfig(acctest.Cluster(t).RESTConfig())
			if err != nil {
				t.Fatal(err)
			}
			p := acctest.FaultProxy(t)
			// The plan of terraform plan makes one dry run, that of terraform
			// apply a second one; the update then reads the object.
			dryRuns := 0
			edit := func() {
				cur := mustGet(t, dyn, o)
				hooks, _, _ := unstructured.NestedSlice(cur.Object, "webhooks")
				if err := unstructured.SetNestedField(jsontest.Object(t, hooks, 0), int64(7), "timeoutSeconds"); err != nil {
					t.Errorf("kubectl edit: %v", err)
				}
				if err := unstructured.SetNestedSlice(cur.Object, hooks, "webhooks"); err != nil {
					t.Errorf("kubectl edit: %v", err)
				}
				if _, err := dyn.Resource(o.kind.gvr()).Update(context.Background(), cur, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
					t.Errorf("kubectl edit: %v", err)
				}
			}
			p.Inject(faultproxy.Fault{Action: faultproxy.Delay, Times: 1, Match: func(r *http.Request) bool {
				if !strings.HasSuffix(r.URL.Path, "/"+o.name) {
					return false
				}
				switch {
				case r.Method == http.MethodPatch && faultproxy.DryRun(r):
					dryRuns++
					if dryRuns == 2 && when == "before the plan of the apply" {
						edit()
						return true
					}
				case r.Method == http.MethodGet && dryRuns >= 2 && when == "before the update":
					edit()
					return true
				}
				return false
			}})
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				Steps: []resource.TestStep{{
					Config: s.config(t, acctest.ProxiedProvider(t, p), true, nil),
					ConfigPlanChecks: resource.ConfigPlanChecks{
						PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(o.address, plancheck.ResourceActionUpdate)},
						PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
					},
					Check: func(*terraform.State) error {
						if dryRuns < 2 {
							return fmt.Errorf("the proxy saw %d dry runs, want 2: the object was not changed %s", dryRuns, when)
						}
						if when == "never" {
							if n := faultproxy.Count(p.Records(), faultproxy.IsWrite); n > 0 {
								return fmt.Errorf("the proxy saw %d writes, want none", n)
							}
							return wroteNothing(t, dyn, s, 0)
						}
						if err := written(t, dyn, s, 0); err != nil {
							return err
						}
						hooks, _, _ := unstructured.NestedSlice(mustGet(t, dyn, o).Object, "webhooks")
						if v, _, _ := unstructured.NestedInt64(jsontest.Object(t, hooks, 0), "timeoutSeconds"); v != 5 {
							return fmt.Errorf("timeoutSeconds %d after the apply, want the configuration's 5", v)
						}
						return nil
					},
				}},
			})
		})
	}
}

// diagnostic is one diagnostic of CLI output: its summary and its text.
type diagnostic struct{ summary, text string }

// cliWarnings are the warnings of CLI output, in order: each from its
// "Warning:" line to the next diagnostic or the end.
func cliWarnings(out string) []diagnostic {
	var ds []diagnostic
	var cur *diagnostic
	for line := range strings.SplitSeq(out, "\n") {
		line = strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(line, "│"), "╷"), " ")
		switch {
		case strings.HasPrefix(line, "Warning: "), strings.HasPrefix(line, "Error: "):
			if cur != nil {
				ds = append(ds, *cur)
				cur = nil
			}
			if s, ok := strings.CutPrefix(line, "Warning: "); ok {
				cur = &diagnostic{summary: s}
			}
		case strings.HasPrefix(line, "╵"):
			if cur != nil {
				ds = append(ds, *cur)
				cur = nil
			}
		case cur != nil:
			cur.text += line + "\n"
		}
	}
	if cur != nil {
		ds = append(ds, *cur)
	}
	return ds
}

// noWriteWarnings are the warnings of out that an update writes nothing,
// by the name of the object.
func noWriteWarnings(t *testing.T, out string) map[string]diagnostic {
	t.Helper()
	ws := map[string]diagnostic{}
	for _, d := range cliWarnings(out) {
		var name string
		if n, _ := fmt.Sscanf(d.summary, "The update of %q writes nothing to the server", &name); n == 1 {
			if _, dup := ws[name]; dup {
				t.Errorf("two warnings for %s", name)
			}
			ws[name] = d
		}
	}
	return ws
}

// causeLines are the paths of the values a warning names, in order.
func causeLines(d diagnostic) []string {
	var paths []string
	for line := range strings.SplitSeq(d.text, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "- "); ok {
			p, _, _ := strings.Cut(rest, ": ")
			paths = append(paths, p)
		}
	}
	return paths
}

// TestAccUpdateWritesNothingCLI runs with the CLI what a person adopting the
// objects of spellings sees: the plan of the import shows, for each object
// whose configuration spells a value the server does not store, one warning
// that names those values and says the apply writes nothing; the apply
// writes none of the objects and the next plan is empty. Then a plan saved
// with a real change to two objects (a label another client added, which
// the configuration declares with another value; a changed rule) and with
// an empty selector added to a third warns only of the third; another client
// changes the third before the saved plan is applied, and the apply writes
// all three. Last, `terraform query -generate-config-out` writes none of the
// values the warnings name, and its configuration imports the objects with
// nothing to change.
func TestAccUpdateWritesNothingCLI(t *testing.T) {
	acctest.TerraformCLI(t) // skips, saying why, with a CLI that has no `terraform query`
	prefix := "nowrite-cli-" + strings.ToLower(sdkacctest.RandString(5))
	s := makeSpellings(t, prefix)
	dyn, err := dynamic.NewForConfig(acctest.Cluster(t).RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	updates := 0
	for _, sp := range s.items {
		if len(sp.causes) > 0 {
			updates++
		}
	}
	tf := newModule(t)
	tf.write("main.tf", s.config(t, acctest.ProviderBlock(t), true, nil))
	planned := tf.plan(fmt.Sprintf("Plan: %d to import, 0 to add, %d to change, 0 to destroy.", len(s.objects), updates))
	ws := noWriteWarnings(t, planned)
	for i, sp := range s.items {
		o := s.objects[i]
		w, warned := ws[o.name]
		switch {
		case len(sp.causes) == 0 && warned:
			t.Errorf("%s plans no change, yet warns:\n%s", o.name, w.text)
		case len(sp.causes) > 0 && !warned:
			t.Errorf("%s: no warning that the update writes nothing", o.name)
		case warned:
			if got := causeLines(w); !slices.Equal(got, sp.causes) {
				t.Errorf("%s: the warning names %q, want %q:\n%s", o.name, got, sp.causes, w.text)
			}
			if !strings.Contains(w.text, "with "+o.address+",") {
				t.Errorf("%s: the warning is not on %s:\n%s", o.name, o.address, w.text)
			}
			t.Logf("figures: warning of %s (%s):\n%s", o.address, sp.tool, w.text)
		}
	}
	if len(ws) != updates {
		t.Errorf("%d warnings that an update writes nothing, want %d:\n%s", len(ws), updates, planned)
	}
	out := tf.mustRun("apply", "-auto-approve", "-input=false")
	if !strings.Contains(out, fmt.Sprintf("Resources: %d imported, 0 added, %d changed, 0 destroyed.", len(s.objects), updates)) {
		t.Fatalf("the apply of the import:\n%s", out)
	}
	if ws := newWarnings(planned, out); len(ws) > 0 {
		t.Errorf("the apply of the import warns %q:\n%s", ws, out)
	}
	if err := wroteNothing(t, dyn, s, s.all()...); err != nil {
		t.Error(err)
	}
	tf.plan("")

	// A saved plan with two real changes and one that writes nothing; the
	// third object then changes before the apply.
	mutator, scaled, identity := s.index(t, "pod_mutator"), s.index(t, "scaledobjects"), s.index(t, "pod_identity")
	patch(t, dyn.Resource(s.objects[mutator].kind.gvr()), s.objects[mutator].name, "kubectl-label",
		map[string]any{"metadata": map[string]any{"labels": map[string]any{"team": "payments"}}})
	tf.write("main.tf", s.config(t, acctest.ProviderBlock(t), false, func(i int, block string) string {
		switch i {
		case mutator:
			return strings.Replace(block, "    labels = {\n", "    labels = {\n      \"team\" = \"search\"\n", 1)
		case scaled:
			return strings.Replace(block, `operations   = ["CREATE", "UPDATE"]`, `operations   = ["CREATE"]`, 1)
		case identity:
			return strings.Replace(block, "    object_selector {", "    namespace_selector {}\n    object_selector {", 1)
		}
		return block
	}))
	out, code := tf.run("plan", "-input=false", "-detailed-exitcode", "-out=tfplan")
	if code != 2 || !strings.Contains(out, "Plan: 0 to add, 3 to change, 0 to destroy.") {
		t.Fatalf("the plan of the changes (exit %d):\n%s", code, out)
	}
	ws = noWriteWarnings(t, out)
	if w, ok := ws[s.objects[identity].name]; len(ws) != 1 || !ok || !slices.Equal(causeLines(w), []string{"webhook[0].namespace_selector"}) {
		t.Errorf("the plan of the changes warns %v, want one warning, that the update of %s writes nothing, naming its namespace_selector:\n%s",
			slices.Sorted(maps.Keys(ws)), s.objects[identity].name, out)
	}
	cur := mustGet(t, dyn, s.objects[identity])
	hooks, _, _ := unstructured.NestedSlice(cur.Object, "webhooks")
	if err := unstructured.SetNestedField(jsontest.Object(t, hooks, 0), int64(20), "timeoutSeconds"); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedSlice(cur.Object, hooks, "webhooks"); err != nil {
		t.Fatal(err)
	}
	if _, err := dyn.Resource(s.objects[identity].kind.gvr()).Update(context.Background(), cur, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
		t.Fatal(err)
	}
	out = tf.mustRun("apply", "-input=false", "tfplan")
	if !strings.Contains(out, "Resources: 0 added, 3 changed, 0 destroyed.") {
		t.Fatalf("the apply of the saved plan:\n%s", out)
	}
	for _, i := range []int{mutator, scaled, identity} {
		if err := written(t, dyn, s, i); err != nil {
			t.Error(err)
		}
	}
	hooks, _, _ = unstructured.NestedSlice(mustGet(t, dyn, s.objects[identity]).Object, "webhooks")
	if v, _, _ := unstructured.NestedInt64(jsontest.Object(t, hooks, 0), "timeoutSeconds"); v != 10 {
		t.Errorf("timeoutSeconds of %s is %d after the apply, want the configuration's 10", s.objects[identity].name, v)
	}
	others := slices.DeleteFunc(s.all(), func(i int) bool { return i == mutator || i == scaled || i == identity })
	if err := wroteNothing(t, dyn, s, others...); err != nil {
		t.Error(err)
	}
	tf.plan("")

	// terraform query writes none of these values.
	q := newModule(t)
	q.write("main.tf", acctest.ProviderBlock(t))
	var lists strings.Builder
	for _, k := range kinds {
		fmt.Fprintf(&lists, "list %q %q {\n  provider = admission\n  config {\n    label_selector = %q\n  }\n}\n\n",
			k.resourceType, strings.TrimPrefix(k.resourceType, "admission_"), s.runLabel+"="+prefix)
	}
	q.write("find.tfquery.hcl", lists.String())
	out = q.mustRun("query", "-generate-config-out=generated.tf")
	raw, err := os.ReadFile(filepath.Join(q.dir, "generated.tf"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	gen := string(raw)
	for _, o := range s.objects {
		if !strings.Contains(gen, fmt.Sprintf("%q", o.name)) {
			t.Errorf("generated.tf does not import %s", o.name)
		}
	}
	for _, re := range []string{`_selector\s*\{\s*\}`, `values\s*=\s*\[\s*\]`, `ca_bundle`, `app\.kubernetes\.io/managed-by`} {
		if m := regexp.MustCompile(re).FindString(gen); m != "" {
			t.Errorf("generated.tf holds %q", m)
		}
	}
	if t.Failed() {
		t.Fatalf("generated.tf:\n%s", gen)
	}
	q.plan(fmt.Sprintf("Plan: %d to import, 0 to add, 0 to change, 0 to destroy.", len(s.objects)))
}
