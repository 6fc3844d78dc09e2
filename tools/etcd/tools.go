//go:build tools

// Package tools pins the etcd server used by the local control plane of
// `make demo` and the acceptance tests. Build it with `tools/bin.sh etcd`.
package tools

import _ "go.etcd.io/etcd/server/v3"
