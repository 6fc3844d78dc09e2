//go:build generate

// Package tools pins the documentation generator in this module's go.mod.
// Run `make docs` (or `go generate` in this directory) to regenerate docs/.
package tools

import (
	_ "github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs"
)

// Format Terraform code for use in documentation.
//go:generate sh -c "$(bash ./bin.sh terraform) fmt -recursive ../examples/"

// Generate documentation (tfplugindocs, fed with the schema read by the
// Terraform 1.14 of bin.sh; see docs.sh).
//go:generate bash ./docs.sh
