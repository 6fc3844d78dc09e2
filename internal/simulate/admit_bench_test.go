package simulate

import (
	"context"
	"testing"
)

// BenchmarkAdmit runs the testing guide's chain (a mutating policy that adds a label, a
// validating policy that requires it) and the two webhook configurations of TestAdmitWebhooks,
// answered, for one request per iteration, as the function makes each call (the request
// parsed, the plugins built, the chain run).
func BenchmarkAdmit(b *testing.B) {
	t := &testing.T{}
	objs := objectsOf(t, labelPolicies+"\n---\n"+webhookConfigurations)
	answers := WebhookAnswers{"inject.example.com": {Allowed: true}, "check.example.com": {Allowed: true}}
	req := map[string]any{"object": deployment("apps", 1)}
	b.ReportAllocs()
	for b.Loop() {
		r, err := ParseRequest(req)
		if err != nil {
			b.Fatal(err)
		}
		res, err := Admit(context.Background(), objs, r, answers)
		if err != nil || res.Allowed == nil || !*res.Allowed {
			b.Fatalf("%+v %v", res, err)
		}
	}
}
