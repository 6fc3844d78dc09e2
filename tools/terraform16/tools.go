//go:build tools

// Package tools pins the Terraform CLI that the acceptance tests use by
// default (`make test`): the newest release line the module proxy serves.
// Build it with `tools/bin.sh terraform16`. It shares the stand-ins of
// Terraform's nested modules with tools/terraform (see
// ../terraform/stand-ins/README.md).
package tools

import _ "github.com/hashicorp/terraform"
