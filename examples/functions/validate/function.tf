terraform {
  required_version = ">= 1.8"
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# A policy and its binding in API form; resources of this provider
# (admission_validating_admission_policy.x and its binding) work the same.
locals {
  policy = yamldecode(<<-EOT
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingAdmissionPolicy
    metadata: {name: replica-limit.example.com}
    spec:
      paramKind: {apiVersion: v1, kind: ConfigMap}
      matchConstraints:
        resourceRules:
        - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
      validations:
      - expression: object.spec.replicas <= int(params.data.maxReplicas)
        messageExpression: "'at most ' + params.data.maxReplicas + ' replicas'"
    EOT
  )
  binding = yamldecode(<<-EOT
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingAdmissionPolicyBinding
    metadata: {name: replica-limit.example.com}
    spec:
      policyName: replica-limit.example.com
      validationActions: [Deny]
      paramRef: {name: replica-limit, namespace: default, parameterNotFoundAction: Deny}
    EOT
  )
}

check "replica_limit" {
  assert {
    condition = !provider::admission::validate(local.policy, local.binding, {
      object = { apiVersion = "apps/v1", kind = "Deployment", metadata = { name = "web", namespace = "default" }, spec = { replicas = 6 } }
      params = [{ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "replica-limit", namespace = "default" }, data = { maxReplicas = "5" } }]
    }).allowed
    error_message = "The replica limit must deny 6 replicas."
  }
}

# The whole answer: matched, allowed, message, reason, code, warnings and
# audit_annotations.
output "six_replicas" {
  value = provider::admission::validate(local.policy, local.binding, {
    object = { apiVersion = "apps/v1", kind = "Deployment", metadata = { name = "web", namespace = "default" }, spec = { replicas = 6 } }
    params = [{ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "replica-limit", namespace = "default" }, data = { maxReplicas = "5" } }]
  })
}
