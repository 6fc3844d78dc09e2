terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# Connect with the API server's address, its CA certificate and a bearer token,
# for example those of a service account or of a cluster created in the same
# configuration.
variable "cluster_endpoint" {
  type = string
}

variable "cluster_ca_certificate" {
  description = "PEM certificate of the cluster's certificate authority."
  type        = string
}

variable "cluster_token" {
  type      = string
  sensitive = true
}

provider "admission" {
  host                   = var.cluster_endpoint
  cluster_ca_certificate = var.cluster_ca_certificate
  token                  = var.cluster_token
}
