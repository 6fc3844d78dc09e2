terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# Rotating a webhook's CA in three steps; each apply is proven by the API
# server before it is written (prove_webhooks, on by default):
#
#   1. ca_pems = [old, new] and apply: the bundle trusts both CAs; the proof
#      shows that the backend's certificate, still from the old CA, verifies.
#   2. Outside this configuration, re-issue the backend's serving certificate
#      from the new CA and roll the backend out. Both bundles' CAs are trusted
#      meanwhile, so no request fails.
#   3. ca_pems = [new] and apply: before the old CA is dropped, the proof shows
#      that the API server verifies the backend's certificate with the new CA
#      alone. Had step 2 not happened yet, this apply fails with
#      "x509: certificate signed by unknown authority" and the bundle stays
#      [old, new].
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
