terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# Applies the policy replica-limit.example.com (see the example of
# admission_validating_admission_policy) to the production namespaces, with
# the limit of one ConfigMap, platform-policy/replica-limit-production.
#
# The policy is managed elsewhere here, so policy_name is its name, and the
# plan warns if no such policy exists. When the policy is in the same
# configuration, write policy_name = admission_validating_admission_policy.<name>.id
# instead: Terraform then creates the policy before the binding.
resource "admission_validating_admission_policy_binding" "example" {
  metadata {
    name = "replica-limit-production.example.com"
    labels = {
      "app.kubernetes.io/managed-by" = "terraform"
    }
  }

  spec {
    policy_name = "replica-limit.example.com"

    # The policy has param_kind { api_version = "v1", kind = "ConfigMap" }:
    # this is the ConfigMap its expressions see as `params`.
    param_ref {
      name      = "replica-limit-production"
      namespace = "platform-policy"
      # Without that ConfigMap the policy's failure_policy decides, rather
      # than the request going through unchecked.
      parameter_not_found_action = "Deny"
    }

    # A failed validation rejects the request and is recorded in the audit
    # event (annotation validation.policy.admission.k8s.io/validation_failure).
    validation_actions = ["Deny", "Audit"]

    # Narrows what the policy matches (its match_constraints) to the
    # namespaces labelled environment=production.
    match_resources {
      namespace_selector {
        match_labels = {
          environment = "production"
        }
      }
    }
  }
}
