terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# The same policy everywhere but in production, with a limit that each
# namespace sets for itself: a ConfigMap of its own, labelled
# policy.example.com/replica-limit=true, for example:
#
#   kubectl -n team-a create configmap replica-limit --from-literal=maxReplicas=5
#   kubectl -n team-a label configmap replica-limit policy.example.com/replica-limit=true
#
# Namespaces without one are not limited. Failures are not enforced: the
# client gets a warning, and the audit event records it.
resource "admission_validating_admission_policy_binding" "per_namespace" {
  metadata {
    name = "replica-limit-per-namespace.example.com"
  }

  spec {
    policy_name = "replica-limit.example.com"

    param_ref {
      # No name: every ConfigMap with this label is a parameter, and the
      # policy is evaluated once with each. No namespace: they are looked up
      # in the namespace of the Deployment that the request is about.
      selector {
        match_labels = {
          "policy.example.com/replica-limit" = "true"
        }
      }
      parameter_not_found_action = "Allow"
    }

    # Warn returns the failure to the client as a warning and lets the
    # request through. (The API server refuses Warn together with Deny: the
    # rejection already says it all.)
    validation_actions = ["Warn", "Audit"]

    match_resources {
      namespace_selector {
        match_expressions {
          key      = "environment"
          operator = "NotIn"
          values   = ["production"]
        }
      }
      # Only the Deployments that are not marked as exempt.
      object_selector {
        match_expressions {
          key      = "policy.example.com/replica-limit-exempt"
          operator = "DoesNotExist"
        }
      }
    }
  }
}
