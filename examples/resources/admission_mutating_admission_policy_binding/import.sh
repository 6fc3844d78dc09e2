# A MutatingAdmissionPolicyBinding is imported by its name.
terraform import admission_mutating_admission_policy_binding.example deployment-defaults-production.example.com
