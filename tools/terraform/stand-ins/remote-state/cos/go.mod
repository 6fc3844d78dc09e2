// A stand-in for Terraform's cos state backend: see ../../README.md.
module github.com/hashicorp/terraform/internal/backend/remote-state/cos

go 1.25.8
