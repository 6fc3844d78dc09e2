# adopt.tfquery.hcl: list blocks go in a file whose name ends in
# .tfquery.hcl, beside main.tf (which holds the provider block); only
# `terraform query` reads them, and in a .tf file they are an error.
#
# Everything the Helm release "cert-manager" installed, of both webhook
# kinds, found by the labels the chart sets (the policy and binding kinds
# have list resources of their own, used the same way):
#
#   terraform query -generate-config-out=generated.tf
#
# writes an import block and a resource block for each object found, with the
# chart's labels and annotations and none of the keys Helm, kubectl, Argo CD
# or Flux keep for themselves. Review generated.tf (leave out a ca_bundle that
# cert-manager injects), then `terraform apply` imports the objects without
# changing them.
list "admission_validating_webhook_configuration" "cert_manager" {
  provider = admission

  config {
    label_selector = "app.kubernetes.io/instance=cert-manager"
  }
}

list "admission_mutating_webhook_configuration" "cert_manager" {
  provider = admission

  config {
    label_selector = "app.kubernetes.io/instance=cert-manager"
  }
}
