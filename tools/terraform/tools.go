//go:build tools

// Package tools pins the Terraform CLI that the acceptance tests use by
// default (`make test`): 1.12 or later runs the tests of import by resource
// identity, and 1.14 or later those of list resources and `terraform query`.
// Build it with `tools/bin.sh terraform14`.
package tools

import _ "github.com/hashicorp/terraform"
