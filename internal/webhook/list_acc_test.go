package webhook_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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

// helmLabels are the labels and annotations Helm puts on what it installs:
// the objects a query is for.
func helmLabels(value string) (labels, annotations map[string]string) {
	return map[string]string{listLabel: value, "app.kubernetes.io/managed-by": "Helm"},
		map[string]string{"meta.helm.sh/release-name": "injector", "meta.helm.sh/release-namespace": "injector"}
}

// listedWebhook is the webhook of the objects the list tests make, with more
// than the server requires, as a chart would install it.
func listedWebhook() admissionregistrationv1.MutatingWebhook {
	none := admissionregistrationv1.SideEffectClassNone
	ignore := admissionregistrationv1.Ignore
	return admissionregistrationv1.MutatingWebhook{
		Name:                    "sidecar.example.com",
		AdmissionReviewVersions: []string{"v1"},
		SideEffects:             &none,
		FailurePolicy:           &ignore,
		TimeoutSeconds:          ptr(int32(5)),
		ClientConfig: admissionregistrationv1.WebhookClientConfig{
			Service: &admissionregistrationv1.ServiceReference{Namespace: "injector", Name: "injector", Path: ptr("/mutate")},
		},
		Rules: []admissionregistrationv1.RuleWithOperations{{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
		}},
		NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
			Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"kube-system"},
		}}},
	}
}

// createListed makes, with client-go, a MutatingWebhookConfiguration, or
// with validating a ValidatingWebhookConfiguration, named name with the
// given labels and annotations, and deletes it when the test ends.
func createListed(t *testing.T, cs kubernetes.Interface, validating bool, name string, labels, annotations map[string]string) {
	t.Helper()
	ctx := context.Background()
	meta := metav1.ObjectMeta{Name: name, Labels: labels, Annotations: annotations}
	api := cs.AdmissionregistrationV1()
	var err error
	if validating {
		w := listedWebhook()
		_, err = api.ValidatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{
			ObjectMeta: meta,
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{
				Name: w.Name, AdmissionReviewVersions: w.AdmissionReviewVersions, SideEffects: w.SideEffects,
				FailurePolicy: w.FailurePolicy, TimeoutSeconds: w.TimeoutSeconds, ClientConfig: w.ClientConfig,
				Rules: w.Rules, NamespaceSelector: w.NamespaceSelector,
			}},
		}, metav1.CreateOptions{})
	} else {
		_, err = api.MutatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.MutatingWebhookConfiguration{
			ObjectMeta: meta,
			Webhooks:   []admissionregistrationv1.MutatingWebhook{listedWebhook()},
		}, metav1.CreateOptions{})
	}
	if err != nil {
		t.Fatalf("create %s with client-go: %v", name, err)
	}
	t.Cleanup(func() {
		var err error
		if validating {
			err = api.ValidatingWebhookConfigurations().Delete(ctx, name, metav1.DeleteOptions{})
		} else {
			err = api.MutatingWebhookConfigurations().Delete(ctx, name, metav1.DeleteOptions{})
		}
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("delete %s: %v", name, err)
		}
	})
}

// `terraform query` finds by label selector and by name, with identities,
// display names and, with include_resource, the objects as the resource
// reads them; a selector that the server rejects is an error on
// label_selector. List resources need Terraform 1.14: older CLIs and
// OpenTofu skip this test and say so.
func TestAccListQuery(t *testing.T) {
	cs := acctest.Clientset(t)
	value := sdkacctest.RandString(12)
	labels, annotations := helmLabels(value)
	labelled, unlabelled, validating := randomName(), randomName(), randomName()
	createListed(t, cs, false, labelled, labels, annotations)
	createListed(t, cs, false, unlabelled, nil, nil)
	createListed(t, cs, true, validating, labels, annotations)

	mutatingList := func(name, config string) string {
		return fmt.Sprintf(`
list "admission_mutating_webhook_configuration" %q {
  provider         = admission
  include_resource = true
  config {
    %s
  }
}
`, name, config)
	}
	selector := fmt.Sprintf("label_selector = %q", listLabel+"="+value)
	byName := func(name string) map[string]knownvalue.Check {
		return map[string]knownvalue.Check{"name": knownvalue.StringExact(name)}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)},
		Steps: []resource.TestStep{
			{
				Query: true,
				Config: acctest.ProviderBlock(t) +
					mutatingList("labelled", selector) +
					mutatingList("by_name", fmt.Sprintf("name = %q", unlabelled)) +
					mutatingList("labelled_by_name", selector+fmt.Sprintf("\n    name = %q", unlabelled)) +
					mutatingList("none", fmt.Sprintf("label_selector = %q", listLabel+"="+value+"-none")) + fmt.Sprintf(`
list "admission_validating_webhook_configuration" "labelled" {
  provider = admission
  config {
    %s
  }
}
`, selector),
				QueryResultChecks: []querycheck.QueryResultCheck{
					querycheck.ExpectLength("admission_mutating_webhook_configuration.labelled", 1),
					querycheck.ExpectIdentity("admission_mutating_webhook_configuration.labelled", byName(labelled)),
					querycheck.ExpectResourceDisplayName("admission_mutating_webhook_configuration.labelled",
						queryfilter.ByResourceIdentity(byName(labelled)), knownvalue.StringExact(labelled)),
					querycheck.ExpectResourceKnownValues("admission_mutating_webhook_configuration.labelled",
						queryfilter.ByResourceIdentity(byName(labelled)), []querycheck.KnownValueCheck{
							{Path: tfjsonpath.New("id"), KnownValue: knownvalue.StringExact(labelled)},
							// Helm's app.kubernetes.io/managed-by is its bookkeeping, not read (metadata.Own).
							{Path: tfjsonpath.New("metadata").AtSliceIndex(0).AtMapKey("labels"), KnownValue: knownvalue.MapExact(map[string]knownvalue.Check{
								listLabel: knownvalue.StringExact(value),
							})},
							{Path: tfjsonpath.New("metadata").AtSliceIndex(0).AtMapKey("annotations"), KnownValue: knownvalue.Null()},
							// Server defaults are read too.
							{Path: webhookPath(0, "reinvocation_policy"), KnownValue: knownvalue.StringExact("Never")},
							{Path: webhookPath(0, "match_policy"), KnownValue: knownvalue.StringExact("Equivalent")},
							{Path: webhookPath(0, "timeout_seconds"), KnownValue: knownvalue.Int64Exact(5)},
							{Path: webhookPath(0, "client_config", 0, "service", 0, "port"), KnownValue: knownvalue.Int64Exact(443)},
						}),
					querycheck.ExpectLength("admission_mutating_webhook_configuration.by_name", 1),
					querycheck.ExpectIdentity("admission_mutating_webhook_configuration.by_name", byName(unlabelled)),
					// Both filters apply: the unlabelled object is not found by the selector.
					querycheck.ExpectLength("admission_mutating_webhook_configuration.labelled_by_name", 0),
					querycheck.ExpectLength("admission_mutating_webhook_configuration.none", 0),
					querycheck.ExpectLength("admission_validating_webhook_configuration.labelled", 1),
					querycheck.ExpectIdentity("admission_validating_webhook_configuration.labelled", byName(validating)),
				},
			},
			{
				Query:       true,
				Config:      acctest.ProviderBlock(t) + mutatingList("bad", `label_selector = "app in (a"`),
				ExpectError: regexp.MustCompile(`Invalid label selector`),
			},
		},
	})
}

// The story of list resources: webhook configurations installed by another
// tool (a Helm chart) are found with `terraform query` by their label,
// -generate-config-out writes import blocks and configuration for them, and
// applying that imports them without changing them, after which the plan is
// empty. Run with the real CLI and the provider binary, as a user would.
func TestAccListGenerateConfigAdoptsObjects(t *testing.T) {
	t.Parallel() // lists only the objects it labels
	rc := acctest.DevProvider(t)
	tf := acctest.TerraformCLI(t)
	work := t.TempDir()

	cs := acctest.Clientset(t)
	value := sdkacctest.RandString(12)
	labels, annotations := helmLabels(value)
	mutatingName, unlabelled, validatingName := randomName(), randomName(), randomName()
	createListed(t, cs, false, mutatingName, labels, annotations)
	createListed(t, cs, false, unlabelled, nil, nil)
	createListed(t, cs, true, validatingName, labels, annotations)
	before := resourceVersions(t, cs, mutatingName, validatingName)

	module := filepath.Join(work, "module")
	write := func(name, content string) {
		t.Helper()
		if err := os.MkdirAll(module, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(module, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("main.tf", `terraform {
  required_providers {
    admission = { source = "seed-a73d233f/admission" }
  }
}

`+acctest.ProviderBlock(t))
	write("adopt.tfquery.hcl", fmt.Sprintf(`list "admission_mutating_webhook_configuration" "helm" {
  provider = admission
  config {
    label_selector = %[1]q
  }
}

list "admission_validating_webhook_configuration" "helm" {
  provider = admission
  config {
    label_selector = %[1]q
  }
}
`, listLabel+"="+value))

	// What the query finds: exactly the labelled object of each kind.
	found := map[string][]string{}
	out := run(t, module, rc, tf, "query", "-json", "-no-color")
	for _, m := range jsonLines(t, out) {
		if m.Type != "list_resource_found" {
			continue
		}
		found[m.ListResourceFound.Address] = append(found[m.ListResourceFound.Address], m.ListResourceFound.Identity["name"])
		if m.ListResourceFound.DisplayName != m.ListResourceFound.Identity["name"] {
			t.Errorf("display name %q of %v", m.ListResourceFound.DisplayName, m.ListResourceFound.Identity)
		}
	}
	want := map[string][]string{
		"list.admission_mutating_webhook_configuration.helm":   {mutatingName},
		"list.admission_validating_webhook_configuration.helm": {validatingName},
	}
	if fmt.Sprint(found) != fmt.Sprint(want) {
		t.Fatalf("terraform query found %v, want %v:\n%s", found, want, out)
	}

	// The generated configuration imports and configures them, and nothing else.
	run(t, module, rc, tf, "query", "-generate-config-out=generated.tf", "-no-color")
	generated, err := os.ReadFile(filepath.Join(module, "generated.tf"))
	if err != nil {
		t.Fatal(err)
	}
	gen := string(generated)
	for _, s := range []string{
		`resource "admission_mutating_webhook_configuration"`, `resource "admission_validating_webhook_configuration"`,
		fmt.Sprintf("name = %q", mutatingName), fmt.Sprintf("name = %q", validatingName), "identity = {",
	} {
		if !regexp.MustCompile(`(?m)` + strings.ReplaceAll(regexp.QuoteMeta(s), " = ", `\s*=\s*`)).MatchString(gen) {
			t.Errorf("generated.tf lacks %s:\n%s", s, gen)
		}
	}
	if strings.Contains(gen, unlabelled) {
		t.Errorf("generated.tf names the unlabelled %s:\n%s", unlabelled, gen)
	}
	if found := acctest.ReadOnlyInGeneratedConfig(gen); len(found) > 0 {
		t.Errorf("generated.tf sets read-only attributes or timeouts %q:\n%s", found, gen)
	}
	if t.Failed() {
		t.FailNow()
	}

	// Applying it imports both objects and changes nothing.
	out = run(t, module, rc, tf, "plan", "-input=false", "-no-color")
	if !strings.Contains(out, "Plan: 2 to import, 0 to add, 0 to change, 0 to destroy.") {
		t.Fatalf("the plan of the generated configuration does more than import:\n%s\n%s", out, gen)
	}
	run(t, module, rc, tf, "apply", "-auto-approve", "-input=false", "-no-color")
	if after := resourceVersions(t, cs, mutatingName, validatingName); !slices.Equal(after, before) {
		t.Errorf("the import changed the objects: resource versions %v, then %v", before, after)
	}
	state := run(t, module, rc, tf, "state", "list")
	if got := strings.Fields(state); len(got) != 2 {
		t.Errorf("state after the import: %q, want the two imported objects", got)
	}
	if out, code := runStatus(t, module, rc, tf, "plan", "-detailed-exitcode", "-input=false", "-no-color"); code != 0 {
		t.Fatalf("the plan after adopting the objects is not empty (exit %d):\n%s\n%s", code, out, gen)
	}
}

// queryMessage is a line of `terraform query -json` (Terraform's machine
// readable UI, command/views/json): the results of list blocks are
// "list_resource_found" messages.
type queryMessage struct {
	Type              string `json:"type"`
	ListResourceFound struct {
		Address     string            `json:"address"`
		DisplayName string            `json:"display_name"`
		Identity    map[string]string `json:"identity"`
	} `json:"list_resource_found"`
}

func jsonLines(t *testing.T, out string) []queryMessage {
	t.Helper()
	var msgs []queryMessage
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var m queryMessage
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("terraform query -json: %v\n%s", err, line)
		}
		msgs = append(msgs, m)
	}
	return msgs
}

// resourceVersions are the resource versions of the mutating and the
// validating webhook configuration named: they change with any write.
func resourceVersions(t *testing.T, cs kubernetes.Interface, mutatingName, validatingName string) []string {
	t.Helper()
	ctx := context.Background()
	m, err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx, mutatingName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, validatingName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return []string{m.ResourceVersion, v.ResourceVersion}
}
