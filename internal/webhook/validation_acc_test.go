package webhook_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/advice"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/jsontest"
)

// Plan-time validation as a user meets it: the mistakes the API server would reject fail
// `terraform plan` (and validate) on the line to change, with or without a cluster; what only the
// live cluster knows fails the plan through the dry run; a dry run that cannot be done does not
// fail the plan; and advice (warnings) never stops an apply.

// validationConfig is a valid configuration that each mistake below changes in one place.
func validationConfig(providerBlock, name string) string {
	return providerBlock + fmt.Sprintf(`
resource "admission_mutating_webhook_configuration" "test" {
  metadata {
    name = %q
  }
  webhook {
    name                      = "check.validation.example.com"
    admission_review_versions = ["v1"]
    side_effects              = "None"
    timeout_seconds           = 5
    client_config {
      service {
        namespace = "default"
        name      = "injector"
        path      = "/mutate"
      }
    }
    rule {
      operations   = ["CREATE"]
      api_groups   = [""]
      api_versions = ["v1"]
      resources    = ["pods"]
    }
    namespace_selector {
      match_expressions {
        key      = "kubernetes.io/metadata.name"
        operator = "NotIn"
        values   = ["kube-system", "default"]
      }
    }
    match_conditions {
      name       = "not-system"
      expression = "!request.userInfo.username.startsWith('system:')"
    }
  }
}
`, name)
}

// offlineProvider reaches no cluster: only the offline validation can judge the configuration.
const offlineProvider = `provider "admission" {
  host            = "https://127.0.0.1:1"
  dry_run_on_plan = false
}
`

// words matches text as Terraform prints it: it wraps long diagnostics, so any run of spaces in
// text may be a line break and indentation.
func words(text string) string {
	return strings.Join(strings.Fields(regexp.QuoteMeta(text)), `\s+`)
}

// mistake is one change that the API server rejects, and what the plan must say about it.
type mistake struct {
	name     string
	old, new string // replaceOnce(validationConfig, old, new)
	message  string // part of the error's detail
	line     string // regexp of the offending line of the configuration, as Terraform quotes it
	apiField string // the server's field path, which the detail ends with
	attr     *tftypes.AttributePath
}

func attrPath(steps ...any) *tftypes.AttributePath {
	p := tftypes.NewAttributePath()
	for _, s := range steps {
		switch s := s.(type) {
		case string:
			p = p.WithAttributeName(s)
		case int:
			p = p.WithElementKeyInt(s)
		}
	}
	return p
}

var mistakes = []mistake{
	{
		name:     "webhook name with two segments",
		old:      `"check.validation.example.com"`,
		new:      `"validation.example"`,
		message:  "should be a domain with at least three segments separated by dots",
		line:     `name\s+=\s+"validation\.example"`,
		apiField: "webhooks[0].name",
		attr:     attrPath("webhook", 0, "name"),
	},
	{
		name:     "timeout over 30 seconds",
		old:      "timeout_seconds           = 5",
		new:      "timeout_seconds           = 31",
		message:  "the timeout value must be between 1 and 30 seconds",
		line:     `timeout_seconds\s+=\s+31`,
		apiField: "webhooks[0].timeoutSeconds",
		attr:     attrPath("webhook", 0, "timeout_seconds"),
	},
	{
		name:     "service path segment with upper case",
		old:      `path      = "/mutate"`,
		new:      `path      = "/Validate"`,
		message:  "segment[0]: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters",
		line:     `path\s+=\s+"/Validate"`,
		apiField: "webhooks[0].clientConfig.service.path",
		attr:     attrPath("webhook", 0, "client_config", 0, "service", 0, "path"),
	},
	{
		name:     "wildcard resource before a plain resource",
		old:      `resources    = ["pods"]`,
		new:      `resources    = ["*", "pods"]`,
		message:  "if '*' is present, must not specify other resources without subresources",
		line:     `resources\s+=\s+\["\*", "pods"\]`,
		apiField: "webhooks[0].rules[0].resources",
		attr:     attrPath("webhook", 0, "rule", 0, "resources"),
	},
	{
		name:     "match condition that is not bool",
		old:      `"!request.userInfo.username.startsWith('system:')"`,
		new:      `"object.spec.enabled"`,
		message:  "must evaluate to bool but got dyn",
		line:     `expression\s+=\s+"object\.spec\.enabled"`,
		apiField: "webhooks[0].matchConditions[0].expression",
		attr:     attrPath("webhook", 0, "match_conditions", 0, "expression"),
	},
	{
		name: "url with a query",
		old: `      service {
        namespace = "default"
        name      = "injector"
        path      = "/mutate"
      }`,
		new:      `      url = "https://hooks.example.com/mutate?debug=1"`,
		message:  "query parameters are not permitted in the URL",
		line:     `url\s+=\s+"https://hooks\.example\.com/mutate\?debug=1"`,
		apiField: "webhooks[0].clientConfig.url",
		attr:     attrPath("webhook", 0, "client_config", 0, "url"),
	},
	{
		name:     "both url and service",
		old:      "      service {",
		new:      "      url = \"https://hooks.example.com/mutate\"\n      service {",
		message:  "set one of url or a service block, not both",
		line:     `client_config\s+\{`,
		apiField: "webhooks[0].clientConfig",
		attr:     attrPath("webhook", 0, "client_config", 0),
	},
}

// expectation is the error a plan must fail with for m: its summary, its detail with the API
// field, and Terraform's quote of the offending line.
func (m mistake) expectation() *regexp.Regexp {
	return regexp.MustCompile(`(?s)Invalid MutatingWebhookConfiguration.*` + m.line + `.*` +
		words(m.message) + `.*` + words("(API field "+m.apiField+")"))
}

func mistakeSteps(t *testing.T, providerBlock string) []resource.TestStep {
	var steps []resource.TestStep
	for _, m := range mistakes {
		steps = append(steps, resource.TestStep{
			Config:      replaceOnce(validationConfig(providerBlock, randomName()), m.old, m.new),
			PlanOnly:    true,
			ExpectError: m.expectation(),
		})
	}
	return steps
}

// With the cluster reachable (and the dry run on), each mistake fails the plan on its line.
func TestAccValidationMistakesFailPlan(t *testing.T) {
	t.Parallel() // plans only, on objects of its own
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps:                    mistakeSteps(t, acctest.ProviderBlock(t)),
	})
}

// Without a cluster and with dry_run_on_plan = false, the same mistakes fail the same way:
// the offline validation finds them.
func TestAccValidationMistakesFailPlanWithoutCluster(t *testing.T) {
	t.Parallel() // plans only, on objects of its own
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps:                    mistakeSteps(t, offlineProvider),
	})
}

// ---------------------------------------------------------------------------------------------
// The protocol view of the same diagnostics: the exact attribute path of each error, and the
// warnings, which terraform-plugin-testing does not show. No cluster is needed.

// configValue builds a configuration value of type typ from v (maps for objects, []any for
// lists, Go scalars), as Terraform sends it: absent attributes are null, absent blocks empty.
func configValue(typ tftypes.Type, v any) tftypes.Value {
	switch typ := typ.(type) {
	case tftypes.Object:
		if v == nil {
			return tftypes.NewValue(typ, nil)
		}
		given, ok := v.(map[string]any)
		if !ok {
			panic(fmt.Sprintf("configValue: %T for an object", v))
		}
		attrs := map[string]tftypes.Value{}
		for name, at := range typ.AttributeTypes {
			attrs[name] = configValue(at, given[name])
		}
		for name := range given {
			if _, ok := typ.AttributeTypes[name]; !ok {
				panic("configValue: no attribute " + name)
			}
		}
		return tftypes.NewValue(typ, attrs)
	case tftypes.List:
		if v == nil {
			if _, block := typ.ElementType.(tftypes.Object); block {
				return tftypes.NewValue(typ, []tftypes.Value{})
			}
			return tftypes.NewValue(typ, nil)
		}
		list, ok := v.([]any)
		if !ok {
			panic(fmt.Sprintf("configValue: %T for a list", v))
		}
		var elems []tftypes.Value
		for _, e := range list {
			elems = append(elems, configValue(typ.ElementType, e))
		}
		return tftypes.NewValue(typ, elems)
	case tftypes.Map:
		if v == nil {
			return tftypes.NewValue(typ, nil)
		}
		m, ok := v.(map[string]any)
		if !ok {
			panic(fmt.Sprintf("configValue: %T for a map", v))
		}
		elems := map[string]tftypes.Value{}
		for k, e := range m {
			elems[k] = configValue(typ.ElementType, e)
		}
		return tftypes.NewValue(typ, elems)
	default:
		return tftypes.NewValue(typ, v)
	}
}

// validConfigValue is validationConfig as a value; change edits it.
func validConfigValue(change func(hook map[string]any)) map[string]any {
	hook := map[string]any{
		"name":                      "check.validation.example.com",
		"admission_review_versions": []any{"v1"},
		"side_effects":              "None",
		"timeout_seconds":           5,
		"client_config": []any{map[string]any{
			"service": []any{map[string]any{"namespace": "default", "name": "injector", "path": "/mutate"}},
		}},
		"rule": []any{map[string]any{
			"operations": []any{"CREATE"}, "api_groups": []any{""}, "api_versions": []any{"v1"}, "resources": []any{"pods"},
		}},
		"namespace_selector": []any{map[string]any{
			"match_expressions": []any{map[string]any{
				"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": []any{"kube-system", "default"},
			}},
		}},
		"match_conditions": []any{map[string]any{
			"name": "not-system", "expression": "!request.userInfo.username.startsWith('system:')",
		}},
	}
	if change != nil {
		change(hook)
	}
	return map[string]any{
		"metadata": []any{map[string]any{"name": "validation.example.com"}},
		"webhook":  []any{hook},
	}
}

func validateResourceConfig(t *testing.T, config map[string]any) []*tfprotov6.Diagnostic {
	t.Helper()
	server, err := acctest.ProviderFactories["admission"]()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	const typeName = "admission_mutating_webhook_configuration"
	typ := schemas.ResourceSchemas[typeName].ValueType()
	dv, err := tfprotov6.NewDynamicValue(typ, configValue(typ, config))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := server.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: typeName, Config: &dv})
	if err != nil {
		t.Fatal(err)
	}
	return resp.Diagnostics
}

// Each mistake gives one error, on exactly the attribute that holds it.
func TestAccValidationDiagnosticsOnAttributePaths(t *testing.T) {
	t.Parallel() // plans only, on objects of its own
	changes := map[string]func(hook map[string]any){
		"webhook name with two segments": func(h map[string]any) { h["name"] = "validation.example" },
		"timeout over 30 seconds":        func(h map[string]any) { h["timeout_seconds"] = 31 },
		"service path segment with upper case": func(h map[string]any) {
			jsontest.Object(t, h, "client_config", 0, "service", 0)["path"] = "/Validate"
		},
		"wildcard resource before a plain resource": func(h map[string]any) {
			jsontest.Object(t, h, "rule", 0)["resources"] = []any{"*", "pods"}
		},
		"match condition that is not bool": func(h map[string]any) {
			jsontest.Object(t, h, "match_conditions", 0)["expression"] = "object.spec.enabled"
		},
		"url with a query": func(h map[string]any) {
			h["client_config"] = []any{map[string]any{"url": "https://hooks.example.com/mutate?debug=1"}}
		},
		"both url and service": func(h map[string]any) {
			jsontest.Object(t, h, "client_config", 0)["url"] = "https://hooks.example.com/mutate"
		},
	}
	if diags := validateResourceConfig(t, validConfigValue(nil)); len(diags) != 0 {
		t.Fatalf("the valid configuration gets diagnostics: %s", showDiags(diags))
	}
	for _, m := range mistakes {
		t.Run(m.name, func(t *testing.T) {
			diags := validateResourceConfig(t, validConfigValue(changes[m.name]))
			if len(diags) != 1 || diags[0].Severity != tfprotov6.DiagnosticSeverityError ||
				diags[0].Attribute == nil || !diags[0].Attribute.Equal(m.attr) || !strings.Contains(diags[0].Detail, m.message) {
				t.Errorf("want one error on %s saying %q, got %s", m.attr, m.message, showDiags(diags))
			}
		})
	}
}

// One error per mistake, in the words of this schema: a wrong enum value is
// reported by the server's rules only (not by a schema validator too), a
// missing required block only by the framework (Terraform itself reports it
// first, from the block counts of the schema: TestSchemaStatesBlockCounts),
// and an unknown selector operator with the operators to choose from.
func TestOneErrorPerMistake(t *testing.T) {
	cases := []struct {
		name   string
		change func(cfg map[string]any)
		want   string // part of the only error's detail
	}{
		{"failure_policy in lower case", func(cfg map[string]any) { hook0Config(t, cfg)["failure_policy"] = "fail" },
			`Unsupported value: "fail": supported values: "Fail", "Ignore" (API field webhooks[0].failurePolicy)`},
		{"selector operator in lower case", func(cfg map[string]any) {
			jsontest.Object(t, hook0Config(t, cfg), "namespace_selector", 0, "match_expressions", 0)["operator"] = "in"
		}, "not a valid selector operator: one of In, NotIn, Exists, DoesNotExist"},
		{"no metadata block", func(cfg map[string]any) { delete(cfg, "metadata") }, "Block metadata must have a configuration value"},
		{"no name", func(cfg map[string]any) { cfg["metadata"] = []any{map[string]any{}} },
			"Must set a configuration value for the metadata[0].name attribute"},
		{"no client_config block", func(cfg map[string]any) { delete(hook0Config(t, cfg), "client_config") },
			"Block webhook[0].client_config must have a configuration value"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := validConfigValue(nil)
			tc.change(cfg)
			diags := validateResourceConfig(t, cfg)
			if len(diags) != 1 || !strings.Contains(diags[0].Detail, tc.want) {
				t.Errorf("want one error saying %q, got %s", tc.want, showDiags(diags))
			}
		})
	}
}

func hook0Config(t *testing.T, cfg map[string]any) map[string]any {
	t.Helper()
	return jsontest.Object(t, cfg, "webhook", 0)
}

func showDiags(diags []*tfprotov6.Diagnostic) string {
	var b strings.Builder
	for _, d := range diags {
		fmt.Fprintf(&b, "\n  %s on %v: %s: %s", d.Severity, d.Attribute, d.Summary, d.Detail)
	}
	if b.Len() == 0 {
		return "none"
	}
	return b.String()
}

// ---------------------------------------------------------------------------------------------
// What only the live cluster knows.

// denyLabelledWebhooks installs a ValidatingAdmissionPolicy and its binding that deny any
// MutatingWebhookConfiguration labelled forbidden=true, waits until the API server enforces
// them, and removes them when the test ends.
func denyLabelledWebhooks(t *testing.T, cs kubernetes.Interface, policyName, message string) {
	t.Helper()
	ctx := context.Background()
	fail := admissionregistrationv1.Fail
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: policyName},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: &fail,
			MatchConstraints: &admissionregistrationv1.MatchResources{
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
						Rule: admissionregistrationv1.Rule{
							APIGroups:   []string{"admissionregistration.k8s.io"},
							APIVersions: []string{"v1"},
							Resources:   []string{"mutatingwebhookconfigurations"},
						},
					},
				}},
			},
			Validations: []admissionregistrationv1.Validation{{
				Expression: `!has(object.metadata.labels) || !('forbidden' in object.metadata.labels) || object.metadata.labels['forbidden'] != 'true'`,
				Message:    message,
			}},
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: policyName},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        policyName,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}
	api := cs.AdmissionregistrationV1()
	if _, err := api.ValidatingAdmissionPolicies().Create(ctx, policy, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create ValidatingAdmissionPolicy: %v", err)
	}
	t.Cleanup(func() {
		if err := api.ValidatingAdmissionPolicies().Delete(context.Background(), policyName, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("delete ValidatingAdmissionPolicy %s: %v", policyName, err)
		}
	})
	if _, err := api.ValidatingAdmissionPolicyBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create ValidatingAdmissionPolicyBinding: %v", err)
	}
	t.Cleanup(func() {
		if err := api.ValidatingAdmissionPolicyBindings().Delete(context.Background(), policyName, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("delete ValidatingAdmissionPolicyBinding %s: %v", policyName, err)
		}
	})

	// The API server loads policies from an informer: wait until a labelled object is denied.
	none := admissionregistrationv1.SideEffectClassNone
	probe := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: policyName + "-probe", Labels: map[string]string{"forbidden": "true"}},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name: "probe.validation.example.com", AdmissionReviewVersions: []string{"v1"}, SideEffects: &none,
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: ptr("https://probe.example.com")},
		}},
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, err := api.MutatingWebhookConfigurations().Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil && strings.Contains(err.Error(), message) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the ValidatingAdmissionPolicy is not enforced after 60s (last answer: %v)", err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// A ValidatingAdmissionPolicy in the cluster rejects the configuration: the offline validation
// cannot know, the dry run at plan does, so the plan fails, not the apply.
func TestAccValidationServerOnlyRejectionFailsPlan(t *testing.T) {
	cs := acctest.Clientset(t)
	name := randomName()
	policyName := "deny-forbidden-" + strings.TrimSuffix(name, ".example.com")
	const message = "MutatingWebhookConfigurations labelled forbidden=true are not allowed in this cluster"
	labelled := func(providerBlock string) string {
		return replaceOnce(validationConfig(providerBlock, name), "    name = "+fmt.Sprintf("%q", name),
			"    name = "+fmt.Sprintf("%q", name)+"\n    labels = { forbidden = \"true\" }")
	}
	denied := words(fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s", policyName, policyName, message))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkGone(t, name),
		Steps: []resource.TestStep{
			{
				// Offline, the configuration is valid: it plans.
				Config:             labelled(offlineProvider),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				// With the cluster, the dry run at plan meets the policy.
				PreConfig:   func() { denyLabelledWebhooks(t, cs, policyName, message) },
				Config:      labelled(acctest.ProviderBlock(t)),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)` + words(fmt.Sprintf("Cannot apply MutatingWebhookConfiguration %q", name)) + `.*` + denied),
			},
			{
				// Without the dry run, the same rejection comes only at apply.
				Config:      labelled(acctest.ProviderBlock(t, "dry_run_on_plan = false")),
				ExpectError: regexp.MustCompile(`(?s)` + words(fmt.Sprintf("Cannot create MutatingWebhookConfiguration %q", name)) + `.*` + denied),
			},
		},
	})
}

// The dry run needs RBAC the plan itself does not: a user who may do nothing still gets a plan
// of a valid configuration. The cluster answers Forbidden, the provider logs a warning and plans
// without the dry run; its log shows it.
func TestAccValidationForbiddenDryRunDoesNotFailPlan(t *testing.T) {
	cp := acctest.Cluster(t)
	nobody, err := kubernetes.NewForConfig(cp.TokenRESTConfig(cp.UserToken("nobody")))
	if err != nil {
		t.Fatal(err)
	}
	logFile := filepath.Join(t.TempDir(), "provider.log")
	t.Setenv("TF_LOG", "WARN")
	t.Setenv("TF_LOG_PATH", logFile)
	name := randomName()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			PreConfig: func() {
				// The premise: this user's dry run is forbidden.
				_, err := nobody.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(context.Background(),
					&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}},
					metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
				if !apierrors.IsForbidden(err) {
					t.Fatalf("dry-run create as nobody: want Forbidden, got %v", err)
				}
			},
			Config:             validationConfig(acctest.ProviderBlock(t, `config_context = "nobody"`), name),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}},
	})
	log, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	// The wording is the resource's; what matters is a warning that the dry run was not done,
	// because of a Forbidden answer.
	if !regexp.MustCompile(`(?m)^.*\[WARN\].*dry run.*is forbidden: User \\"nobody\\"`).Match(log) {
		t.Errorf("the provider's log does not show the forbidden dry run:\n%s", log)
	}
}

// ---------------------------------------------------------------------------------------------
// Advice is not an error.

func warnedConfig(providerBlock, name string) string {
	cfg := validationConfig(providerBlock, name)
	cfg = replaceOnce(cfg, `    side_effects              = "None"`, `    side_effects              = "None"
    failure_policy            = "Fail"`)
	// No namespace selector, and no match condition that leaves out the system users whose
	// pods are at stake: the webhook also intercepts pods in kube-system.
	cfg = replaceOnce(cfg, `    match_conditions {
      name       = "not-system"
      expression = "!request.userInfo.username.startsWith('system:')"
    }
`, "")
	return replaceOnce(cfg, `    namespace_selector {
      match_expressions {
        key      = "kubernetes.io/metadata.name"
        operator = "NotIn"
        values   = ["kube-system", "default"]
      }
    }
`, "")
}

// failure_policy = "Fail" on a webhook that catches pods in every namespace, kube-system
// included, is warned about, and still applies.
func TestAccValidationWarningStillApplies(t *testing.T) {
	name := randomName()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkGone(t, name),
		Steps: []resource.TestStep{{
			Config: warnedConfig(acctest.ProviderBlock(t), name),
			Check: checkServer(t, name, func(o *admissionregistrationv1.MutatingWebhookConfiguration) error {
				if w := o.Webhooks[0]; *w.FailurePolicy != admissionregistrationv1.Fail || len(w.NamespaceSelector.MatchExpressions) != 0 {
					return fmt.Errorf("stored webhook = %+v", w)
				}
				return nil
			}),
		}},
	})
}

// The warning of the case above, as `terraform plan -json` shows it: once
// (advice is given at plan only, not also in ValidateConfig), a warning and
// not an error, on the failure_policy line, naming kube-system and how to
// exclude it. (The service's own namespace, default, gets a warning of its
// own, also once.)
func TestAccValidationWarningOncePerPlan(t *testing.T) {
	t.Parallel()
	diags, ok := acctest.Plan(t, warnedConfig(acctest.ProviderBlock(t), randomName()))
	if !ok {
		t.Fatalf("the plan failed: %+v", diags)
	}
	seen := map[string]int{}
	var kubeSystem []acctest.Diagnostic
	for _, d := range diags {
		switch d.Severity {
		case "error":
			t.Errorf("unexpected error: %s: %s", d.Summary, d.Detail)
		case "warning":
			seen[d.Summary+"\n"+d.Detail]++
			if d.Summary == advice.SummaryFailClosedSystem {
				kubeSystem = append(kubeSystem, d)
			}
		}
	}
	for w, n := range seen {
		if n != 1 {
			t.Errorf("warning shown %d times, want once: %s", n, w)
		}
	}
	if len(kubeSystem) != 1 {
		t.Fatalf("want one warning %q, got %d: %+v", advice.SummaryFailClosedSystem, len(kubeSystem), diags)
	}
	d := kubeSystem[0]
	if !strings.Contains(d.Detail, `"kube-system"`) || !strings.Contains(d.Detail, "kubernetes.io/metadata.name NotIn [kube-system]") {
		t.Errorf("the warning does not say how to exclude kube-system: %s", d.Detail)
	}
	if d.Snippet == nil || !strings.Contains(d.Snippet.Code, "failure_policy") {
		t.Errorf("the warning is not on the failure_policy line: %+v", d.Snippet)
	}

	// ValidateConfig, which every plan also runs, gives no advice.
	for _, d := range validateResourceConfig(t, validConfigValue(func(h map[string]any) {
		h["failure_policy"] = "Fail"
		delete(h, "namespace_selector")
		delete(h, "match_conditions")
	})) {
		t.Errorf("ValidateConfig: unexpected diagnostic: %s", showDiags([]*tfprotov6.Diagnostic{d}))
	}
}
