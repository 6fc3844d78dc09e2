package validation

import (
	"fmt"
	"regexp"
	"strconv"
)

// Version is the minor release of Kubernetes that kube-apiserver is, 1.N: the rules of
// validation and the CEL environments change from one to the next, never within one. The zero
// Version is unknown.
type Version struct{ minor int }

// Minor returns the version 1.minor.
func Minor(minor int) Version { return Version{minor} }

// The versions whose rules this package knows. Supported servers are OldestSupported to
// NewestSupported: for those, a check that depends on the version gives the server's verdict.
// Assumed is the version checks are made for when the server's is not known, the release whose
// code the package follows (k8s.io/kubernetes v1.37.2, k8s.io/apiserver v0.37.2).
var (
	OldestSupported = Minor(31)
	NewestSupported = Minor(38)
	Assumed         = Minor(37)
)

// Known reports whether the version is known.
func (v Version) Known() bool { return v.minor > 0 }

// Minor is N in 1.N, 0 when unknown.
func (v Version) Minor() int { return v.minor }

// Supported reports whether v is one of the supported versions.
func (v Version) Supported() bool {
	return v.minor >= OldestSupported.minor && v.minor <= NewestSupported.minor
}

// AtLeast reports whether v is 1.minor or later.
func (v Version) AtLeast(minor int) bool { return v.minor >= minor }

func (v Version) String() string {
	if !v.Known() {
		return "unknown"
	}
	return "1." + strconv.Itoa(v.minor)
}

// supportedVersions are OldestSupported to NewestSupported, in order.
func supportedVersions() []Version {
	var vs []Version
	for m := OldestSupported.minor; m <= NewestSupported.minor; m++ {
		vs = append(vs, Minor(m))
	}
	return vs
}

// versionPattern reads what /version's gitVersion and people write: "1.33", "v1.33.2",
// "1.33.0-eks-4096", "v1.33.1+k3s1", and GKE's major/minor "1", "33+".
var versionPattern = regexp.MustCompile(`^v?(\d+)\.(\d+)\+?(\.\d+)?([-+].*)?$`)

// ParseVersion reads a Kubernetes version: "1.33", or a full one as kube-apiserver reports
// it ("v1.33.2", "v1.33.1-eks-4096"), of which only the minor release counts.
func ParseVersion(s string) (Version, error) {
	m := versionPattern.FindStringSubmatch(s)
	if m == nil || m[1] != "1" {
		return Version{}, fmt.Errorf("%q is not a Kubernetes version such as 1.33 or v1.33.2", s)
	}
	minor, err := strconv.Atoi(m[2])
	if err != nil || minor == 0 {
		return Version{}, fmt.Errorf("%q is not a Kubernetes version such as 1.33 or v1.33.2", s)
	}
	return Minor(minor), nil
}
