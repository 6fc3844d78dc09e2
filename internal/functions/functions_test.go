package functions_test

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
)

// These tests run the functions through the Terraform CLI (provider-defined
// functions need Terraform 1.8), with no cluster: the functions need none.

// A policy and binding in API form, as yamldecode gives them.
const apiForm = `
locals {
  policy = yamldecode(<<-EOT
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingAdmissionPolicy
    metadata: {name: replicas-limit}
    spec:
      paramKind: {apiVersion: v1, kind: ConfigMap}
      matchConstraints:
        resourceRules:
        - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
      validations:
      - expression: object.spec.replicas <= int(params.data.max)
        messageExpression: "'at most ' + params.data.max + ' replicas'"
    EOT
  )
  binding = yamldecode(<<-EOT
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingAdmissionPolicyBinding
    metadata: {name: replicas-limit}
    spec:
      policyName: replicas-limit
      validationActions: [Deny]
      paramRef: {name: limits, namespace: default, parameterNotFoundAction: Deny}
    EOT
  )
  limits = { apiVersion = "v1", kind = "ConfigMap", metadata = { name = "limits", namespace = "default" }, data = { max = "5" } }
  deployment = { apiVersion = "apps/v1", kind = "Deployment", metadata = { name = "web", namespace = "default" } }
}
`

func TestFunctionValidate(t *testing.T) {
	resource.UnitTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: apiForm + `
output "six" {
  value = provider::admission::validate(local.policy, local.binding, {
    object = merge(local.deployment, { spec = { replicas = 6 } })
    params = [local.limits]
  })
}
output "three" {
  value = provider::admission::validate(local.policy, local.binding, {
    object = merge(local.deployment, { spec = { replicas = 3 } })
    params = [local.limits]
  })
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("six", knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"matched": knownvalue.Bool(true),
					"allowed": knownvalue.Bool(false),
					"message": knownvalue.StringExact(`deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'replicas-limit' with binding 'replicas-limit' denied request: at most 5 replicas`),
					"reason":  knownvalue.StringExact("Invalid"),
					"code":    knownvalue.Int64Exact(422),
				})),
				statecheck.ExpectKnownOutputValue("three", knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"matched":  knownvalue.Bool(true),
					"allowed":  knownvalue.Bool(true),
					"message":  knownvalue.StringExact(""),
					"warnings": knownvalue.ListExact(nil),
				})),
			},
		}},
	})
}

// The provider's resource form, with computed attributes unknown at plan:
// the result is known at plan all the same.
func TestFunctionValidateResourceFormAtPlan(t *testing.T) {
	resource.UnitTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
resource "terraform_data" "later" {}

locals {
  policy = {
    id       = terraform_data.later.id
    metadata = [{ name = "no-latest", uid = terraform_data.later.id, labels = null }]
    spec = [{
      failure_policy = "Fail"
      match_constraints = [{
        match_policy   = "Equivalent"
        resource_rules = [{ api_groups = [""], api_versions = ["v1"], operations = ["CREATE"], resources = ["pods"], scope = "*" }]
      }]
      validations = [{ expression = "object.spec.containers.all(c, !c.image.endsWith(':latest'))", message = "no :latest images", reason = null, message_expression = null }]
    }]
    status = terraform_data.later.output
  }
  binding = {
    id       = terraform_data.later.id
    metadata = [{ name = "no-latest" }]
    spec     = [{ policy_name = terraform_data.later.id, validation_actions = ["Warn"], param_ref = [], match_resources = [] }]
  }
}

output "latest" {
  value = provider::admission::validate(local.policy, local.binding, {
    object = { apiVersion = "v1", kind = "Pod", metadata = { name = "p", namespace = "apps" }, spec = { containers = [{ name = "a", image = "nginx:latest" }] } }
  })
}
`,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownOutputValue("latest", knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"matched":  knownvalue.Bool(true),
					"allowed":  knownvalue.Bool(true),
					"warnings": knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("Validation failed for ValidatingAdmissionPolicy 'no-latest' with binding 'no-latest': no :latest images")}),
				})),
			}},
		}},
	})
}

// An input that decides the answer and is not known yet makes the result
// unknown, rather than an answer about a value it does not have.
func TestFunctionUnknownAtPlan(t *testing.T) {
	resource.UnitTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: apiForm + `
resource "terraform_data" "later" {}

output "unknown_object" {
  value = provider::admission::validate(local.policy, local.binding, {
    object = merge(local.deployment, { spec = { replicas = terraform_data.later.id } })
    params = [local.limits]
  })
}
output "unknown_expression" {
  value = provider::admission::validate(merge(local.policy, { spec = merge(local.policy.spec, { validations = [{ expression = terraform_data.later.id }] }) }), local.binding, {
    object = local.deployment
  })
}
`,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownOutputValue("unknown_object"),
				plancheck.ExpectUnknownOutputValue("unknown_expression"),
			}},
		}},
	})
}

func TestFunctionWebhooks(t *testing.T) {
	resource.UnitTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
locals {
  configuration = {
    metadata = [{ name = "pods" }]
    webhook = [{
      name                      = "pods.example.com"
      admission_review_versions = ["v1"]
      side_effects              = "None"
      failure_policy            = "Fail"
      match_policy              = "Equivalent"
      reinvocation_policy       = "Never"
      timeout_seconds           = 10
      client_config             = [{ url = "https://example.com/mutate", ca_bundle = null, service = [] }]
      rule                      = [{ api_groups = [""], api_versions = ["v1"], operations = ["CREATE"], resources = ["pods"], scope = "*" }]
      namespace_selector = [{
        match_labels      = null
        match_expressions = [{ key = "kubernetes.io/metadata.name", operator = "NotIn", values = ["kube-system"] }]
      }]
      object_selector  = []
      match_conditions = []
    }]
  }
  pod = { apiVersion = "v1", kind = "Pod", metadata = { name = "p" } }
}

output "system" {
  value = provider::admission::webhooks(local.configuration, { object = local.pod, namespace = { name = "kube-system" } })
}
output "apps" {
  value = provider::admission::webhooks(local.configuration, { object = local.pod, namespace = { name = "apps" } })
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("system", knownvalue.ObjectExact(map[string]knownvalue.Check{
					"called": knownvalue.ListExact(nil),
					"skipped": knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectExact(map[string]knownvalue.Check{
						"name":   knownvalue.StringExact("pods.example.com"),
						"reason": knownvalue.StringExact("namespace_selector"),
						"detail": knownvalue.StringExact("kubernetes.io/metadata.name notin (kube-system)"),
					})}),
					"rejected": knownvalue.StringExact(""),
				})),
				statecheck.ExpectKnownOutputValue("apps", knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"called": knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("pods.example.com")}),
				})),
			},
		}},
	})
}

func TestFunctionMutate(t *testing.T) {
	resource.UnitTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
locals {
  policy = yamldecode(<<-EOT
    apiVersion: admissionregistration.k8s.io/v1
    kind: MutatingAdmissionPolicy
    metadata: {name: team}
    spec:
      matchConstraints:
        resourceRules:
        - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
      reinvocationPolicy: Never
      mutations:
      - patchType: ApplyConfiguration
        applyConfiguration:
          expression: 'Object{metadata: Object.metadata{labels: {"team": "web"}}}'
    EOT
  )
  binding = { apiVersion = "admissionregistration.k8s.io/v1", kind = "MutatingAdmissionPolicyBinding", metadata = { name = "team" }, spec = { policyName = "team" } }
}

output "mutated" {
  value = provider::admission::mutate(local.policy, local.binding, {
    object = { apiVersion = "apps/v1", kind = "Deployment", metadata = { name = "web", labels = { app = "web" } } }
  })
}
output "labels" {
  value = provider::admission::mutate(local.policy, local.binding, {
    object = { apiVersion = "apps/v1", kind = "Deployment", metadata = { name = "web", labels = { app = "web" } } }
  }).object.metadata.labels
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("labels", knownvalue.ObjectExact(map[string]knownvalue.Check{
					"app":  knownvalue.StringExact("web"),
					"team": knownvalue.StringExact("web"),
				})),
				statecheck.ExpectKnownOutputValue("mutated", knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"matched": knownvalue.Bool(true),
					"allowed": knownvalue.Bool(true),
				})),
			},
		}},
	})
}

func TestFunctionErrors(t *testing.T) {
	for name, c := range map[string]struct{ call, want string }{
		"request field": {`provider::admission::validate(local.policy, local.binding, { bogus = 1 })`, `request.bogus: unknown field`},
		"policy kind":   {`provider::admission::validate(local.binding, local.binding, {})`, `policy.kind: want`},
		"policy field":  {`provider::admission::validate(merge(local.policy, { spec = { validationz = [] } }), local.binding, {})`, `unknown field "validationz"`},
		"operation":     {`provider::admission::validate(local.policy, local.binding, { operation = "PATCH", object = local.deployment })`, `request.operation: want CREATE`},
	} {
		t.Run(name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      apiForm + "output \"x\" {\n  value = " + c.call + "\n}\n",
					ExpectError: regexp.MustCompile(regexp.QuoteMeta(c.want)),
				}},
			})
		})
	}
}
