package validation

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"sigs.k8s.io/yaml"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/typecheck"
)

// The lockout check on the webhook configurations of public projects (testdata/real, README
// there): the one that really can take a cluster down warns, the rest stay silent.
func TestLockoutRealConfigurations(t *testing.T) {
	// want is, per file, the lockout warnings expected: "<webhooks[i] name>: <summary>".
	want := map[string][]string{
		"cert-manager-validating.yaml":  nil, // custom resources only
		"ingress-nginx-validating.yaml": nil, // ingresses: nothing the cluster needs to stay up
		"istio-sidecar-injector.yaml":   nil, // opt-in namespace label istio-injection=enabled
		"istio-validator.yaml":          nil, // istio's custom resources, opt-in object label
		"vault-agent-injector.yaml":     nil, // failurePolicy Ignore
		// Fail-closed on every Service in every namespace (the object selector only leaves
		// out the controller's own): kube-dns in kube-system, and default/kubernetes.
		"aws-load-balancer-controller-mutating.yaml": {
			"mservice.elbv2.k8s.aws: " + SummaryFailClosedSystem,
			"mservice.elbv2.k8s.aws: " + SummaryFailClosedRBAC,
		},
		"aws-load-balancer-controller-validating.yaml": nil, // custom resources and ingresses
	}
	files, err := filepath.Glob("testdata/real/*.yaml")
	if err != nil || len(files) != len(want) {
		t.Fatalf("testdata/real holds %d files (%v), want %d", len(files), err, len(want))
	}
	perRule := map[string]int{}
	hooks := 0
	for _, f := range files {
		name := filepath.Base(f)
		expected, ok := want[name]
		if !ok {
			t.Errorf("%s: no expectation", name)
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var head struct{ Kind string }
		if err := yaml.Unmarshal(data, &head); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// Both kinds as the provider checks them: a validating configuration in the mutating
		// type (its fields are a subset), called in parallel.
		js, err := yaml.YAMLToJSON(data)
		if err != nil {
			t.Fatal(err)
		}
		obj := &admissionregistrationv1.MutatingWebhookConfiguration{}
		if err := json.Unmarshal(js, obj); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		hooks += len(obj.Webhooks)
		if errs := Offline(WebhookCheck(Default(obj.DeepCopy()), nil)); len(errs) != 0 {
			t.Errorf("%s: not a valid configuration: %v", name, errs)
		}
		serial := head.Kind == "MutatingWebhookConfiguration"
		var got []string
		for _, w := range Advice(Default(obj), typecheck.BuiltinScopes(), serial) {
			if !strings.HasPrefix(w.Summary, "Fail-closed") {
				continue
			}
			perRule[w.Summary]++
			i := 0
			if w.Path.String() != "" {
				// webhooks[i].failurePolicy
				s := strings.TrimPrefix(w.Path.String(), "webhooks[")
				for _, c := range s {
					if c < '0' || c > '9' {
						break
					}
					i = i*10 + int(c-'0')
				}
			}
			got = append(got, obj.Webhooks[i].Name+": "+w.Summary)
			t.Logf("%s: %s", name, w)
		}
		sort.Strings(got)
		sort.Strings(expected)
		if strings.Join(got, "\n") != strings.Join(expected, "\n") {
			t.Errorf("%s: got\n  %s\nwant\n  %s", name, strings.Join(got, "\n  "), strings.Join(expected, "\n  "))
		}
	}
	t.Logf("%d configurations, %d webhooks; warnings per rule: %v", len(files), hooks, perRule)
}
