terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# Connect with a TLS client certificate. All three values are PEM text.
provider "admission" {
  host                   = "https://203.0.113.10:6443"
  cluster_ca_certificate = file("${path.module}/pki/ca.crt")
  client_certificate     = file("${path.module}/pki/admin.crt")
  client_key             = file("${path.module}/pki/admin.key")
}
