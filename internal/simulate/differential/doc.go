// Package differential holds the differential test of internal/simulate:
// generated admission policies, bindings, webhook configurations and
// requests, each answered by the offline engine and by a real
// kube-apiserver (the local control plane of internal/acctest), which must
// agree on the verdict, the message, the warnings, the mutated object and
// the webhooks called; and sets of them together, answered by the whole
// admission chain (simulate.Admit). It has only tests; run them with TF_ACC=1.
package differential
