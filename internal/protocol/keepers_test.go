package protocol_test

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/defaults"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/protocol"
)

// someModifier is a plan modifier the fast plans know nothing of.
type someModifier struct{}

func (someModifier) Description(context.Context) string         { return "" }
func (someModifier) MarkdownDescription(context.Context) string { return "" }
func (someModifier) PlanModifyString(context.Context, planmodifier.StringRequest, *planmodifier.StringResponse) {
}

// markedModifier says it keeps an unchanged value.
type markedModifier struct{ someModifier }

func (markedModifier) KeepsUnchangedValue() {}

var _ protocol.KeepsUnchanged = markedModifier{}

// someDefault is a default the fast plans know nothing of.
type someDefault struct{}

func (someDefault) Description(context.Context) string         { return "" }
func (someDefault) MarkdownDescription(context.Context) string { return "" }
func (someDefault) DefaultString(context.Context, defaults.StringRequest, *defaults.StringResponse) {
}

// The plan modifiers known to keep an unchanged value are the framework's,
// known by the values their constructors return (whatever the function of a
// RequiresReplaceIf), and the provider's own that say so; no other.
func TestKeepUnchangedKnowsModifiersByValue(t *testing.T) {
	replaceIf := func(context.Context, planmodifier.StringRequest, *stringplanmodifier.RequiresReplaceIfFuncResponse) {}
	for name, m := range map[string]any{
		"stringplanmodifier.UseStateForUnknown":          stringplanmodifier.UseStateForUnknown(),
		"stringplanmodifier.UseNonNullStateForUnknown":   stringplanmodifier.UseNonNullStateForUnknown(),
		"stringplanmodifier.RequiresReplace":             stringplanmodifier.RequiresReplace(),
		"stringplanmodifier.RequiresReplaceIf":           stringplanmodifier.RequiresReplaceIf(replaceIf, "", ""),
		"stringplanmodifier.RequiresReplaceIfConfigured": stringplanmodifier.RequiresReplaceIfConfigured(),
		"int64planmodifier.UseStateForUnknown":           int64planmodifier.UseStateForUnknown(),
		"listplanmodifier.RequiresReplace":               listplanmodifier.RequiresReplace(),
		"objectplanmodifier.UseNonNullStateForUnknown":   objectplanmodifier.UseNonNullStateForUnknown(),
		"a modifier marked KeepsUnchanged":               markedModifier{},
	} {
		if !protocol.KeepUnchanged(m) {
			t.Errorf("%s: not known to keep an unchanged value", name)
		}
	}
	for name, m := range map[string]any{
		"an unmarked modifier": someModifier{},
		"nil":                  nil,
	} {
		if protocol.KeepUnchanged(m) {
			t.Errorf("%s: taken to keep an unchanged value", name)
		}
	}
}

func TestIsStaticKnowsDefaultsByValue(t *testing.T) {
	for name, d := range map[string]any{
		"stringdefault.StaticString": stringdefault.StaticString("x"),
		"int64default.StaticInt64":   int64default.StaticInt64(3),
		"booldefault.StaticBool":     booldefault.StaticBool(true),
	} {
		if !protocol.IsStatic(d) {
			t.Errorf("%s: not known to be static", name)
		}
	}
	if protocol.IsStatic(someDefault{}) || protocol.IsStatic(nil) {
		t.Error("a default of the provider's own taken as static")
	}
}

// Every resource type's plans that change nothing are answered here: each
// plan modifier of the six schemas (webhook's ca_bundle modifier included)
// is known to keep an unchanged value.
func TestEveryKindsModifiersAreKnown(t *testing.T) {
	srv := newServer(t)
	ctx := context.Background()
	for typeName := range resourceSchemas(t) {
		if why := srv.UnchangedWhy(ctx, typeName); why != "" {
			t.Errorf("%s: plans that change nothing are left to the framework: %s", typeName, why)
		}
	}
}
