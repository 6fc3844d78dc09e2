import {
  to = admission_mutating_webhook_configuration.example
  identity = {
    name = "sidecar-injector.example.com"
  }
}
