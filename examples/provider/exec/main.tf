terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# Get a short-lived token from a client-go credential plugin on every run,
# here the AWS CLI for an EKS cluster. Any plugin that prints an
# ExecCredential works the same way (gke-gcloud-auth-plugin, kubelogin, ...).
provider "admission" {
  host                   = var.cluster_endpoint
  cluster_ca_certificate = base64decode(var.cluster_ca_data)

  exec {
    api_version = "client.authentication.k8s.io/v1beta1"
    command     = "aws"
    args        = ["eks", "get-token", "--cluster-name", var.cluster_name, "--output", "json"]
    env = {
      AWS_PROFILE = "platform"
    }
  }
}

variable "cluster_name" {
  type = string
}

variable "cluster_endpoint" {
  type = string
}

variable "cluster_ca_data" {
  description = "The cluster's CA certificate as the EKS API returns it (base64 of the PEM text)."
  type        = string
}
