import {
  to = admission_mutating_admission_policy.example
  id = "deployment-defaults.example.com"
}
