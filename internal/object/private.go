package object

// PrivateKeys are the keys of private state the resource writes (the key of
// Ownership), which the protocol server reads back from a response
// (protocol.PrivateKeys): the framework's private state has no way to list
// its keys.
func (r *Resource[M, T]) PrivateKeys() []string {
	if r.Kind.Ownership == nil {
		return nil
	}
	var cfg M
	key, _ := r.Kind.Ownership(&cfg)
	return []string{key}
}
