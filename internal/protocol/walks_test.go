package protocol

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The walks change copies: tftypes.Value.As hands out a value's own maps
// and lists, which the request's other values may share (a create's
// proposed new state is its configuration), so a walk that wrote into
// them would change the configuration the resource then gets.
func TestWalksLeaveTheirInputsAsTheyAre(t *testing.T) {
	ctx := context.Background()
	sch := schema.Schema{
		Attributes: map[string]schema.Attribute{"id": schema.StringAttribute{Computed: true}},
		Blocks: map[string]schema.Block{
			"item": schema.ListNestedBlock{NestedObject: schema.NestedBlockObject{
				Attributes: map[string]schema.Attribute{
					"mode": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("on")},
					"uid":  schema.StringAttribute{Computed: true},
				},
				Blocks: map[string]schema.Block{
					"inner": schema.ListNestedBlock{NestedObject: schema.NestedBlockObject{
						Attributes: map[string]schema.Attribute{"x": schema.StringAttribute{Optional: true}},
					}},
				},
			}},
		},
	}
	typ, ok := sch.Type().TerraformType(ctx).(tftypes.Object)
	if !ok {
		t.Fatal("not an object type")
	}
	tree, err := treeOf(ctx, sch.Attributes, sch.Blocks, typ)
	if err != nil {
		t.Fatal(err)
	}
	itemType, ok := typ.AttributeTypes["item"].(tftypes.List)
	if !ok {
		t.Fatal("item is not a list")
	}
	objType, ok := itemType.ElementType.(tftypes.Object)
	if !ok {
		t.Fatal("item is not a list of objects")
	}
	innerType := objType.AttributeTypes["inner"]
	v := tftypes.NewValue(typ, map[string]tftypes.Value{
		"id": tftypes.NewValue(tftypes.String, nil),
		"item": tftypes.NewValue(itemType, []tftypes.Value{tftypes.NewValue(objType, map[string]tftypes.Value{
			"mode":  tftypes.NewValue(tftypes.String, nil),
			"uid":   tftypes.NewValue(tftypes.String, nil),
			"inner": tftypes.NewValue(innerType, []tftypes.Value{}),
		})}),
	})
	before := v.Copy()
	nullified, _, err := nullifyObject(v, tree)
	if err != nil {
		t.Fatal(err)
	}
	planned, changed, err := (&planner{ctx: ctx, mark: true}).object(nullified, cursor{v: v}, tree, func() path.Path { return path.Empty() })
	if err != nil || !changed {
		t.Fatalf("planned %v (%v), changed %v", planned, err, changed)
	}
	if _, err := reify(planned, tree); err != nil {
		t.Fatal(err)
	}
	if !v.Equal(before) {
		t.Errorf("the walks changed their input: %v, was %v", v, before)
	}
	if nullified.Equal(v) || planned.Equal(nullified) {
		t.Errorf("the walks changed nothing: %v, %v", nullified, planned)
	}
}
