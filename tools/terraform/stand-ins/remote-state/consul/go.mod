// A stand-in for Terraform's consul state backend: see ../../README.md.
module github.com/hashicorp/terraform/internal/backend/remote-state/consul

go 1.25.8
