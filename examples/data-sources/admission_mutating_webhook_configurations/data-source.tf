terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# List the MutatingWebhookConfigurations whose labels match a selector, in the
# syntax of kubectl -l. Leave label_selector out to list all of them.
data "admission_mutating_webhook_configurations" "managed" {
  label_selector = "app.kubernetes.io/managed-by=terraform,environment!=test"

  # How long the read may keep retrying while the API server is unreachable
  # or overloaded before it fails (default 2 minutes).
  timeouts {
    read = "30s"
  }
}

output "managed_configurations" {
  value = [for c in data.admission_mutating_webhook_configurations.managed.items : c.metadata[0].name]
}

# Every webhook in the cluster that fails closed, to review which ones can
# block requests while they are down.
data "admission_mutating_webhook_configurations" "all" {}

output "fail_closed_webhooks" {
  value = flatten([
    for c in data.admission_mutating_webhook_configurations.all.items : [
      for w in c.webhook : "${c.metadata[0].name}/${w.name}" if w.failure_policy == "Fail"
    ]
  ])
}
