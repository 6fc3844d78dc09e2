//go:build tools

// Package tools pins the kubectl build in this module's go.mod.
package tools

import _ "k8s.io/kubernetes/cmd/kubectl"
