# A MutatingWebhookConfiguration is imported by its name.
terraform import admission_mutating_webhook_configuration.example sidecar-injector.example.com
