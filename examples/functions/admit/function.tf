terraform {
  required_version = ">= 1.8"
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

locals {
  # A mutating policy that labels new Deployments, a validating policy that
  # requires the label, and a validating webhook.
  objects = [
    yamldecode(<<-EOT
      apiVersion: admissionregistration.k8s.io/v1
      kind: MutatingAdmissionPolicy
      metadata: {name: team-label.example.com}
      spec:
        matchConstraints:
          resourceRules:
          - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
        mutations:
        - patchType: ApplyConfiguration
          applyConfiguration:
            expression: 'Object{metadata: Object.metadata{labels: {"team": "platform"}}}'
      EOT
    ),
    {
      apiVersion = "admissionregistration.k8s.io/v1"
      kind       = "MutatingAdmissionPolicyBinding"
      metadata   = { name = "team-label.example.com" }
      spec       = { policyName = "team-label.example.com" }
    },
    yamldecode(<<-EOT
      apiVersion: admissionregistration.k8s.io/v1
      kind: ValidatingAdmissionPolicy
      metadata: {name: require-team.example.com}
      spec:
        matchConstraints:
          resourceRules:
          - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
        validations:
        - expression: "has(object.metadata.labels) && 'team' in object.metadata.labels"
          message: a Deployment needs a team label
      EOT
    ),
    {
      apiVersion = "admissionregistration.k8s.io/v1"
      kind       = "ValidatingAdmissionPolicyBinding"
      metadata   = { name = "require-team.example.com" }
      spec       = { policyName = "require-team.example.com", validationActions = ["Deny"] }
    },
    yamldecode(<<-EOT
      apiVersion: admissionregistration.k8s.io/v1
      kind: ValidatingWebhookConfiguration
      metadata: {name: audit.example.com}
      webhooks:
      - name: deployments.audit.example.com
        clientConfig: {service: {namespace: audit, name: audit}}
        rules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
        sideEffects: None
        admissionReviewVersions: [v1]
      EOT
    ),
  ]
  deployment = { apiVersion = "apps/v1", kind = "Deployment", metadata = { name = "web", namespace = "default" } }
}

# true: labelled by the mutating policy, the validating policy admits it, and
# the webhook is said to allow it.
output "allowed" {
  value = provider::admission::admit(local.objects, {
    object          = local.deployment
    webhook_answers = { "deployments.audit.example.com" = { allowed = true } }
  }).allowed
}

# The Deployment as the API server stores it: { team = "platform" }.
output "labels" {
  value = provider::admission::admit(local.objects, {
    object          = local.deployment
    webhook_answers = { "deployments.audit.example.com" = { allowed = true } }
  }).object.metadata.labels
}

# What each policy and webhook did: mutated, admitted, admitted.
output "steps" {
  value = [for s in provider::admission::admit(local.objects, {
    object          = local.deployment
    webhook_answers = { "deployments.audit.example.com" = { allowed = true } }
  }).steps : "${s.name}: ${s.outcome}"]
}

# Without an answer, the webhook is called and the verdict is not known
# offline: allowed is null, and unanswered names the webhook.
output "unanswered" {
  value = provider::admission::admit(local.objects, { object = local.deployment }).unanswered
}
