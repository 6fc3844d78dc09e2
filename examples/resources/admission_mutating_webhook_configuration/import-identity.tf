import {
  to = admission_mutating_webhook_configuration.labeler
  identity = {
    name = "labeler.example.com"
  }
}
