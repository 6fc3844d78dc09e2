terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# Read one MutatingWebhookConfiguration, for example one that a Helm chart or
# an operator installed, with every field as the server stores it.
data "admission_mutating_webhook_configuration" "istio" {
  name = "istio-sidecar-injector"
}

output "istio_injector_webhooks" {
  value = [for w in data.admission_mutating_webhook_configuration.istio.webhook : w.name]
}

# The caBundle the mesh's CA injected, as PEM text.
output "istio_injector_ca" {
  value = data.admission_mutating_webhook_configuration.istio.webhook[0].client_config[0].ca_bundle
}
