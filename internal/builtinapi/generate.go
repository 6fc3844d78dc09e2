package builtinapi

// builtin.json.gz is the snapshot of kube-apiserver's built-in API (package snapshot), taken
// from a local control plane; TestAccBuiltinIsFresh fails when it differs from what the server
// serves.
//go:generate go run ./internal/gen -o builtin.json.gz
