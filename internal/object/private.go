package object

// PrivateKeys are the keys of private state the resource writes (the key of
// Ownership, and the server's object and the update that writes nothing of
// nowrite.go), which the protocol server reads back from a response
// (protocol.PrivateKeys): the framework's private state has no way to list
// its keys.
func (r *Resource[M, T]) PrivateKeys() []string {
	keys := []string{serverKey, noWriteKey}
	if r.Kind.Ownership == nil {
		return keys
	}
	var cfg M
	key, _ := r.Kind.Ownership(&cfg)
	return append(keys, key)
}
