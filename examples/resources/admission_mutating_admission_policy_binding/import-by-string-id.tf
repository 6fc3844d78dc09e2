import {
  to = admission_mutating_admission_policy_binding.example
  id = "deployment-defaults-production.example.com"
}
