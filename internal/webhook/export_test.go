package webhook

import "time"

// ProofRequests counts the requests of the proofs at apply made by this test binary.
var ProofRequests = &proofRequests

// ProofTimes are the times the proofs at apply of this test binary took.
func ProofTimes() []time.Duration {
	proofTimes.Lock()
	defer proofTimes.Unlock()
	return append([]time.Duration(nil), proofTimes.took...)
}
