package core

// PrivateKeys are the keys of private state the resource writes (the key of
// Ownership, the server's object and the update that writes nothing of
// nowrite.go, and what a moved state claimed but never sent, of moved.go),
// which the protocol server reads back from a response (protocol.PrivateKeys):
// the framework's private state has no way to list its keys.
func (r *Resource[M, T]) PrivateKeys() []string {
	keys := []string{serverKey, noWriteKey, unsentKey}
	if r.Kind.Ownership == nil {
		return keys
	}
	var cfg M
	key, _ := r.Kind.Ownership(&cfg)
	return append(keys, key)
}
