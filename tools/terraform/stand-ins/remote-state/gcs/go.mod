// A stand-in for Terraform's gcs state backend: see ../../README.md.
module github.com/hashicorp/terraform/internal/backend/remote-state/gcs

go 1.25.8
