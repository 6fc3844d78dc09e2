# The ValidatingAdmissionPolicies that a Helm release installed, found by
# their labels (kubectl -l syntax), to take them over with Terraform:
#
#   terraform query -generate-config-out=generated.tf
#
# writes an import block (by resource identity) and a resource block for each
# one found. Review generated.tf, then `terraform apply` imports the policies
# without changing them. The provider is configured in the module's .tf files.
list "admission_validating_admission_policy" "kyverno" {
  provider = admission

  config {
    label_selector = "app.kubernetes.io/managed-by=Helm,app.kubernetes.io/instance=kyverno"
  }
}

# One policy by its exact name, with all its attributes in the results.
list "admission_validating_admission_policy" "replicas" {
  provider         = admission
  include_resource = true

  config {
    name = "replica-limit.example.com"
  }
}
