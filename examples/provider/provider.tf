# Connect with a kubeconfig file and one of its contexts, as kubectl does.
provider "admission" {
  config_path    = "~/.kube/config"
  config_context = "production"
}
