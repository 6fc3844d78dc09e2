terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

provider "admission" {
  # Warn two weeks before a certificate the webhook needs expires (the
  # ca_bundle's, the backend's serving certificate, the cert-manager
  # Certificate's when its renewal is overdue). Default: 720h (30 days).
  ca_bundle_expiry_warning = "336h"
}

# A webhook whose serving certificate cert-manager issues (a Certificate named
# image-policy-serving in namespace image-policy, installed with the webhook's
# chart) and whose caBundle cert-manager's CA injector fills in. ca_bundle is
# left out, so Terraform never writes it. At plan, the provider reads that
# Certificate: missing, not Ready, or close to its notAfter with no renewal
# scheduled is a warning on the annotation.
resource "admission_validating_webhook_configuration" "image_policy" {
  metadata {
    name = "image-policy.example.com"
    annotations = {
      "cert-manager.io/inject-ca-from" = "image-policy/image-policy-serving"
    }
  }

  webhook {
    name                      = "pods.image-policy.example.com"
    admission_review_versions = ["v1"]
    side_effects              = "None"
    failure_policy            = "Fail"
    timeout_seconds           = 5

    client_config {
      service {
        namespace = "image-policy"
        name      = "image-policy"
        path      = "/validate"
      }
    }

    rule {
      operations   = ["CREATE", "UPDATE"]
      api_groups   = [""]
      api_versions = ["v1"]
      resources    = ["pods"]
    }

    # Leave out the namespaces that keep the cluster alive, and the webhook's own.
    namespace_selector {
      match_expressions {
        key      = "kubernetes.io/metadata.name"
        operator = "NotIn"
        values   = ["kube-system", "image-policy", "cert-manager"]
      }
    }
  }

  # The apply waits for the webhook's Service to have a ready endpoint.
  wait_for_endpoints = true
}
