# Everything the Helm release "cert-manager" installed, of both webhook
# kinds, found by the labels the chart sets:
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
