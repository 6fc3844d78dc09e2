terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# Connect with a kubeconfig file and one of its contexts, as kubectl does.
provider "admission" {
  config_path    = "~/.kube/config"
  config_context = "production"
}
