terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

provider "admission" {
  config_path = "~/.kube/config"
}

# A webhook configuration that `kubectl apply` made from a kubebuilder-style
# manifest, adopted with the configuration written from that manifest. The
# manifest spells its selectors as empty ones (namespaceSelector: {},
# objectSelector: {}), which the API server stores as none, so the state read
# at import has none and `terraform plan` shows them as added. The plan says,
# in a warning, that the update writes nothing to the server; the apply sends
# nothing, records the two empty blocks in the state, and the next plan is
# empty. Leaving the two blocks out plans no update at all.
import {
  to = admission_mutating_webhook_configuration.pod_mutator
  id = "pod-mutator"
}

resource "admission_mutating_webhook_configuration" "pod_mutator" {
  metadata {
    name = "pod-mutator"
  }

  webhook {
    name                      = "pod-mutator.example.com"
    admission_review_versions = ["v1"]
    failure_policy            = "Ignore"
    match_policy              = "Exact"
    side_effects              = "None"
    timeout_seconds           = 5

    client_config {
      service {
        name      = "pod-mutator"
        namespace = "default"
        path      = "/mutate-v1-pod"
      }
    }

    namespace_selector {}
    object_selector {}

    rule {
      api_groups   = [""]
      api_versions = ["v1"]
      operations   = ["CREATE"]
      resources    = ["pods"]
    }
  }
}
