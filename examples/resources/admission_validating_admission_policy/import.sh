# A ValidatingAdmissionPolicy is imported by its name.
terraform import admission_validating_admission_policy.example replica-limit.example.com
