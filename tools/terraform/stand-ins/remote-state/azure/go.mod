// A stand-in for Terraform's azure state backend: see ../../README.md.
module github.com/hashicorp/terraform/internal/backend/remote-state/azure

go 1.25.8
