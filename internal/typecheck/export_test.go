package typecheck

// LiveError is why the cluster's API could not be had, if the Checker needed it and failed:
// the kinds it did not resolve were then not checked; or which groups' discovery failed, when
// the rest was read. Nil if it was never needed or worked.
func (c *Checker) LiveError() error {
	if !c.askedLive.Load() {
		return nil
	}
	_, err := c.liveAPI()
	return err
}
