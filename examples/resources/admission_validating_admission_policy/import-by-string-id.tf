import {
  to = admission_validating_admission_policy.example
  id = "replica-limit.example.com"
}
