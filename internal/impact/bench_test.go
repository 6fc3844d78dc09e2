package impact

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// BenchmarkValidating10000 is the impact of a policy that matches 10,000 existing Deployments
// (in the two namespaces of the fake cluster, every hundredth denied), all examined
// (impact_max_objects = 10000): the time one impact adds to a plan, and the process's peak
// resident memory after it (peak-RSS-MiB, the test binary with the 10,000 objects of the fake
// lists included). The lists are the client-go fakes' (objects held in memory and copied on
// each list, as a decoded page is), so what is measured is the evaluation and the bookkeeping,
// not the server. Goal: at most 5 s and 300 MiB.
func BenchmarkValidating10000(b *testing.B) {
	const n = 10000
	objs := make([]runtime.Object, 0, n)
	for i := range n {
		ns := "prod"
		if i%2 == 1 {
			ns = "dev"
		}
		replicas := int64(1)
		if i%100 == 0 {
			replicas = 9
		}
		objs = append(objs, deployment(ns, fmt.Sprintf("d-%d", i), replicas, map[string]any{"app": "a"}))
	}
	c := fakeClusterWith(b, Bounds{MaxObjects: n}, objs...)
	pair := maxReplicasPolicy(3, admissionregistrationv1.Deny)
	pair.Binding.Spec.MatchResources = nil
	b.ResetTimer()
	for b.Loop() {
		res := c.Validating(context.Background(), pair, nil, Options{})
		if res.Matched != n || res.Denied.Count != n/100 {
			b.Fatalf("got %s", res)
		}
	}
	b.StopTimer()
	if mib, ok := peakRSSMiB(); ok {
		b.ReportMetric(mib, "peak-RSS-MiB")
	}
}

// peakRSSMiB is the process's peak resident memory (VmHWM of /proc/self/status, Linux).
func peakRSSMiB() (float64, bool) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024, err == nil
		}
	}
	return 0, false
}
