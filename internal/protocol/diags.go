package protocol

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// diagnostics are the framework's diagnostics as Terraform gets them
// (toproto6.Diagnostics, v1.19.0).
func diagnostics(ctx context.Context, diags diag.Diagnostics) []*tfprotov6.Diagnostic {
	var out []*tfprotov6.Diagnostic
	for _, d := range diags {
		pd := &tfprotov6.Diagnostic{Detail: d.Detail(), Severity: severity(d.Severity()), Summary: d.Summary()}
		if withPath, ok := d.(diag.DiagnosticWithPath); ok {
			var pathDiags diag.Diagnostics
			pd.Attribute, pathDiags = attributePath(ctx, withPath.Path())
			if pathDiags.HasError() {
				out = append(out, diagnostics(ctx, pathDiags)...)
			}
		}
		out = append(out, pd)
	}
	return out
}

func severity(s diag.Severity) tfprotov6.DiagnosticSeverity {
	switch s {
	case diag.SeverityError:
		return tfprotov6.DiagnosticSeverityError
	case diag.SeverityWarning:
		return tfprotov6.DiagnosticSeverityWarning
	}
	return tfprotov6.DiagnosticSeverityInvalid
}

// attributePath is p as Terraform gets it (totftypes.AttributePath).
func attributePath(ctx context.Context, p path.Path) (*tftypes.AttributePath, diag.Diagnostics) {
	var steps []tftypes.AttributePathStep
	for _, step := range p.Steps() {
		s, err := attributePathStep(ctx, step)
		if err != nil {
			return nil, diag.Diagnostics{diag.NewErrorDiagnostic(
				"Unable to Convert Attribute Path",
				"An unexpected error occurred while trying to convert an attribute path. "+
					"This is either an error in terraform-plugin-framework or a custom attribute type used by the provider. "+
					"Please report the following to the provider developers.\n\n"+
					fmt.Sprintf("Attribute Path: %s\n", p.String())+
					fmt.Sprintf("Original Error: %s", err),
			)}
		}
		steps = append(steps, s)
	}
	return tftypes.NewAttributePathWithSteps(steps), nil
}

func attributePathStep(ctx context.Context, step path.PathStep) (tftypes.AttributePathStep, error) {
	switch s := step.(type) {
	case path.PathStepAttributeName:
		return tftypes.AttributeName(string(s)), nil
	case path.PathStepElementKeyInt:
		return tftypes.ElementKeyInt(int64(s)), nil
	case path.PathStepElementKeyString:
		return tftypes.ElementKeyString(string(s)), nil
	case path.PathStepElementKeyValue:
		v, err := s.ToTerraformValue(ctx)
		if err != nil {
			return nil, fmt.Errorf("unable to convert attr.Value (%s) to tftypes.Value: %w", s.Value.String(), err)
		}
		return tftypes.ElementKeyValue(v), nil
	}
	return nil, fmt.Errorf("unknown path.PathStep: %#v", step)
}

// attributePaths are paths as Terraform gets them (totftypes.AttributePaths).
func attributePaths(ctx context.Context, paths path.Paths) ([]*tftypes.AttributePath, diag.Diagnostics) {
	if paths == nil {
		return nil, nil
	}
	out := make([]*tftypes.AttributePath, 0, len(paths))
	for _, p := range paths {
		tp, diags := attributePath(ctx, p)
		if diags.HasError() {
			return out, diags
		}
		out = append(out, tp)
	}
	return out, nil
}

// encode is a value as the framework encodes a state or a plan
// (toproto6.DynamicValue): the null lists of blocks made empty, then
// MessagePack. what names it in the error, as the framework does ("State",
// "state").
func encode(v tftypes.Value, o *object, title, what string) (*tfprotov6.DynamicValue, diag.Diagnostics) {
	v, err := reify(v, o)
	if err == nil {
		var dv tfprotov6.DynamicValue
		if dv, err = tfprotov6.NewDynamicValue(o.typ, v); err == nil {
			return &dv, nil
		}
	}
	var diags diag.Diagnostics
	diags.AddError(
		"Unable to Convert "+title,
		"An unexpected error was encountered when converting the "+what+" to the protocol type. "+
			"This is always an issue in terraform-plugin-framework used to implement the provider and should be reported to the provider developers.\n\n"+
			"Please report this to the provider developer:\n\n"+
			"Unable to create DynamicValue: "+err.Error(),
	)
	return nil, diags
}
