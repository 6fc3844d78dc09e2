terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# List the ValidatingAdmissionPolicies whose labels match a selector, in the
# syntax of kubectl -l. Leave label_selector out to list all of them.
data "admission_validating_admission_policies" "managed" {
  label_selector = "app.kubernetes.io/managed-by=terraform,environment!=test"

  # How long the read may keep retrying while the API server is unreachable
  # or overloaded before it fails (default 2 minutes).
  timeouts {
    read = "30s"
  }
}

output "managed_policies" {
  value = [for p in data.admission_validating_admission_policies.managed.items : p.metadata[0].name]
}

# Every policy in the cluster whose expressions do not type-check against a
# kind it matches, as kube-controller-manager reported in its status. Such an
# expression fails at admission, and its failure_policy decides.
data "admission_validating_admission_policies" "all" {}

output "policies_with_type_errors" {
  value = {
    for p in data.admission_validating_admission_policies.all.items : p.metadata[0].name => [
      for w in p.status.type_checking : "${w.field_ref}: ${w.warning}"
    ]
    if length(p.status.type_checking) > 0
  }
}
