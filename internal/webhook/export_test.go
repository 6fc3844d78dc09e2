package webhook

// ProofRequests counts the requests of the proofs at apply made by this test binary.
var ProofRequests = &proofRequests
