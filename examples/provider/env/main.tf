terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# With no settings, the provider reads the same environment variables as the
# hashicorp/kubernetes provider, for example:
#
#   export KUBE_CONFIG_PATH=~/.kube/config
#   export KUBE_CTX=staging
#
# or, without a kubeconfig:
#
#   export KUBE_HOST=https://203.0.113.10:6443
#   export KUBE_CLUSTER_CA_CERT_DATA="$(cat ca.crt)"
#   export KUBE_TOKEN="$(cat token)"
#
# A setting in the configuration wins over its environment variable.
provider "admission" {}
