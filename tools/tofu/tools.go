//go:build tools

// Package tools pins the OpenTofu CLI that the acceptance tests and
// `make demo` use when no terraform binary is on PATH, or when ADMISSION_TF=tofu.
// Build it with `tools/bin.sh tofu`.
package tools

import _ "github.com/opentofu/opentofu/cmd/tofu"
