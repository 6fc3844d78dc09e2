terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# List the MutatingAdmissionPolicyBindings whose labels match a selector, in
# the syntax of kubectl -l. Leave label_selector out to list all of them.
data "admission_mutating_admission_policy_bindings" "all" {
  # How long the read may keep retrying while the API server is unreachable
  # or overloaded before it fails (default 2 minutes).
  timeouts {
    read = "30s"
  }
}

# The bindings of each policy, by policy name. A policy is applied once for
# each of its bindings that matches a request.
output "bindings_by_policy" {
  value = {
    for b in data.admission_mutating_admission_policy_bindings.all.items :
    b.spec[0].policy_name => b.metadata[0].name...
  }
}

# Bindings that name a policy the cluster does not have: they do nothing.
data "admission_mutating_admission_policies" "all" {}

locals {
  policy_names = toset([for p in data.admission_mutating_admission_policies.all.items : p.metadata[0].name])
}

output "bindings_without_policy" {
  value = [
    for b in data.admission_mutating_admission_policy_bindings.all.items : b.metadata[0].name
    if !contains(local.policy_names, b.spec[0].policy_name)
  ]
}
