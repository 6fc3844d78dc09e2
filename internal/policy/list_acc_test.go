package policy_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	sdkacctest "github.com/hashicorp/terraform-plugin-testing/helper/acctest"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/querycheck"
	"github.com/hashicorp/terraform-plugin-testing/querycheck/queryfilter"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
)

// listLabel marks the objects a list test made, with a value of its own, so
// that tests running side by side do not see each other's objects.
const listLabel = "example.com/list-test"

// deploymentRules are the match constraints of the listed policies.
func deploymentRules() *admissionregistrationv1.MatchResources {
	return &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
		RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
		},
	}}}
}

// createListedPolicies makes, with client-go, one object of each policy
// kind named name, with labels, as a chart would install them, and deletes
// them when the test ends.
func createListedPolicies(t *testing.T, cs kubernetes.Interface, name string, labels map[string]string) {
	t.Helper()
	ctx := context.Background()
	meta := metav1.ObjectMeta{Name: name, Labels: labels}
	api := cs.AdmissionregistrationV1()
	check := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("create the %s %s with client-go: %v", what, name, err)
		}
	}
	_, err := api.ValidatingAdmissionPolicies().Create(ctx, &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: meta,
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: deploymentRules(),
			Validations:      []admissionregistrationv1.Validation{{Expression: "object.spec.replicas <= 5", Message: "at most 5 replicas"}},
		}}, metav1.CreateOptions{})
	check("ValidatingAdmissionPolicy", err)
	_, err = api.ValidatingAdmissionPolicyBindings().Create(ctx, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: meta,
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Warn},
			MatchResources: &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{
				MatchLabels: map[string]string{"kubernetes.io/metadata.name": "list-test-nowhere"},
			}},
		}}, metav1.CreateOptions{})
	check("ValidatingAdmissionPolicyBinding", err)
	_, err = api.MutatingAdmissionPolicies().Create(ctx, &admissionregistrationv1.MutatingAdmissionPolicy{ObjectMeta: meta,
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			MatchConstraints:   deploymentRules(),
			ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
			Mutations: []admissionregistrationv1.Mutation{{
				PatchType:          admissionregistrationv1.PatchTypeApplyConfiguration,
				ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: "Object{metadata: Object.metadata{labels: {'team': 'a'}}}"},
			}},
		}}, metav1.CreateOptions{})
	check("MutatingAdmissionPolicy", err)
	_, err = api.MutatingAdmissionPolicyBindings().Create(ctx, &admissionregistrationv1.MutatingAdmissionPolicyBinding{ObjectMeta: meta,
		Spec: admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{
			PolicyName: name,
			MatchResources: &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{
				MatchLabels: map[string]string{"kubernetes.io/metadata.name": "list-test-nowhere"},
			}},
		}}, metav1.CreateOptions{})
	check("MutatingAdmissionPolicyBinding", err)
	t.Cleanup(func() {
		for what, err := range map[string]error{
			"ValidatingAdmissionPolicyBinding": api.ValidatingAdmissionPolicyBindings().Delete(ctx, name, metav1.DeleteOptions{}),
			"ValidatingAdmissionPolicy":        api.ValidatingAdmissionPolicies().Delete(ctx, name, metav1.DeleteOptions{}),
			"MutatingAdmissionPolicyBinding":   api.MutatingAdmissionPolicyBindings().Delete(ctx, name, metav1.DeleteOptions{}),
			"MutatingAdmissionPolicy":          api.MutatingAdmissionPolicies().Delete(ctx, name, metav1.DeleteOptions{}),
		} {
			if err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("delete the %s %s: %v", what, name, err)
			}
		}
	})
}

// policyKinds are the type names of the family's resources and list
// resources.
var policyKinds = []string{
	"admission_validating_admission_policy", "admission_validating_admission_policy_binding",
	"admission_mutating_admission_policy", "admission_mutating_admission_policy_binding",
}

// `terraform query` finds the objects of every policy kind by label
// selector and by name, sorted, with identities and, with include_resource,
// the objects as the resource reads them; a selector that the server
// rejects is an error on label_selector.
func TestAccPolicyListQuery(t *testing.T) {
	t.Parallel()
	cs := acctest.Clientset(t)
	value := sdkacctest.RandString(12)
	labels := map[string]string{listLabel: value, "app.kubernetes.io/managed-by": "Helm"}
	first, second, unlabelled := "a-"+randomName(), "b-"+randomName(), randomName()
	createListedPolicies(t, cs, second, labels)
	createListedPolicies(t, cs, first, labels)
	createListedPolicies(t, cs, unlabelled, nil)

	byName := func(name string) map[string]knownvalue.Check {
		return map[string]knownvalue.Check{"name": knownvalue.StringExact(name)}
	}
	selector := fmt.Sprintf("label_selector = %q", listLabel+"="+value)
	var cfg strings.Builder
	cfg.WriteString(acctest.ProviderBlock(t))
	var checks []querycheck.QueryResultCheck
	for _, kind := range policyKinds {
		fmt.Fprintf(&cfg, `
list %[1]q "labelled" {
  provider         = admission
  include_resource = true
  config {
    %[2]s
  }
}

list %[1]q "by_name" {
  provider = admission
  config {
    name = %[3]q
  }
}

list %[1]q "labelled_by_name" {
  provider = admission
  config {
    %[2]s
    name = %[3]q
  }
}
`, kind, selector, unlabelled)
		checks = append(checks,
			querycheck.ExpectLength(kind+".labelled", 2),
			querycheck.ExpectIdentity(kind+".labelled", byName(first)),
			querycheck.ExpectIdentity(kind+".labelled", byName(second)),
			querycheck.ExpectResourceDisplayName(kind+".labelled", queryfilter.ByResourceIdentity(byName(first)), knownvalue.StringExact(first)),
			querycheck.ExpectResourceKnownValues(kind+".labelled", queryfilter.ByResourceIdentity(byName(first)), []querycheck.KnownValueCheck{
				{Path: tfjsonpath.New("id"), KnownValue: knownvalue.StringExact(first)},
				{Path: tfjsonpath.New("metadata").AtSliceIndex(0).AtMapKey("labels").AtMapKey(listLabel), KnownValue: knownvalue.StringExact(value)},
			}),
			querycheck.ExpectLength(kind+".by_name", 1),
			querycheck.ExpectIdentity(kind+".by_name", byName(unlabelled)),
			querycheck.ExpectLength(kind+".labelled_by_name", 0),
		)
	}
	// Server defaults and the spec are read too.
	checks = append(checks,
		querycheck.ExpectResourceKnownValues("admission_validating_admission_policy.labelled", queryfilter.ByResourceIdentity(byName(second)), []querycheck.KnownValueCheck{
			{Path: tfjsonpath.New("spec").AtSliceIndex(0).AtMapKey("failure_policy"), KnownValue: knownvalue.StringExact("Fail")},
			{Path: tfjsonpath.New("spec").AtSliceIndex(0).AtMapKey("validations").AtSliceIndex(0).AtMapKey("message"), KnownValue: knownvalue.StringExact("at most 5 replicas")},
		}),
		querycheck.ExpectResourceKnownValues("admission_mutating_admission_policy_binding.labelled", queryfilter.ByResourceIdentity(byName(second)), []querycheck.KnownValueCheck{
			{Path: tfjsonpath.New("spec").AtSliceIndex(0).AtMapKey("policy_name"), KnownValue: knownvalue.StringExact(second)},
		}),
	)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)},
		Steps: []resource.TestStep{
			{Query: true, Config: cfg.String(), QueryResultChecks: checks},
			{
				Query: true,
				Config: acctest.ProviderBlock(t) + `
list "admission_mutating_admission_policy" "bad" {
  provider = admission
  config {
    label_selector = "app in (a"
  }
}
`,
				ExpectError: regexp.MustCompile(`Invalid label selector`),
			},
		},
	})
}

// Policies and bindings installed by another tool are found with
// `terraform query` by their label, -generate-config-out writes import
// blocks and a configuration to keep (no read-only attributes, no
// timeouts), and applying it imports them without changing them, after
// which the plan is empty. Run with the real CLI and the provider binary.
func TestAccPolicyListGenerateConfigAdoptsObjects(t *testing.T) {
	t.Parallel()
	cliConfig := acctest.DevProvider(t)
	tf := acctest.TerraformCLI(t)
	cs := acctest.Clientset(t)
	value := sdkacctest.RandString(12)
	name := randomName()
	createListedPolicies(t, cs, name, map[string]string{listLabel: value, "app.kubernetes.io/managed-by": "Helm"})
	before := policyVersions(t, cs, name)

	module := t.TempDir()
	write := func(file, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(module, file), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("main.tf", `terraform {
  required_providers {
    admission = { source = "seed-a73d233f/admission" }
  }
}

`+acctest.ProviderBlock(t))
	var query strings.Builder
	for _, kind := range policyKinds {
		fmt.Fprintf(&query, "list %q \"helm\" {\n  provider = admission\n  config {\n    label_selector = %q\n  }\n}\n\n", kind, listLabel+"="+value)
	}
	write("adopt.tfquery.hcl", query.String())

	acctest.MustRun(t, module, cliConfig, tf, "query", "-generate-config-out=generated.tf", "-no-color")
	generated, err := os.ReadFile(filepath.Join(module, "generated.tf"))
	if err != nil {
		t.Fatal(err)
	}
	gen := string(generated)
	for _, kind := range policyKinds {
		if n := strings.Count(gen, fmt.Sprintf("resource %q", kind)); n != 1 {
			t.Errorf("generated.tf has %d resource blocks of %s, want 1:\n%s", n, kind, gen)
		}
	}
	if found := acctest.ReadOnlyInGeneratedConfig(gen); len(found) > 0 {
		t.Errorf("generated.tf sets read-only attributes or timeouts %q:\n%s", found, gen)
	}
	if t.Failed() {
		t.FailNow()
	}

	out := acctest.MustRun(t, module, cliConfig, tf, "plan", "-input=false", "-no-color")
	if !strings.Contains(out, "Plan: 4 to import, 0 to add, 0 to change, 0 to destroy.") {
		t.Fatalf("the plan of the generated configuration does more than import:\n%s\n%s", out, gen)
	}
	acctest.MustRun(t, module, cliConfig, tf, "apply", "-auto-approve", "-input=false", "-no-color")
	if after := policyVersions(t, cs, name); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("the import changed the objects: resource versions %v, then %v", before, after)
	}
	if out, code := acctest.Run(t, module, cliConfig, tf, "plan", "-detailed-exitcode", "-input=false", "-no-color"); code != 0 {
		t.Fatalf("the plan after adopting the objects is not empty (exit %d):\n%s\n%s", code, out, gen)
	}
	// The objects stay: the test's cleanup deletes them, and the state that
	// names them is left in the temporary directory.
}

// policyVersions are the resource versions of the four objects named name:
// they change with any write.
func policyVersions(t *testing.T, cs kubernetes.Interface, name string) []string {
	t.Helper()
	ctx := context.Background()
	api := cs.AdmissionregistrationV1()
	var out []string
	add := func(rv string, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rv)
	}
	vap, err := api.ValidatingAdmissionPolicies().Get(ctx, name, metav1.GetOptions{})
	add(rvOf(vap, err))
	vapb, err := api.ValidatingAdmissionPolicyBindings().Get(ctx, name, metav1.GetOptions{})
	add(rvOf(vapb, err))
	mp, err := api.MutatingAdmissionPolicies().Get(ctx, name, metav1.GetOptions{})
	add(rvOf(mp, err))
	mpb, err := api.MutatingAdmissionPolicyBindings().Get(ctx, name, metav1.GetOptions{})
	add(rvOf(mpb, err))
	return out
}

func rvOf(obj metav1.Object, err error) (string, error) {
	if err != nil {
		return "", err
	}
	return obj.GetResourceVersion(), nil
}
