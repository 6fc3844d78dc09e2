package provider_test

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/provider"
)

// The schema Terraform gets states how many of each block a resource
// takes, at every depth.
func TestSchemaStatesBlockCounts(t *testing.T) {
	resp, err := provider.NewServer("test")().GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	type counts struct{ min, max int64 }
	want := map[string]counts{
		"metadata": {1, 1}, "metadata.owner_references": {0, 0}, "webhook": {0, 0}, "webhook.client_config": {1, 1},
		"webhook.client_config.service": {0, 1}, "webhook.rule": {0, 0}, "webhook.namespace_selector": {0, 1},
		"webhook.object_selector": {0, 1}, "webhook.match_conditions": {0, 0},
		"webhook.namespace_selector.match_expressions": {0, 0},
	}
	for _, typeName := range []string{"admission_mutating_webhook_configuration", "admission_validating_webhook_configuration"} {
		s := resp.ResourceSchemas[typeName]
		if s == nil {
			t.Fatalf("no schema for %s", typeName)
		}
		got := map[string]counts{}
		var walk func(prefix string, b *tfprotov6.SchemaBlock)
		walk = func(prefix string, b *tfprotov6.SchemaBlock) {
			for _, nb := range b.BlockTypes {
				got[prefix+nb.TypeName] = counts{nb.MinItems, nb.MaxItems}
				walk(prefix+nb.TypeName+".", nb.Block)
			}
		}
		walk("", s.Block)
		for path, w := range want {
			if got[path] != w {
				t.Errorf("%s: block %s allows %v, want %v", typeName, path, got[path], w)
			}
		}
	}
}

// The server answers the calls of list resources (terraform query) and
// states their schemas.
func TestServerServesListResources(t *testing.T) {
	srv := provider.NewServer("test")()
	list, ok := srv.(tfprotov6.ListResourceServer)
	if !ok {
		t.Fatalf("%T does not serve list resources", srv)
	}
	resp, err := srv.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, typeName := range []string{"admission_mutating_webhook_configuration", "admission_validating_webhook_configuration"} {
		if resp.ListResourceSchemas[typeName] == nil {
			t.Errorf("no list resource schema for %s", typeName)
		}
		v, err := list.ValidateListResourceConfig(context.Background(), &tfprotov6.ValidateListResourceConfigRequest{TypeName: typeName})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range v.Diagnostics {
			t.Errorf("%s: ValidateListResourceConfig: %s: %s", typeName, d.Summary, d.Detail)
		}
	}
}
