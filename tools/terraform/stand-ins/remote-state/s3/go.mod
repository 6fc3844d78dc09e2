// A stand-in for Terraform's s3 state backend: see ../../README.md.
module github.com/hashicorp/terraform/internal/backend/remote-state/s3

go 1.25.8
