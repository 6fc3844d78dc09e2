package functions_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
)

// A mutating policy that adds a label and a validating policy that requires it (its binding in
// the resource form), a mutating webhook answered with a patch and a validating one not
// answered, and two policies whose order decides the object.
const admitObjects = `
locals {
  add_team = yamldecode(<<-EOT
    apiVersion: admissionregistration.k8s.io/v1
    kind: MutatingAdmissionPolicy
    metadata: {name: add-team}
    spec:
      matchConstraints:
        resourceRules:
        - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
      mutations:
      - patchType: ApplyConfiguration
        applyConfiguration:
          expression: 'Object{metadata: Object.metadata{labels: {"team": "web"}}}'
    EOT
  )
  add_team_binding = { apiVersion = "admissionregistration.k8s.io/v1", kind = "MutatingAdmissionPolicyBinding", metadata = { name = "add-team" }, spec = { policyName = "add-team" } }
  other_team = merge(local.add_team, {
    metadata = { name = "other-team" }
    spec = merge(local.add_team.spec, { mutations = [{ patchType = "ApplyConfiguration", applyConfiguration = { expression = "Object{metadata: Object.metadata{labels: {\"team\": \"db\"}}}" } }] })
  })
  other_team_binding = { apiVersion = "admissionregistration.k8s.io/v1", kind = "MutatingAdmissionPolicyBinding", metadata = { name = "other-team" }, spec = { policyName = "other-team" } }
  require_team = yamldecode(<<-EOT
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingAdmissionPolicy
    metadata: {name: require-team}
    spec:
      matchConstraints:
        resourceRules:
        - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
      validations:
      - expression: "has(object.metadata.labels) && 'team' in object.metadata.labels"
        message: a team label is required
    EOT
  )
  require_team_binding = {
    metadata = [{ name = "require-team" }]
    spec     = [{ policy_name = "require-team", validation_actions = ["Deny"], param_ref = [], match_resources = [] }]
  }
  webhooks = [yamldecode(<<-EOT
    apiVersion: admissionregistration.k8s.io/v1
    kind: MutatingWebhookConfiguration
    metadata: {name: inject}
    webhooks:
    - name: inject.example.com
      clientConfig: {url: "https://inject.example.com/"}
      rules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
      sideEffects: None
      admissionReviewVersions: [v1]
    EOT
  ), yamldecode(<<-EOT
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingWebhookConfiguration
    metadata: {name: check}
    webhooks:
    - name: check.example.com
      clientConfig: {url: "https://check.example.com/"}
      rules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
      sideEffects: None
      admissionReviewVersions: [v1]
    EOT
  )]
  deployment = { apiVersion = "apps/v1", kind = "Deployment", metadata = { name = "web", namespace = "apps" } }
}
`

func TestFunctionAdmit(t *testing.T) {
	resource.UnitTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: admitObjects + `
output "together" {
  value = provider::admission::admit([local.add_team, local.add_team_binding, local.require_team, local.require_team_binding], { object = local.deployment })
}
output "together_labels" {
  value = provider::admission::admit([local.add_team, local.add_team_binding, local.require_team, local.require_team_binding], { object = local.deployment }).object.metadata.labels
}
output "alone" {
  value = provider::admission::admit([local.require_team, local.require_team_binding], { object = local.deployment })
}
output "order" {
  value = provider::admission::admit([local.add_team, local.add_team_binding, local.other_team, local.other_team_binding], { object = local.deployment })
}
output "answered" {
  value = provider::admission::admit(concat(local.webhooks, [local.require_team, local.require_team_binding]), {
    object = local.deployment
    webhook_answers = {
      "inject.example.com" = { patch = [{ op = "add", path = "/metadata/labels", value = { team = "ops" } }], warnings = ["injected"] }
      "check.example.com"  = { allowed = false, message = "not today", code = 403 }
    }
  })
}
output "unanswered" {
  value = provider::admission::admit(local.webhooks, {
    object          = local.deployment
    webhook_answers = { "inject.example.com" = {} }
  })
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("together", knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"allowed":         knownvalue.Bool(true),
					"message":         knownvalue.StringExact(""),
					"order_dependent": knownvalue.Bool(false),
					"object_known":    knownvalue.Bool(true),
					"steps": knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectPartial(map[string]knownvalue.Check{"kind": knownvalue.StringExact("MutatingAdmissionPolicy"), "name": knownvalue.StringExact("add-team"),
							"outcome": knownvalue.StringExact("mutated"), "patch": knownvalue.StringExact(`{"metadata":{"labels":{"team":"web"}}}`)}),
						knownvalue.ObjectPartial(map[string]knownvalue.Check{"kind": knownvalue.StringExact("ValidatingAdmissionPolicy"), "name": knownvalue.StringExact("require-team"),
							"outcome": knownvalue.StringExact("admitted")}),
					}),
				})),
				statecheck.ExpectKnownOutputValue("together_labels", knownvalue.ObjectExact(map[string]knownvalue.Check{"team": knownvalue.StringExact("web")})),
				statecheck.ExpectKnownOutputValue("alone", knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"allowed": knownvalue.Bool(false),
					"message": knownvalue.StringRegexp(regexp.MustCompile(`ValidatingAdmissionPolicy 'require-team' with binding 'require-team' denied request: a team label is required$`)),
					"object":  knownvalue.Null(),
				})),
				statecheck.ExpectKnownOutputValue("order", knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"allowed":         knownvalue.Bool(true),
					"order_dependent": knownvalue.Bool(true),
					"orders":          knownvalue.Int64Exact(2),
					"object":          knownvalue.Null(),
					"outcomes": knownvalue.TupleExact([]knownvalue.Check{
						knownvalue.ObjectPartial(map[string]knownvalue.Check{
							"orders": knownvalue.TupleExact([]knownvalue.Check{knownvalue.ObjectPartial(map[string]knownvalue.Check{
								"mutating_policies": knownvalue.TupleExact([]knownvalue.Check{knownvalue.StringExact("add-team"), knownvalue.StringExact("other-team")})})}),
							"object": knownvalue.ObjectPartial(map[string]knownvalue.Check{"metadata": knownvalue.ObjectPartial(map[string]knownvalue.Check{
								"labels": knownvalue.ObjectExact(map[string]knownvalue.Check{"team": knownvalue.StringExact("db")})})}),
						}),
						knownvalue.ObjectPartial(map[string]knownvalue.Check{
							"orders": knownvalue.TupleExact([]knownvalue.Check{knownvalue.ObjectPartial(map[string]knownvalue.Check{
								"mutating_policies": knownvalue.TupleExact([]knownvalue.Check{knownvalue.StringExact("other-team"), knownvalue.StringExact("add-team")})})}),
							"object": knownvalue.ObjectPartial(map[string]knownvalue.Check{"metadata": knownvalue.ObjectPartial(map[string]knownvalue.Check{
								"labels": knownvalue.ObjectExact(map[string]knownvalue.Check{"team": knownvalue.StringExact("web")})})}),
						}),
					}),
				})),
				statecheck.ExpectKnownOutputValue("answered", knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"allowed":    knownvalue.Bool(false),
					"message":    knownvalue.StringExact(`admission webhook "check.example.com" denied the request: not today`),
					"code":       knownvalue.Int64Exact(403),
					"warnings":   knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("injected")}),
					"unanswered": knownvalue.ListExact(nil),
				})),
				statecheck.ExpectKnownOutputValue("unanswered", knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"allowed":      knownvalue.Null(),
					"message":      knownvalue.Null(),
					"object_known": knownvalue.Bool(true),
					"unanswered":   knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("check/check.example.com")}),
				})),
			},
		}},
	})
}

func TestFunctionAdmitErrors(t *testing.T) {
	for name, c := range map[string]struct{ call, want string }{
		"answer for no webhook": {`provider::admission::admit(local.webhooks, { object = local.deployment, webhook_answers = { "nobody.example.com" = {} } })`,
			`request.webhook_answers.nobody.example.com: no webhook of the objects is named so`},
		"answer field": {`provider::admission::admit(local.webhooks, { object = local.deployment, webhook_answers = { "inject.example.com" = { allow = true } } })`,
			`request.webhook_answers.inject.example.com.allow: unknown field`},
		"object kind": {`provider::admission::admit([local.deployment], { object = local.deployment })`, `objects[0].kind: want one of the six kinds`},
		"request field": {`provider::admission::admit([], { object = local.deployment, namespace = { name = "apps", owner = "x" } })`,
			`request.namespace.owner: unknown field`},
	} {
		t.Run(name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      admitObjects + "output \"x\" {\n  value = " + c.call + "\n}\n",
					ExpectError: regexp.MustCompile(strings.ReplaceAll(regexp.QuoteMeta(c.want), " ", `\s+`)),
				}},
			})
		})
	}
}

// A binding's policy name not known at plan (a policy's id, created in the same apply): the
// binding binds the one policy of its kind among the objects, or the one of its name, and the
// notes say so; with neither, the result is unknown.
func TestFunctionAdmitPolicyNameAtPlan(t *testing.T) {
	resource.UnitTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: admitObjects + `
resource "terraform_data" "later" {}

locals {
  later_binding = merge(local.add_team_binding, { spec = { policyName = terraform_data.later.id } })
}

output "one" {
  # After the apply, the id is known and names no policy: the label is not set then.
  value = try(provider::admission::admit([local.add_team, local.later_binding], { object = local.deployment }).object.metadata.labels, {})
}
output "by_name" {
  value = try(provider::admission::admit([local.other_team, local.add_team, local.later_binding], { object = local.deployment }).object.metadata.labels, {})
}
output "ambiguous" {
  value = provider::admission::admit([local.other_team, merge(local.add_team, { metadata = { name = "third" } }), local.later_binding], { object = local.deployment })
}
`,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownOutputValue("one", knownvalue.ObjectExact(map[string]knownvalue.Check{"team": knownvalue.StringExact("web")})),
				plancheck.ExpectKnownOutputValue("by_name", knownvalue.ObjectExact(map[string]knownvalue.Check{"team": knownvalue.StringExact("web")})),
				plancheck.ExpectUnknownOutputValue("ambiguous"),
			}},
			// After the apply the id is known and names no policy: the outputs change.
			ExpectNonEmptyPlan: true,
		}},
	})
}

// The request gives namespaceObject the namespace's annotations, and the group system:masters
// passes authorizer checks, through the functions as in the simulator.
func TestFunctionRequestNamespaceAndMasters(t *testing.T) {
	resource.UnitTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
locals {
  policy = yamldecode(<<-EOT
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingAdmissionPolicy
    metadata: {name: limits}
    spec:
      matchConstraints:
        resourceRules:
        - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
      validations:
      - expression: "object.spec.replicas <= int(namespaceObject.metadata.annotations['max-replicas'])"
        message: too many replicas
      - expression: "authorizer.group('apps').resource('deployments').namespace('apps').check('delete').allowed()"
        message: may not delete
    EOT
  )
  binding    = { apiVersion = "admissionregistration.k8s.io/v1", kind = "ValidatingAdmissionPolicyBinding", metadata = { name = "limits" }, spec = { policyName = "limits", validationActions = ["Deny"] } }
  deployment = { apiVersion = "apps/v1", kind = "Deployment", metadata = { name = "web", namespace = "apps" }, spec = { replicas = 4 } }
  namespace  = { name = "apps", annotations = { "max-replicas" = "5" } }
  admin      = { username = "admin", groups = ["system:masters"] }
}

output "admin" {
  value = provider::admission::validate(local.policy, local.binding, { object = local.deployment, namespace = local.namespace, user_info = local.admin }).allowed
}
output "admin_too_many" {
  value = provider::admission::validate(local.policy, local.binding, {
    object = merge(local.deployment, { spec = { replicas = 6 } }), namespace = local.namespace, user_info = local.admin
  }).message
}
output "developer" {
  value = provider::admission::validate(local.policy, local.binding, { object = local.deployment, namespace = local.namespace }).message
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("admin", knownvalue.Bool(true)),
				statecheck.ExpectKnownOutputValue("admin_too_many", knownvalue.StringRegexp(regexp.MustCompile(`too many replicas$`))),
				statecheck.ExpectKnownOutputValue("developer", knownvalue.StringRegexp(regexp.MustCompile(`may not delete$`))),
			},
		}},
	})
}
