//go:build tools

// Package tools pins golangci-lint in its own module, so that its many
// dependencies do not constrain the other tools. Build it with
// `tools/bin.sh golangci-lint`.
package tools

import _ "github.com/golangci/golangci-lint/v2/cmd/golangci-lint"
