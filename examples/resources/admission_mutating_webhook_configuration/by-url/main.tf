terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# A webhook outside the cluster, reached by URL, with the CA that signed its
# serving certificate given as PEM text (the provider does the base64 the API
# expects). failure_policy = "Ignore" lets requests through while it is down.
variable "webhook_ca_pem" {
  description = "PEM certificate of the CA that signed the webhook's serving certificate."
  type        = string
}

resource "admission_mutating_webhook_configuration" "labeler" {
  metadata {
    name = "labeler.example.com"
  }

  webhook {
    name                      = "deployments.labeler.example.com"
    admission_review_versions = ["v1", "v1beta1"]
    side_effects              = "NoneOnDryRun"
    failure_policy            = "Ignore"
    match_policy              = "Exact"
    timeout_seconds           = 3

    client_config {
      url       = "https://labeler.example.com:9443/mutate"
      ca_bundle = var.webhook_ca_pem
    }

    rule {
      operations   = ["CREATE", "UPDATE"]
      api_groups   = ["apps"]
      api_versions = ["v1"]
      resources    = ["deployments", "statefulsets"]
    }

    namespace_selector {
      match_labels = {
        "labeler.example.com/enabled" = "true"
      }
    }
  }
}
