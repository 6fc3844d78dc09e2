terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# The CA of a webhook reached by URL, rotated in three applies:
#
#   1. ca_pems = [old, new], and apply.
#   2. Outside this configuration, re-issue the backend's serving certificate
#      from the new CA and roll the backend out.
#   3. ca_pems = [new], plan, and apply.
#
# The plan checks each step's certificates (offline, and by a TLS handshake
# with the backend). The apply writes a step only once the API server has
# called the backend with the new bundle (prove_webhooks, on by default).
variable "ca_pems" {
  description = "PEM certificates of the CAs the API server trusts for the webhook, oldest first."
  type        = list(string)
}

resource "admission_validating_webhook_configuration" "policy" {
  metadata {
    name = "policy.example.com"
  }

  timeouts {
    update = "2m"
  }

  webhook {
    name                      = "deployments.policy.example.com"
    admission_review_versions = ["v1"]
    side_effects              = "None"
    failure_policy            = "Fail"

    client_config {
      url       = "https://policy.example.com:8443/validate"
      ca_bundle = join("", var.ca_pems)
    }

    rule {
      operations   = ["CREATE", "UPDATE"]
      api_groups   = ["apps"]
      api_versions = ["v1"]
      resources    = ["deployments"]
    }
  }
}
