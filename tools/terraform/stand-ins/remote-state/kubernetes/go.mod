// A stand-in for Terraform's kubernetes state backend: see ../../README.md.
module github.com/hashicorp/terraform/internal/backend/remote-state/kubernetes

go 1.25.8
