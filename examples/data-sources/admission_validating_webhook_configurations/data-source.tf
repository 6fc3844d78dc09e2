terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# List the ValidatingWebhookConfigurations whose labels match a selector, in
# the syntax of kubectl -l. Leave label_selector out to list all of them.
data "admission_validating_webhook_configurations" "managed" {
  label_selector = "app.kubernetes.io/managed-by=terraform,environment!=test"

  # How long the read may keep retrying while the API server is unreachable
  # or overloaded before it fails (default 2 minutes).
  timeouts {
    read = "30s"
  }
}

output "managed_configurations" {
  value = [for c in data.admission_validating_webhook_configurations.managed.items : c.metadata[0].name]
}

# Every validating webhook in the cluster that fails closed and has no
# namespace selector (an absent or empty one reads as null), so that it also
# sees kube-system: while it is down, nothing there can be created or changed.
data "admission_validating_webhook_configurations" "all" {}

output "fail_closed_everywhere" {
  value = flatten([
    for c in data.admission_validating_webhook_configurations.all.items : [
      for w in c.webhook : "${c.metadata[0].name}/${w.name}"
      if w.failure_policy == "Fail" && w.namespace_selector == null
    ]
  ])
}
