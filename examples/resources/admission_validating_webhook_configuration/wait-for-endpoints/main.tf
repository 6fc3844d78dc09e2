terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# The policy checker's Deployment and Service are applied in the same run (by
# the kubernetes or helm provider, here a module output passed in). Written as
# soon as Terraform gets to it, this fail-closed webhook would reject every
# Deployment while the checker's pods start; with wait_for_endpoints the apply
# first waits, within the create (or update) timeout, until the Service has a
# ready endpoint on port 8443, and fails with what it waited for if it never
# does, writing nothing.
variable "checker_service" {
  description = "Name of the checker's Service in namespace deployment-policy, once created."
  type        = string
}

resource "admission_validating_webhook_configuration" "checker" {
  metadata {
    name = "deployment-policy.example.com"
  }

  wait_for_endpoints = true

  timeouts {
    create = "5m"
    update = "5m"
  }

  webhook {
    name                      = "deployments.deployment-policy.example.com"
    admission_review_versions = ["v1"]
    side_effects              = "None"
    failure_policy            = "Fail"

    client_config {
      service {
        namespace = "deployment-policy"
        name      = var.checker_service
        path      = "/validate"
        port      = 8443
      }
    }

    rule {
      operations   = ["CREATE", "UPDATE"]
      api_groups   = ["apps"]
      api_versions = ["v1"]
      resources    = ["deployments"]
    }

    namespace_selector {
      match_expressions {
        key      = "kubernetes.io/metadata.name"
        operator = "NotIn"
        values   = ["kube-system", "deployment-policy"]
      }
    }
  }
}
