// Package terraform is empty: only tests of the terraform command import it
// (github.com/hashicorp/terraform/internal/command/views), and `go mod tidy`
// looks for every package that tests of dependencies import.
package terraform
