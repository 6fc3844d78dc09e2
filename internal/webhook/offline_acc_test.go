package webhook_test

import (
	"fmt"
	"net"
	"regexp"
	"strings"
	"testing"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
)

// A plan for a new object with a cluster that refuses connections goes on
// without the dry run, and says so on the resource, with the reason.
func TestAccPlanWithoutTheClusterSaysSo(t *testing.T) {
	t.Parallel() // plans only, against an address where nothing listens
	cp := acctest.Cluster(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	_ = l.Close() // nothing listens there now: connections are refused

	cfg := fmt.Sprintf("provider \"admission\" {\n  host = \"https://%s\"\n  token = %q\n  cluster_ca_certificate = %q\n}\n", dead, cp.AdminToken, string(cp.CAPEM))
	resourceBlock := minimalConfig(t, randomName())
	cfg += resourceBlock[strings.Index(resourceBlock, "\nresource "):]
	module := writeModule(t, cfg)
	out, code := runStatus(t, module, devOverrides(t, buildProvider(t, repositoryRoot(t))), terraformCLI(t), "plan", "-input=false", "-no-color")
	if code != 0 {
		t.Fatalf("plan failed (exit %d):\n%s", code, out)
	}
	for _, want := range []string{"Warning: Plan checked without the cluster", "was checked offline only", "connection refused", "1 to add"} {
		if !regexp.MustCompile(words(want)).MatchString(out) {
			t.Errorf("the plan does not say %q:\n%s", want, out)
		}
	}
}
