terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# The cluster to search: here the current context of the kubeconfig.
provider "admission" {
  config_path = "~/.kube/config"
}
