// A stand-in for Terraform's pg state backend: see ../../README.md.
module github.com/hashicorp/terraform/internal/backend/remote-state/pg

go 1.25.8
