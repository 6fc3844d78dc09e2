import {
  to = admission_mutating_admission_policy_binding.example
  identity = {
    name = "deployment-defaults-production.example.com"
  }
}
