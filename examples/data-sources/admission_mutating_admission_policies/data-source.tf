terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# List the MutatingAdmissionPolicies whose labels match a selector, in the
# syntax of kubectl -l. Leave label_selector out to list all of them.
data "admission_mutating_admission_policies" "managed" {
  label_selector = "app.kubernetes.io/managed-by=terraform,environment!=test"

  # How long the read may keep retrying while the API server is unreachable
  # or overloaded before it fails (default 2 minutes).
  timeouts {
    read = "30s"
  }
}

output "managed_policies" {
  value = [for p in data.admission_mutating_admission_policies.managed.items : p.metadata[0].name]
}

# Every policy in the cluster that refuses the requests it cannot mutate
# (failure_policy Fail, the server default), with the resources it matches:
# while one of its expressions fails, nothing of those resources can be
# created or changed.
data "admission_mutating_admission_policies" "all" {}

output "fail_closed_policies" {
  value = {
    for p in data.admission_mutating_admission_policies.all.items : p.metadata[0].name => flatten([
      for r in p.spec[0].match_constraints[0].resource_rules : r.resources
    ])
    if p.spec[0].failure_policy == "Fail"
  }
}
