import {
  to = admission_validating_admission_policy_binding.example
  identity = {
    name = "replica-limit-production.example.com"
  }
}
