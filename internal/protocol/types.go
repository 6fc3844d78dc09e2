package protocol

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// resourceType is what the fast paths know of a resource type, built once
// from the resource's own Metadata, Schema and IdentitySchema, as the
// framework builds its own.
type resourceType struct {
	newResource func() resource.Resource
	schema      schema.Schema

	// identity is the identity schema, nil without one; idType its
	// value's type.
	identity *identityschema.Schema
	idType   tftypes.Type

	// mutableIdentity is ResourceBehavior.MutableIdentity: the framework
	// then lets a plan or an apply change the identity.
	mutableIdentity bool

	// tree is the schema's tree, nil when the fast plans of a create or
	// an update and the fast applies do not answer for it (treeErr says
	// why).
	tree    *object
	treeErr error

	// unchanged is what the plans that change nothing need, nil when
	// they are left to the framework (unchangedWhy says why).
	unchanged    *planShape
	unchangedWhy string

	// privateKeys are the keys of private state the resource writes
	// (PrivateKeys), which the fast paths read back.
	privateKeys []string
}

// PrivateKeys is a resource that names the keys of private state it sets
// (resource.CreateResponse.Private and the like), which the fast paths read
// back: the framework's private state has no way to list them. A resource
// that sets other keys has them reported as an error (keysOf).
type PrivateKeys interface {
	PrivateKeys() []string
}

func (s *Server) resourceTypes(ctx context.Context) map[string]*resourceType {
	s.typesOnce.Do(func() {
		s.types = map[string]*resourceType{}
		var meta provider.MetadataResponse
		s.provider.Metadata(ctx, provider.MetadataRequest{}, &meta)
		// A provider with a provider_meta schema passes its values to
		// every call: not done here.
		_, metaSchema := s.provider.(provider.ProviderWithMetaSchema)
		for _, newResource := range s.provider.Resources(ctx) {
			r := newResource()
			var md resource.MetadataResponse
			r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: meta.TypeName}, &md)
			var sr resource.SchemaResponse
			r.Schema(ctx, resource.SchemaRequest{}, &sr)
			if sr.Diagnostics.HasError() {
				continue
			}
			rt := &resourceType{newResource: newResource, schema: sr.Schema, mutableIdentity: md.ResourceBehavior.MutableIdentity}
			if ri, ok := r.(resource.ResourceWithIdentity); ok {
				var ir resource.IdentitySchemaResponse
				ri.IdentitySchema(ctx, resource.IdentitySchemaRequest{}, &ir)
				if ir.Diagnostics.HasError() {
					continue
				}
				rt.identity = &ir.IdentitySchema
				rt.idType = ir.IdentitySchema.Type().TerraformType(ctx)
			}
			if pk, ok := r.(PrivateKeys); ok {
				rt.privateKeys = pk.PrivateKeys()
			}
			typ, isObject := sr.Schema.Type().TerraformType(ctx).(tftypes.Object)
			switch {
			case !isObject:
				rt.treeErr = errNotAnswered
			case metaSchema:
				rt.treeErr = errNotAnswered
			case md.ResourceBehavior.ProviderDeferred.EnablePlanModification:
				rt.treeErr = errNotAnswered
			default:
				rt.tree, rt.treeErr = treeOf(ctx, sr.Schema.Attributes, sr.Schema.Blocks, typ)
			}
			if !metaSchema {
				rt.unchanged, rt.unchangedWhy = shapeOf(sr.Schema.Attributes, sr.Schema.Blocks)
			}
			s.types[md.TypeName] = rt
		}
	})
	return s.types
}
