import {
  to = admission_validating_webhook_configuration.example
  id = "deployment-policy.example.com"
}
