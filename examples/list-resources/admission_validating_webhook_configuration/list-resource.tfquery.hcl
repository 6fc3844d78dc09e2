# The ValidatingWebhookConfigurations that a Helm release installed, found by
# their labels (kubectl -l syntax). `terraform query` prints their names;
# `terraform query -generate-config-out=generated.tf` writes an import block
# and a resource block for each, to take them over with `terraform apply`.
list "admission_validating_webhook_configuration" "cert_manager" {
  provider = admission

  config {
    label_selector = "app.kubernetes.io/managed-by=Helm,app.kubernetes.io/instance=cert-manager"
  }
}

# Every ValidatingWebhookConfiguration in the cluster, up to 500 of them
# (the default limit is 100).
list "admission_validating_webhook_configuration" "all" {
  provider = admission
  limit    = 500
}
