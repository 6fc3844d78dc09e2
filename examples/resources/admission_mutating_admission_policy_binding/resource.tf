terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# Applies the policy deployment-defaults.example.com (see the example of
# admission_mutating_admission_policy) to the production namespaces. Its
# parameter is the ConfigMap of the Deployment's namespace that is labelled
# policy.example.com/team=true, whatever its name, for example:
#
#   kubectl -n shop create configmap owner --from-literal=team=payments
#   kubectl -n shop label configmap owner policy.example.com/team=true
#
# The policy is managed elsewhere here, so policy_name is its name, and the
# plan warns if no such policy exists. When the policy is in the same
# configuration, write policy_name = admission_mutating_admission_policy.<name>.id
# instead: Terraform then creates the policy before the binding.
resource "admission_mutating_admission_policy_binding" "example" {
  metadata {
    name = "deployment-defaults-production.example.com"
    labels = {
      "app.kubernetes.io/managed-by" = "terraform"
    }
  }

  spec {
    policy_name = "deployment-defaults.example.com"

    # The policy has param_kind { api_version = "v1", kind = "ConfigMap" }.
    param_ref {
      # No name: every ConfigMap with this label is a parameter, and the
      # policy is applied once with each, in no set order. Label one
      # ConfigMap per namespace, or the last one applied sets the team.
      # No namespace: they are looked up in the namespace of the Deployment
      # that the request is about.
      selector {
        match_labels = {
          "policy.example.com/team" = "true"
        }
      }
      # Namespaces without such a ConfigMap are left alone.
      parameter_not_found_action = "Allow"
    }

    # Narrows what the policy matches (its match_constraints) to the
    # namespaces labelled environment=production, and to the Deployments
    # that are not marked as exempt.
    match_resources {
      namespace_selector {
        match_labels = {
          environment = "production"
        }
      }
      object_selector {
        match_expressions {
          key      = "policy.example.com/deployment-defaults-exempt"
          operator = "DoesNotExist"
        }
      }
    }
  }
}
