# A ValidatingAdmissionPolicyBinding is imported by its name.
terraform import admission_validating_admission_policy_binding.example replica-limit-production.example.com
