import {
  to = admission_validating_admission_policy.example
  identity = {
    name = "replica-limit.example.com"
  }
}
