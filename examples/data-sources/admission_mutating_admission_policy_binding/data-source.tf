terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# Read one MutatingAdmissionPolicyBinding, with every field as the server
# stores it.
data "admission_mutating_admission_policy_binding" "production" {
  name = "deployment-defaults-production.example.com"
}

# The policy it applies.
output "production_binding_policy" {
  value = data.admission_mutating_admission_policy_binding.production.spec[0].policy_name
}

# The parameter it passes to the policy: a name or a selector, a namespace,
# and what happens when none is found. Null when the binding passes none.
output "production_binding_param_ref" {
  value = data.admission_mutating_admission_policy_binding.production.spec[0].param_ref
}

# The namespaces it narrows the policy to, by label. Null when the binding
# has no match_resources, and applies wherever the policy matches.
output "production_binding_namespace_selector" {
  value = try(data.admission_mutating_admission_policy_binding.production.spec[0].match_resources[0].namespace_selector, null)
}
