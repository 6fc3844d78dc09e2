# The MutatingAdmissionPolicyBindings of a team, found by their labels
# (kubectl -l syntax). `terraform query` prints their names;
# `terraform query -generate-config-out=generated.tf` writes an import block
# and a resource block for each, to take them over with `terraform apply`.
list "admission_mutating_admission_policy_binding" "platform" {
  provider = admission

  config {
    label_selector = "team=platform"
  }
}
