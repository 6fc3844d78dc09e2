terraform {
  required_version = ">= 1.8"
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

resource "admission_mutating_webhook_configuration" "injector" {
  metadata {
    name = "sidecar-injector.example.com"
  }
  webhook {
    name                      = "pods.sidecar-injector.example.com"
    admission_review_versions = ["v1"]
    side_effects              = "None"
    client_config {
      service {
        namespace = "injector"
        name      = "injector"
        path      = "/mutate"
      }
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
        values   = ["kube-system", "injector"]
      }
    }
  }
}

check "injector_spares_kube_system" {
  assert {
    condition = length(provider::admission::webhooks(admission_mutating_webhook_configuration.injector, {
      object = { apiVersion = "v1", kind = "Pod", metadata = { name = "coredns", namespace = "kube-system" } }
    }).called) == 0
    error_message = "The injector must not be called for the pods of kube-system."
  }
}

# called = [], skipped = [{ name = "pods.sidecar-injector.example.com",
# reason = "namespace_selector", detail = "kubernetes.io/metadata.name notin (injector,kube-system)" }]
output "kube_system_pod" {
  value = provider::admission::webhooks(admission_mutating_webhook_configuration.injector, {
    object = { apiVersion = "v1", kind = "Pod", metadata = { name = "coredns", namespace = "kube-system" } }
  })
}
