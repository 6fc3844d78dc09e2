terraform {
  required_version = ">= 1.8"
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

locals {
  policy = yamldecode(<<-EOT
    apiVersion: admissionregistration.k8s.io/v1
    kind: MutatingAdmissionPolicy
    metadata: {name: team-label.example.com}
    spec:
      matchConstraints:
        resourceRules:
        - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
      reinvocationPolicy: Never
      mutations:
      - patchType: ApplyConfiguration
        applyConfiguration:
          expression: 'Object{metadata: Object.metadata{labels: {"team": "platform"}}}'
    EOT
  )
  binding = {
    apiVersion = "admissionregistration.k8s.io/v1"
    kind       = "MutatingAdmissionPolicyBinding"
    metadata   = { name = "team-label.example.com" }
    spec       = { policyName = "team-label.example.com" }
  }
}

# The Deployment as the API server stores it: { app = "web", team = "platform" }.
output "labels" {
  value = provider::admission::mutate(local.policy, local.binding, {
    object = { apiVersion = "apps/v1", kind = "Deployment", metadata = { name = "web", namespace = "default", labels = { app = "web" } } }
  }).object.metadata.labels
}
