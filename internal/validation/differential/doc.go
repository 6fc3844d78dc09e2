// Package differential holds the differential test of internal/validation: a deterministic
// generator of MutatingWebhookConfiguration objects, valid ones and ones broken by each rule of
// the server's validation (k8s.io/kubernetes pkg/apis/admissionregistration/validation), and a test that sends each one to a real
// kube-apiserver as a dry-run create and requires the server and Validate to agree on the verdict
// and on the set of (field path, error type) pairs. Each object is sent twice: as the
// MutatingWebhookConfiguration generated, and as the ValidatingWebhookConfiguration made from it
// by dropping reinvocationPolicy (the one field a ValidatingWebhook lacks), which Validate judges
// in the form the provider's core holds it.
//
// The admission policy kinds (ValidatingAdmissionPolicy, MutatingAdmissionPolicy and their
// bindings) have generators of their own over shared mutators (policy_*_test.go), and the same
// test: a dry-run create of each object, the same verdict and (field path, reason) pairs from the
// kind's Validate function after its Default function, and, for an accepted object, the spec the
// server would store equal to the one Default makes.
//
// The same corpus makes the version matrix (matrix_test.go): each object, as a create and as an
// update, judged by Validate at each release from 1.31 to 1.37 and by that release's own
// validation code, run in the oracle of internal/validation/matrix.
//
// The package has no code outside its tests. Run it with
//
//	TF_ACC=1 go test ./internal/validation/differential/ -v -count=1
//
// (make test does, through TF_ACC). Without TF_ACC only the offline checks of the generator run.
package differential
