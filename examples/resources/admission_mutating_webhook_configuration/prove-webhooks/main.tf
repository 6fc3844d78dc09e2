terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# The proof at apply is on by default; spelled out here. Before the apply
# writes the fail-closed webhook below (or a change to its URL, CA bundle,
# rules, failure policy or timeout), the API server calls its backend through
# a temporary configuration that matches only a dry-run request of the
# provider's own. If the backend never answers within the create or update
# timeout, the apply fails with the API server's reason and writes nothing.
#
# prove_webhooks = false gives that up: a webhook whose CA bundle, serving
# certificate or backend is wrong is then enforced as written, and rejects
# every pod it matches until someone notices.
provider "admission" {
  prove_webhooks = true
}

variable "injector_ca_pem" {
  description = "PEM certificate of the CA that signed the injector's serving certificate."
  type        = string
}

resource "admission_mutating_webhook_configuration" "injector" {
  metadata {
    name = "injector.example.com"
  }

  # How long the proof may wait for a backend that is still starting.
  timeouts {
    create = "3m"
    update = "3m"
  }

  webhook {
    name                      = "pods.injector.example.com"
    admission_review_versions = ["v1"]
    side_effects              = "None"
    failure_policy            = "Fail"
    timeout_seconds           = 5

    client_config {
      url       = "https://injector.example.com:9443/mutate"
      ca_bundle = var.injector_ca_pem
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
        values   = ["kube-system"]
      }
    }
  }
}
