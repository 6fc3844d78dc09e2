// A stand-in for Terraform's oci state backend: see ../../README.md.
module github.com/hashicorp/terraform/internal/backend/remote-state/oci

go 1.25.8
