//go:build tools

// Package tools pins the oldest Terraform CLI that the benchmark measures
// (make bench with -terraform, see ../../bench/README.md): 1.11, the last
// release line before resource identity, which Terraform sends from 1.12.
// Build it with `tools/bin.sh terraform11`. It shares the stand-ins of
// Terraform's nested modules with tools/terraform (see
// ../terraform/stand-ins/README.md).
package tools

import _ "github.com/hashicorp/terraform"
