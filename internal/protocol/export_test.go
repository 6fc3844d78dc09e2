package protocol

import (
	"context"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// The fast paths alone, nil where they leave the call to the framework.

func (s *Server) PlanUnchangedFast(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) *tfprotov6.PlanResourceChangeResponse {
	return s.planUnchanged(ctx, req)
}

func (s *Server) PlanChangeFast(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) *tfprotov6.PlanResourceChangeResponse {
	return s.planChange(ctx, req)
}

func (s *Server) ApplyFast(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) *tfprotov6.ApplyResourceChangeResponse {
	return s.apply(ctx, req)
}

func (s *Server) ValidateFast(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) *tfprotov6.ValidateResourceConfigResponse {
	return s.validate(ctx, req)
}

func (s *Server) UpgradeFast(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) *tfprotov6.UpgradeResourceStateResponse {
	return s.upgrade(ctx, req)
}

func (s *Server) ReadFast(ctx context.Context, req *tfprotov6.ReadResourceRequest) *tfprotov6.ReadResourceResponse {
	return s.read(ctx, req)
}

// NotAnswered is why the fast plans of a create or an update and the fast
// applies leave a resource type to the framework, "" where they answer.
func (s *Server) NotAnswered(ctx context.Context, typeName string) string {
	rt := s.resourceTypes(ctx)[typeName]
	switch {
	case rt == nil:
		return "no such type"
	case rt.tree == nil:
		return rt.treeErr.Error()
	case rt.tree.noValidate != nil:
		return "validation: " + rt.tree.noValidate.Error()
	}
	return ""
}

var (
	HasDefault   = hasDefault
	DefaultValue = defaultValue
)

var Equal = equal

var (
	KeepUnchanged = keepUnchanged
	IsStatic      = isStatic
)

// UnchangedWhy is why the plans that change nothing leave a resource type
// to the framework, "" where they answer.
func (s *Server) UnchangedWhy(ctx context.Context, typeName string) string {
	rt := s.resourceTypes(ctx)[typeName]
	switch {
	case rt == nil:
		return "no such type"
	case rt.unchanged == nil:
		return rt.unchangedWhy
	}
	return ""
}

// Answered is how many calls of each kind the server answered without the
// framework's server since it started: the tests that compare it with the
// framework check that it answered at all.
type Answered struct {
	Validations, Reads, Plans, Applies, Upgrades int64
}

func (s *Server) Answered() Answered {
	return Answered{
		Validations: s.answered.validations.Load(), Reads: s.answered.reads.Load(), Plans: s.answered.plans.Load(),
		Applies: s.answered.applies.Load(), Upgrades: s.answered.upgrades.Load(),
	}
}
