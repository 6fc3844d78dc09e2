# A MutatingAdmissionPolicy is imported by its name.
terraform import admission_mutating_admission_policy.example deployment-defaults.example.com
