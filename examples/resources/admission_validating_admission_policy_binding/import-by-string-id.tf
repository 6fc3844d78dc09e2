import {
  to = admission_validating_admission_policy_binding.example
  id = "replica-limit-production.example.com"
}
