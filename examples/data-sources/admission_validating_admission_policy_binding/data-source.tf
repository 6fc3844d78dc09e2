terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# Read one ValidatingAdmissionPolicyBinding, with every field as the server
# stores it.
data "admission_validating_admission_policy_binding" "production" {
  name = "replica-limit-production.example.com"
}

# The policy it applies, and what a failed validation does.
output "production_binding" {
  value = {
    policy_name        = data.admission_validating_admission_policy_binding.production.spec[0].policy_name
    validation_actions = data.admission_validating_admission_policy_binding.production.spec[0].validation_actions
  }
}

# The parameter it passes to the policy: a name or a selector, a namespace,
# and what happens when none is found. Null when the binding passes none.
output "production_binding_param_ref" {
  value = data.admission_validating_admission_policy_binding.production.spec[0].param_ref
}
