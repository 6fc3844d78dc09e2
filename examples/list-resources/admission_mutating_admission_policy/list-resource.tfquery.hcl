# The MutatingAdmissionPolicies of a team, found by their labels (kubectl -l
# syntax). `terraform query` prints their names;
# `terraform query -generate-config-out=generated.tf` writes an import block
# and a resource block for each, to take them over with `terraform apply`.
list "admission_mutating_admission_policy" "platform" {
  provider = admission

  config {
    label_selector = "team=platform,tier!=test"
  }
}

# One policy by its exact name, with all its attributes in the results.
list "admission_mutating_admission_policy" "defaults" {
  provider         = admission
  include_resource = true

  config {
    name = "default-labels.example.com"
  }
}
