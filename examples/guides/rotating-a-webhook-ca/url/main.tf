terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

variable "old_ca_pem" {
  description = "PEM of the CA that issued the backend's current serving certificate."
  type        = string
}

variable "new_ca_pem" {
  description = "PEM of the CA that will issue the backend's next serving certificate; null before the rotation starts and after it ends."
  type        = string
  default     = null
}

# A webhook outside the cluster, reached by URL. During a CA rotation its
# ca_bundle holds both CAs, so that the API server verifies the backend's
# serving certificate whichever CA issued it. At plan the provider checks each
# certificate of the bundle offline, and makes a TLS handshake with the backend
# to verify its serving certificate against the bundle and the URL's host.
resource "admission_validating_webhook_configuration" "audit" {
  metadata {
    name = "audit.example.com"
  }

  webhook {
    name                      = "audit.example.com"
    admission_review_versions = ["v1"]
    side_effects              = "None"
    failure_policy            = "Ignore"

    client_config {
      url       = "https://audit.example.com:8443/validate"
      ca_bundle = join("", compact([var.old_ca_pem, var.new_ca_pem]))
    }

    rule {
      operations   = ["CREATE", "UPDATE", "DELETE"]
      api_groups   = ["apps"]
      api_versions = ["v1"]
      resources    = ["deployments"]
    }
  }
}
