package benchmark

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// The peer is hashicorp/kubernetes, the provider whose
// kubernetes_mutating_webhook_configuration_v1 this one replaces (issue #14
// asks for it beside kubectl). It can only be had from the Go module proxy,
// which serves none of its recent releases: BuildPeer tries what is served
// and says why it cannot be measured.

// PeerModule is hashicorp/kubernetes' Go module.
const PeerModule = "github.com/hashicorp/terraform-provider-kubernetes"

// Peer is what BuildPeer found.
type Peer struct {
	// Version is the release tried; Binary the provider built from it, ""
	// when it could not be built, and Reason why.
	Version, Binary, Reason string
}

// span is a range of wall times in seconds.
type span struct{ Low, High float64 }

func (s span) String() string {
	if s.Low == 0 {
		return "–"
	}
	if s.Low == s.High {
		return fmt.Sprintf("%.1f", s.Low)
	}
	return fmt.Sprintf("%.1f–%.1f", s.Low, s.High)
}

// peerReference is what issue #14 measured on this machine for
// hashicorp/kubernetes: N = 200 objects of 3 webhooks without match
// conditions, kube-apiserver v1.37.2 on loopback, two runs each.
var peerReference = map[string]span{
	PhaseCreate: {12.6, 13.5},
	PhaseNoop:   {6.6, 6.9},
	PhaseDelete: {15.0, 15.0},
}

// reference is the peer's figures to set beside a set of results, if the
// peer was not measured and the figures are of the same workload.
func (p Peer) reference(s runSet) map[string]span {
	if p.Binary != "" || s != (runSet{N: 200, Conditions: 0}) {
		return nil
	}
	return peerReference
}

// Note says what the report can say of the peer.
func (p Peer) Note() string {
	if p.Binary != "" {
		return fmt.Sprintf("%s %s was built, but the harness has no configuration writer for its resource schema: not measured.", PeerModule, p.Version)
	}
	return "Not measured in this run: " + p.Reason + ". In its place, the table of N = 200 on loopback without match conditions " +
		"shows the figures issue #14 measured for it on this machine (same objects, same kube-apiserver, two runs each; " +
		"its change phase was not measured), and the ratio of this run's terraform wall time to their middle. Those " +
		"were taken at another time and load: read the ratio as an estimate."
}

// BuildPeer tries to build the newest release of hashicorp/kubernetes that
// the Go module proxy serves, in dir. log receives the go command's output.
func BuildPeer(ctx context.Context, dir string, log io.Writer) Peer {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "list", "-m", "-versions", PeerModule).Output()
	if err != nil {
		return Peer{Reason: fmt.Sprintf("the Go module proxy lists no version of %s (%v)", PeerModule, err)}
	}
	versions := strings.Fields(string(out))[1:]
	if len(versions) == 0 {
		return Peer{Reason: "the Go module proxy lists no version of " + PeerModule}
	}
	p := Peer{Version: versions[len(versions)-1]}
	served := "the Go module proxy serves only " + strings.Join(versions, ", ") + " of " + PeerModule +
		" (none of its recent releases)"
	dl, err := exec.CommandContext(ctx, "go", "mod", "download", "-json", PeerModule+"@"+p.Version).Output()
	var mod struct{ Dir string }
	if err != nil || json.Unmarshal(dl, &mod) != nil || mod.Dir == "" {
		p.Reason = fmt.Sprintf("%s, and %s cannot be downloaded (%v)", served, p.Version, err)
		return p
	}
	// The module's source, without the vendor directory its go.mod
	// points into: the dependencies come from the proxy.
	src := filepath.Join(dir, "peer-src")
	if err := os.RemoveAll(src); err != nil {
		p.Reason = err.Error()
		return p
	}
	if err := os.CopyFS(src, os.DirFS(mod.Dir)); err != nil {
		p.Reason = err.Error()
		return p
	}
	_ = os.RemoveAll(filepath.Join(src, "vendor"))
	gomod := filepath.Join(src, "go.mod")
	if err := os.Chmod(gomod, 0o644); err != nil {
		p.Reason = err.Error()
		return p
	}
	data, err := os.ReadFile(gomod)
	if err != nil {
		p.Reason = err.Error()
		return p
	}
	var keep []string
	for _, l := range strings.Split(string(data), "\n") {
		if !strings.Contains(l, "./vendor/") {
			keep = append(keep, l)
		}
	}
	if err := os.WriteFile(gomod, []byte(strings.Join(keep, "\n")), 0o644); err != nil {
		p.Reason = err.Error()
		return p
	}
	bin := filepath.Join(dir, "bin", "terraform-provider-kubernetes")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	build.Dir = src
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	var msg strings.Builder
	build.Stdout, build.Stderr = io.MultiWriter(&msg, log), io.MultiWriter(&msg, log)
	if err := build.Run(); err != nil {
		p.Reason = fmt.Sprintf("%s, and %s does not build from it: %s", served, p.Version, lastLines(msg.String(), 2))
		return p
	}
	p.Binary = bin
	return p
}

// lastLines is the last n lines of the go command's output, with the URLs
// of the module proxy it quotes left out (the module path and version say
// what it asked for).
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i := range lines {
		lines[i] = proxyURL.ReplaceAllString(strings.TrimSpace(lines[i]), "the module proxy answers")
	}
	return strings.Join(lines, " ")
}

var proxyURL = regexp.MustCompile(`reading https?://\S+:`)
