terraform {
  required_version = ">= 1.8"
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# No cluster needed: `terraform plan` runs the function on the planned
# resource. The provider still needs connection settings (see "Planning
# without a cluster" on the provider's page): any address, with no dry run
# at plan, and the Kubernetes version the checks follow. Against a real
# cluster, configure the provider as usual instead.
provider "admission" {
  host               = "https://127.0.0.1:6443"
  dry_run_on_plan    = false
  kubernetes_version = "1.37"
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

# called = [], rejected = "", skipped = [{ name = "pods.sidecar-injector.example.com",
# reason = "namespace_selector", detail = "kubernetes.io/metadata.name notin (injector,kube-system)" }]
output "kube_system_pod" {
  value = provider::admission::webhooks(admission_mutating_webhook_configuration.injector, {
    object = { apiVersion = "v1", kind = "Pod", metadata = { name = "coredns", namespace = "kube-system" } }
  })
}
