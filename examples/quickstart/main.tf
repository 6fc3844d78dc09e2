# A complete, small configuration: `make demo` applies it to a throwaway local
# kube-apiserver. It also works against any cluster you can reach with
# KUBE_CONFIG_PATH (and, optionally, KUBE_CTX).
terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# No settings: the connection comes from the environment (KUBE_CONFIG_PATH).
provider "admission" {}

resource "admission_mutating_webhook_configuration" "quickstart" {
  metadata {
    name = "quickstart.admission.example.com"
    labels = {
      "app.kubernetes.io/managed-by" = "terraform"
    }
  }

  webhook {
    name                      = "pods.quickstart.admission.example.com"
    admission_review_versions = ["v1"]
    side_effects              = "None"
    # Requests go through when the webhook cannot be reached. It is only
    # called for pods that carry the label admission.example.com/quickstart
    # (see object_selector), so on a real cluster it intercepts nothing else.
    failure_policy = "Ignore"

    client_config {
      url = "https://webhook.example.com/mutate"
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
        values   = ["kube-system", "kube-public", "kube-node-lease"]
      }
    }

    object_selector {
      match_labels = {
        "admission.example.com/quickstart" = "true"
      }
    }

    match_conditions {
      name       = "not-opted-out"
      expression = "!has(object.metadata.labels) || !('quickstart.admission.example.com/skip' in object.metadata.labels)"
    }
  }
}

# Validating webhooks are called after every mutating one, and may only admit
# or reject the object. This one is called for the creation of ConfigMaps
# labelled admission.example.com/quickstart=true, and for nothing else.
resource "admission_validating_webhook_configuration" "quickstart" {
  metadata {
    name = "quickstart.admission.example.com"
    labels = {
      "app.kubernetes.io/managed-by" = "terraform"
    }
  }

  webhook {
    name                      = "configmaps.quickstart.admission.example.com"
    admission_review_versions = ["v1"]
    side_effects              = "None"
    failure_policy            = "Ignore"

    client_config {
      url = "https://webhook.example.com/validate"
    }

    rule {
      operations   = ["CREATE"]
      api_groups   = [""]
      api_versions = ["v1"]
      resources    = ["configmaps"]
    }

    object_selector {
      match_labels = {
        "admission.example.com/quickstart" = "true"
      }
    }
  }
}

output "uid" {
  description = "The UID the API server gave the mutating configuration."
  value       = admission_mutating_webhook_configuration.quickstart.metadata[0].uid
}

output "generation" {
  description = "Goes up each time the webhooks change."
  value       = admission_mutating_webhook_configuration.quickstart.metadata[0].generation
}

# The server defaults are in the state (and were in the plan) even though the
# configuration does not set them.
output "server_defaults" {
  value = {
    match_policy        = admission_mutating_webhook_configuration.quickstart.webhook[0].match_policy
    reinvocation_policy = admission_mutating_webhook_configuration.quickstart.webhook[0].reinvocation_policy
    timeout_seconds     = admission_mutating_webhook_configuration.quickstart.webhook[0].timeout_seconds
    scope               = admission_mutating_webhook_configuration.quickstart.webhook[0].rule[0].scope
  }
}

# A validating webhook has the same defaults, but no reinvocation_policy.
output "validating_server_defaults" {
  value = {
    match_policy    = admission_validating_webhook_configuration.quickstart.webhook[0].match_policy
    timeout_seconds = admission_validating_webhook_configuration.quickstart.webhook[0].timeout_seconds
    scope           = admission_validating_webhook_configuration.quickstart.webhook[0].rule[0].scope
  }
}
