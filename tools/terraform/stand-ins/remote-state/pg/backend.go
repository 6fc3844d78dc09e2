// Package pg stands in for Terraform's "pg" state backend, a module of its
// own that the Go module proxy does not serve with github.com/hashicorp/terraform.
// New has the signature that the backend list of
// github.com/hashicorp/terraform/internal/backend/init (Init) calls, and returns
// the in-memory backend of github.com/hashicorp/terraform/internal/backend/remote-state/inmem.
package pg

import (
	"github.com/hashicorp/terraform/internal/backend"
	"github.com/hashicorp/terraform/internal/backend/remote-state/inmem"
)

// New returns the in-memory state backend.
func New() backend.Backend { return inmem.New() }
