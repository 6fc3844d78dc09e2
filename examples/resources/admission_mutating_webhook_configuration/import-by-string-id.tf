import {
  to = admission_mutating_webhook_configuration.example
  id = "sidecar-injector.example.com"
}
