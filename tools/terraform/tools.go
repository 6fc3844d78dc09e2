//go:build tools

// Package tools pins Terraform 1.14, the older release line of the acceptance
// matrix (`make testacc-tf14`; `make test` uses tools/terraform16): 1.12 or
// later runs the tests of import by resource identity, and 1.14 or later those
// of list resources and `terraform query`. Build it with
// `tools/bin.sh terraform14`. Its stand-ins serve tools/terraform16 too.
package tools

import _ "github.com/hashicorp/terraform"
