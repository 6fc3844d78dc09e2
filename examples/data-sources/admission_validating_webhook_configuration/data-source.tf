terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# Read one ValidatingWebhookConfiguration, for example the one that a policy
# engine's Helm chart installed, with every field as the server stores it.
data "admission_validating_webhook_configuration" "gatekeeper" {
  name = "gatekeeper-validating-webhook-configuration"
}

# Each webhook's name with its failure policy, to check which ones block
# requests while the policy engine is down.
output "gatekeeper_failure_policies" {
  value = {
    for w in data.admission_validating_webhook_configuration.gatekeeper.webhook : w.name => w.failure_policy
  }
}

# The namespaces that each webhook's namespace selector excludes by name. A
# selector or a list of expressions that the object does not have reads as
# null, hence the coalesce.
output "gatekeeper_exempt_namespaces" {
  value = {
    for w in data.admission_validating_webhook_configuration.gatekeeper.webhook : w.name => flatten([
      for s in coalesce(w.namespace_selector, []) : [
        for e in coalesce(s.match_expressions, []) : e.values
        if e.key == "kubernetes.io/metadata.name" && e.operator == "NotIn"
      ]
    ])
  }
}
