package acctest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest/faultproxy"
)

// FaultProxy starts a fault proxy in front of the control plane, for tests
// that count requests or inject faults.
func FaultProxy(t *testing.T) *faultproxy.Proxy {
	t.Helper()
	cp := Cluster(t)
	return faultproxy.Start(t, faultproxy.Options{
		Upstream:      cp.Host,
		UpstreamCAPEM: cp.CAPEM,
		ClientCertPEM: cp.AdminCertPEM,
		ClientKeyPEM:  cp.AdminKeyPEM,
	})
}

// ProxiedProvider is a provider block that reaches the API server through
// the proxy with the admin token, trusting the proxy's CA, with extra
// settings appended.
func ProxiedProvider(t *testing.T, p *faultproxy.Proxy, extra ...string) string {
	t.Helper()
	return fmt.Sprintf(`provider "admission" {
  host                   = %q
  token                  = %q
  cluster_ca_certificate = %q
  %s
}
`, p.URL, Cluster(t).AdminToken, p.CAPEM, strings.Join(extra, "\n  "))
}
