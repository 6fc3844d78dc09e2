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

# A mutating admission policy: CEL mutations that the API server applies
# itself, with no webhook to run. This one adds the label team=quickstart to
# new Deployments labelled admission.example.com/quickstart=true (and needs
# Kubernetes 1.36 or later).
resource "admission_mutating_admission_policy" "quickstart" {
  metadata {
    name = "team.quickstart.admission.example.com"
    labels = {
      "app.kubernetes.io/managed-by" = "terraform"
    }
  }

  spec {
    match_constraints {
      resource_rules {
        operations   = ["CREATE"]
        api_groups   = ["apps"]
        api_versions = ["v1"]
        resources    = ["deployments"]
      }

      object_selector {
        match_labels = {
          "admission.example.com/quickstart" = "true"
        }
      }
    }

    # Merged into the Deployment as server-side apply merges: its other
    # labels are kept. Type-checked at plan against apps/v1 Deployment.
    mutations {
      patch_type = "ApplyConfiguration"
      apply_configuration {
        expression = "Object{metadata: Object.metadata{labels: {'team': 'quickstart'}}}"
      }
    }

    # Required: whether the policy runs again when a later mutation changes
    # the Deployment.
    reinvocation_policy = "Never"
  }
}

# A mutating policy, too, applies to nothing until a binding names it. This
# one applies it wherever it matches.
resource "admission_mutating_admission_policy_binding" "quickstart" {
  metadata {
    name = "team.quickstart.admission.example.com"
    labels = {
      "app.kubernetes.io/managed-by" = "terraform"
    }
  }

  spec {
    policy_name = admission_mutating_admission_policy.quickstart.id
  }
}

# An admission policy: CEL validations that the API server evaluates itself,
# with no webhook to run. This one limits the replicas of Deployments
# labelled admission.example.com/quickstart=true to a number read from a
# ConfigMap, its parameter.
resource "admission_validating_admission_policy" "quickstart" {
  metadata {
    name = "replicas.quickstart.admission.example.com"
    labels = {
      "app.kubernetes.io/managed-by" = "terraform"
    }
  }

  spec {
    # The expressions see the parameter, a ConfigMap, as `params`.
    param_kind {
      api_version = "v1"
      kind        = "ConfigMap"
    }

    match_constraints {
      resource_rules {
        operations   = ["CREATE", "UPDATE"]
        api_groups   = ["apps"]
        api_versions = ["v1"]
        resources    = ["deployments"]
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
    }

    variables {
      name       = "max_replicas"
      expression = "int(params.data.maxReplicas)"
    }

    # Type-checked at plan against the schema of apps/v1 Deployment.
    validations {
      expression         = "object.spec.replicas <= variables.max_replicas"
      message_expression = "'at most ' + string(variables.max_replicas) + ' replicas, not ' + string(object.spec.replicas)"
    }
  }
}

# The policy applies to nothing until a binding names it. This one passes the
# ConfigMap default/quickstart-limits as the parameter. It does not exist on a
# new cluster, and parameter_not_found_action = "Allow" lets requests through
# until someone creates it:
#
#   kubectl -n default create configmap quickstart-limits --from-literal=maxReplicas=3
resource "admission_validating_admission_policy_binding" "quickstart" {
  metadata {
    name = "replicas.quickstart.admission.example.com"
    labels = {
      "app.kubernetes.io/managed-by" = "terraform"
    }
  }

  spec {
    # The policy's id (its name): Terraform creates the policy first.
    policy_name        = admission_validating_admission_policy.quickstart.id
    validation_actions = ["Deny"]

    param_ref {
      name                       = "quickstart-limits"
      namespace                  = "default"
      parameter_not_found_action = "Allow"
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

# The policy's server defaults: failure_policy, and those of its
# match_constraints.
output "policy_server_defaults" {
  value = {
    failure_policy = admission_validating_admission_policy.quickstart.spec[0].failure_policy
    match_policy   = admission_validating_admission_policy.quickstart.spec[0].match_constraints[0].match_policy
    scope          = admission_validating_admission_policy.quickstart.spec[0].match_constraints[0].resource_rules[0].scope
  }
}

# The mutating policy's server defaults: failure_policy, and those of its
# match_constraints (it has no default reinvocation_policy).
output "mutating_policy_server_defaults" {
  value = {
    failure_policy = admission_mutating_admission_policy.quickstart.spec[0].failure_policy
    match_policy   = admission_mutating_admission_policy.quickstart.spec[0].match_constraints[0].match_policy
    scope          = admission_mutating_admission_policy.quickstart.spec[0].match_constraints[0].resource_rules[0].scope
  }
}

# The binding as the server stored it: the policy it applies, with which
# parameter, and what a failed validation does.
output "binding" {
  value = {
    policy_name        = admission_validating_admission_policy_binding.quickstart.spec[0].policy_name
    param_ref          = "${admission_validating_admission_policy_binding.quickstart.spec[0].param_ref[0].namespace}/${admission_validating_admission_policy_binding.quickstart.spec[0].param_ref[0].name}"
    validation_actions = admission_validating_admission_policy_binding.quickstart.spec[0].validation_actions
  }
}
