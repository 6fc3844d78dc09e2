# A ValidatingWebhookConfiguration is imported by its name.
terraform import admission_validating_webhook_configuration.example deployment-policy.example.com
