package protocol_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/protocol"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/provider"
)

func TestParseMode(t *testing.T) {
	for value, want := range map[string]protocol.Mode{"": protocol.Fast, "fast": protocol.Fast, "framework": protocol.FrameworkOnly} {
		got, err := protocol.ParseMode(value)
		if err != nil || got != want {
			t.Errorf("ParseMode(%q) = %v, %v; want %v", value, got, err, want)
		}
	}
	for _, value := range []string{"Framework", "shim", "off", "1"} {
		_, err := protocol.ParseMode(value)
		if err == nil || !strings.Contains(err.Error(), protocol.ModeVariable) {
			t.Errorf("ParseMode(%q): error %v, want one naming %s", value, err, protocol.ModeVariable)
		}
	}
}

// The framework-only server is not this package's Server: no call but the
// schema's is answered here. Its schema is the same as the fast server's,
// block counts included, so that Terraform validates the same
// configurations either way.
func TestFrameworkOnlyServesWithTheFramework(t *testing.T) {
	t.Setenv(protocol.ModeVariable, "framework")
	fw := provider.NewServer("test")()
	if _, ok := fw.(*protocol.Server); ok {
		t.Fatalf("%s=framework: the server is %T, which answers calls before the framework", protocol.ModeVariable, fw)
	}
	if _, ok := fw.(*protocol.FrameworkServer); !ok {
		t.Fatalf("%s=framework: the server is %T, want *protocol.FrameworkServer", protocol.ModeVariable, fw)
	}
	if _, ok := fw.(tfprotov6.ListResourceServer); !ok {
		t.Errorf("%T does not serve list resources", fw)
	}
	fast := provider.NewServerMode("test", protocol.Fast)()
	if _, ok := fast.(*protocol.Server); !ok {
		t.Fatalf("fast mode: the server is %T, want *protocol.Server", fast)
	}
	ctx := context.Background()
	want, err := fast.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := fw.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.ResourceSchemas) < 6 {
		t.Fatalf("%d resource schemas, want the six kinds", len(got.ResourceSchemas))
	}
	for typeName, w := range want.ResourceSchemas {
		if !reflect.DeepEqual(got.ResourceSchemas[typeName], w) {
			t.Errorf("%s: the framework-only schema differs from the fast one", typeName)
		}
	}
	// And the counts are there: metadata is one block, required.
	meta := blockType(got.ResourceSchemas["admission_validating_admission_policy"].Block, "metadata")
	if meta == nil || meta.MinItems != 1 || meta.MaxItems != 1 {
		t.Errorf("framework-only schema: metadata block %+v, want min 1 max 1", meta)
	}
}

func blockType(b *tfprotov6.SchemaBlock, name string) *tfprotov6.SchemaNestedBlock {
	for _, nb := range b.BlockTypes {
		if nb.TypeName == name {
			return nb
		}
	}
	return nil
}
