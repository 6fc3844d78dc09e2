# The ValidatingAdmissionPolicyBindings that a Helm release installed, found
# by their labels (kubectl -l syntax). `terraform query` prints their names;
# `terraform query -generate-config-out=generated.tf` writes an import block
# and a resource block for each, to take them over with `terraform apply`.
list "admission_validating_admission_policy_binding" "kyverno" {
  provider = admission

  config {
    label_selector = "app.kubernetes.io/managed-by=Helm,app.kubernetes.io/instance=kyverno"
  }
}
