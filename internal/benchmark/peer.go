package benchmark

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// The peer is hashicorp/kubernetes, the provider whose
// kubernetes_mutating_webhook_configuration_v1 this one replaces. Its block
// layout is the one this provider took, so the same objects are written for
// it by renaming the resource type (PeerHCL); it has no match_conditions, so
// it runs only on the workload without them. The harness does not build it:
// the Go module proxy serves none of its recent releases, so it is given as
// a binary (ADMISSION_BENCH_PEER), built by whoever runs the benchmark from
// the provider's own repository.

// PeerModule is hashicorp/kubernetes' Go module.
const PeerModule = "github.com/hashicorp/terraform-provider-kubernetes"

// Peer is the hashicorp/kubernetes provider measured beside this one.
type Peer struct {
	// Binary is the provider binary ("" when none was given) and About
	// what it was built from, in words (ADMISSION_BENCH_PEER_ABOUT).
	Binary, About string
	// Reason says why there is no peer, when Binary is "".
	Reason string
}

// PeerFromEnv is the peer that ADMISSION_BENCH_PEER names.
func PeerFromEnv() Peer {
	bin := os.Getenv("ADMISSION_BENCH_PEER")
	about := os.Getenv("ADMISSION_BENCH_PEER_ABOUT")
	if bin == "" {
		return Peer{Reason: "ADMISSION_BENCH_PEER names no hashicorp/kubernetes provider binary. The Go module proxy serves " +
			"only v1.13.4 of " + PeerModule + ", whose dependencies it does not all serve either, so the harness cannot " +
			"build it; build it from its repository (`go build` in a checkout) and set ADMISSION_BENCH_PEER to the binary"}
	}
	abs, err := filepath.Abs(bin)
	if err == nil {
		bin = abs
	}
	if fi, err := os.Stat(bin); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		return Peer{Reason: fmt.Sprintf("ADMISSION_BENCH_PEER=%s is not an executable file", bin)}
	}
	if about == "" {
		about = "a binary given by ADMISSION_BENCH_PEER (" + bin + ")"
	}
	if v := goVersionOf(bin); v != "" {
		about += ", " + v
	}
	return Peer{Binary: bin, About: about}
}

// Note says what the report can say of the peer.
func (p Peer) Note() string {
	if p.Binary != "" {
		return "Measured in this run, on the same objects, phase for phase, in the same rounds as this provider " +
			"(resource `kubernetes_mutating_webhook_configuration_v1`, SDKv2; its block layout is this provider's, so the " +
			"configuration differs only in the resource type and the provider block). Built from " + p.About + "."
	}
	return "Not measured in this run: " + p.Reason + "."
}

// PeerHCL renders the objects as a configuration of hashicorp/kubernetes:
// the blocks of HCL under the resource type
// kubernetes_mutating_webhook_configuration_v1, with the connection from the
// environment (KUBE_CONFIG_PATH).
func PeerHCL(objs []*admissionregistrationv1.MutatingWebhookConfiguration) ([]byte, error) {
	for _, o := range objs {
		for _, h := range o.Webhooks {
			if len(h.MatchConditions) > 0 {
				return nil, fmt.Errorf("hashicorp/kubernetes has no match_conditions: run it with -conditions 0")
			}
		}
	}
	return hclOf(objs, "kubernetes", peerSource, "kubernetes_mutating_webhook_configuration_v1"), nil
}

const (
	peerSource = "hashicorp/kubernetes"
	// PeerBinaryName is the file name Terraform runs for the peer from a
	// dev_overrides directory.
	PeerBinaryName = "terraform-provider-kubernetes"
)

// goVersionOf is the Go version a binary was built with (go version).
func goVersionOf(bin string) string {
	out, err := exec.Command("go", "version", bin).Output()
	if err != nil {
		return ""
	}
	_, v, _ := strings.Cut(strings.TrimSpace(string(out)), ": ")
	return v
}
