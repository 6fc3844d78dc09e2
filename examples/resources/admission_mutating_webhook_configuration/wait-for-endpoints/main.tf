terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# A sidecar injector installed in the same apply as its server: the apply
# waits until the injector's Service has a ready endpoint before it writes the
# fail-closed webhook, so that pods created meanwhile are not rejected.
variable "injector_service" {
  description = "Name of the injector's Service in namespace injector, once created."
  type        = string
}

resource "admission_mutating_webhook_configuration" "injector" {
  metadata {
    name = "injector.example.com"
  }

  wait_for_endpoints = true

  timeouts {
    create = "3m"
  }

  webhook {
    name                      = "pods.injector.example.com"
    admission_review_versions = ["v1"]
    side_effects              = "None"
    failure_policy            = "Fail"

    client_config {
      service {
        namespace = "injector"
        name      = var.injector_service
        path      = "/inject"
      }
    }

    rule {
      operations   = ["CREATE"]
      api_groups   = [""]
      api_versions = ["v1"]
      resources    = ["pods"]
    }

    namespace_selector {
      match_labels = {
        "injector.example.com/enabled" = "true"
      }
    }
  }
}
