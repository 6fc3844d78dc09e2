// A stand-in for Terraform's internal/legacy module: see ../README.md. No
// package of the terraform command imports it.
module github.com/hashicorp/terraform/internal/legacy

go 1.25.8
