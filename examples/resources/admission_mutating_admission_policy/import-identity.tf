import {
  to = admission_mutating_admission_policy.example
  identity = {
    name = "deployment-defaults.example.com"
  }
}
