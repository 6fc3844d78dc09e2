import {
  to = admission_validating_webhook_configuration.example
  identity = {
    name = "deployment-policy.example.com"
  }
}
