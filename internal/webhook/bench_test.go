package webhook

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	admissionregistrationv1ac "k8s.io/client-go/applyconfigurations/admissionregistration/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/core"
)

// Benchmarks of the conversion between the model and the API object on the
// largest object a user is likely to write: 20 webhooks, each with 64 match
// conditions (the API's maximum), 3 rules and both selectors. Every
// Read flattens, every plan, Create and Update expands; the apply
// configuration is built for each dry run and apply. They run without a
// cluster: `go test -run '^$' -bench . -benchmem ./internal/webhook`.
// The validation of the same object is BenchmarkValidateLargest in
// internal/validation.

const (
	largeWebhooks   = 20
	largeConditions = 64
)

func largeObject() *mwc {
	template := fullStoredObject().Webhooks[0] // rules, selectors, service, caBundle
	obj := &mwc{ObjectMeta: storedMeta("large.example.com")}
	obj.Labels = map[string]string{"app.kubernetes.io/name": "large", "team": "platform"}
	for i := range largeWebhooks {
		h := *template.DeepCopy()
		h.Name = fmt.Sprintf("hook-%02d.large.example.com", i)
		h.NamespaceSelector.MatchExpressions = append(h.NamespaceSelector.MatchExpressions, metav1.LabelSelectorRequirement{
			Key: "team", Operator: metav1.LabelSelectorOpIn, Values: []string{fmt.Sprintf("team-%d", i), "shared"},
		})
		h.MatchConditions = nil
		for j := range largeConditions {
			h.MatchConditions = append(h.MatchConditions, admissionregistrationv1.MatchCondition{
				Name:       fmt.Sprintf("condition-%02d", j),
				Expression: fmt.Sprintf(`!(request.userInfo.username in ["system:serviceaccount:team-%d:deployer-%d", "system:admin"])`, i, j),
			})
		}
		obj.Webhooks = append(obj.Webhooks, h)
	}
	return obj
}

// BenchmarkFlatten turns the object read from the server into the model:
// "import" without a prior model (import, data sources), "refresh" with the
// state as prior model (Read, and the state saved after Create/Update).
func BenchmarkFlatten(b *testing.B) {
	obj := largeObject()
	state := mutating.FlattenObject(obj, nil)
	b.Run("import", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			mutating.FlattenObject(obj, nil)
		}
	})
	b.Run("refresh", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			mutating.FlattenObject(obj, &state)
		}
	})
}

// BenchmarkExpand turns the model (plan or configuration) into the object:
// ValidateConfig, ModifyPlan, Create and Update each expand once.
func BenchmarkExpand(b *testing.B) {
	model := mutating.FlattenObject(largeObject(), nil)
	if exp := expand(model); len(exp.Object.Webhooks) != largeWebhooks || len(exp.Unknown) != 0 {
		b.Fatalf("expand: %d webhooks, %d unknown", len(exp.Object.Webhooks), len(exp.Unknown))
	}
	b.ReportAllocs()
	for b.Loop() {
		expand(model)
	}
}

// BenchmarkApplyConfiguration builds the server-side apply request body's
// object from the expanded object (core.ApplyConfiguration, a JSON round
// trip), once per dry run and once per write.
func BenchmarkApplyConfiguration(b *testing.B) {
	obj := expand(mutating.FlattenObject(largeObject(), nil)).Object
	b.ReportAllocs()
	for b.Loop() {
		if _, err := core.ApplyConfiguration[admissionregistrationv1ac.MutatingWebhookConfigurationApplyConfiguration](obj, "MutatingWebhookConfiguration"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecode reads the state of the largest object into its model, and
// writes it back, with the provider's codec (core's codec.go, what every
// resource, data source and list resource of every kind uses) and, for
// comparison, with the framework's State.Get and State.Set: every plan,
// refresh and apply of every object does both several times.
func BenchmarkDecode(b *testing.B) {
	ctx := context.Background()
	r := resourceOf(mutating)
	m := mutating.FlattenObject(largeObject(), nil)
	sch := schemaOf(b, mutating).Schema
	state := tfsdk.State{Schema: sch}
	if diags := state.Set(ctx, resourceState[mutatingHook]{objectModel: m, Timeouts: nullTimeouts(b)}); diags.HasError() {
		b.Fatal(diags)
	}
	b.Run("codec/read", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, diags := r.Decode(ctx, state.Raw); diags.HasError() {
				b.Fatal(diags)
			}
		}
	})
	b.Run("framework/read", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var got resourceState[mutatingHook]
			if diags := state.Get(ctx, &got); diags.HasError() {
				b.Fatal(diags)
			}
		}
	})
	t := nullTimeouts(b)
	b.Run("codec/write", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, diags := r.Encode(ctx, &m, t); diags.HasError() {
				b.Fatal(diags)
			}
		}
	})
	b.Run("framework/write", func(b *testing.B) {
		b.ReportAllocs()
		s := resourceState[mutatingHook]{objectModel: m, Timeouts: t}
		for b.Loop() {
			out := tfsdk.State{Schema: sch}
			if diags := out.Set(ctx, s); diags.HasError() {
				b.Fatal(diags)
			}
		}
	})
}
