package functions

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/simulate"
)

var skippedType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"name":   types.StringType,
	"reason": types.StringType,
	"detail": types.StringType,
}}

var webhooksResultTypes = map[string]attr.Type{
	"called":   types.ListType{ElemType: types.StringType},
	"skipped":  types.ListType{ElemType: skippedType},
	"rejected": types.StringType,
}

type webhooksFunction struct{}

// NewWebhooks is provider::admission::webhooks.
func NewWebhooks() function.Function { return webhooksFunction{} }

func (webhooksFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "webhooks"
}

func (webhooksFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Which webhooks of a configuration the API server calls for a request",
		MarkdownDescription: "Matches the webhooks of a `MutatingWebhookConfiguration` or `ValidatingWebhookConfiguration` against an admission " +
			"request as kube-apiserver does (namespace selector, object selector, rules with the match policy, match conditions), with no cluster. " +
			"`called` are the names of the webhooks the server calls, in order; `skipped` has, for each other webhook, its `name`, the `reason` " +
			"(`namespace_selector`, `object_selector`, `rules`, `match_condition`, `excluded_resource` for the review resources no webhook sees " +
			"(`tokenreviews`, `subjectaccessreviews`, ...), or `admission_configuration` for requests on admission " +
			"configuration objects, which no webhook sees) and a `detail` (the selector, the failed match condition's name). " +
			"`rejected` is the server's message when the request is rejected before any call (a match condition that fails to evaluate " +
			"under `failure_policy = \"Fail\"`). The webhooks' answers are not known offline: only whether they are called.",
		Parameters: []function.Parameter{
			dynamicParam("configuration", "The webhook configuration, mutating or validating. "+objectForm("admission_mutating_webhook_configuration")),
			dynamicParam("request", requestDescription),
		},
		Return: function.ObjectReturn{AttributeTypes: webhooksResultTypes},
	}
}

func (webhooksFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var cfgArg, requestArg types.Dynamic
	if resp.Error = req.Arguments.Get(ctx, &cfgArg, &requestArg); resp.Error != nil {
		return
	}
	unknown := func() { resp.Error = resp.Result.Set(ctx, types.ObjectUnknown(webhooksResultTypes)) }
	t, err := tree(ctx, cfgArg)
	if err != nil {
		resp.Error = argError(0, "configuration", err)
		return
	}
	if _, ok := t.(simulate.Unknown); ok {
		unknown()
		return
	}
	m, v, err := decodeWebhookConfiguration(ctx, cfgArg, t)
	if err != nil {
		if isUnknown(err) {
			unknown()
			return
		}
		resp.Error = argError(0, "configuration", err)
		return
	}
	r, ok := decodeArgs(ctx, resp, nil, requestArg, 1)
	if !ok {
		if resp.Error == nil {
			unknown()
		}
		return
	}
	res, err := simulate.MatchConfiguration(ctx, m, v, r)
	if err != nil {
		resp.Error = function.NewFuncError(err.Error())
		return
	}
	called := make([]attr.Value, 0, len(res.Called))
	for _, c := range res.Called {
		called = append(called, types.StringValue(c))
	}
	skipped := make([]attr.Value, 0, len(res.Skipped))
	for _, s := range res.Skipped {
		skipped = append(skipped, types.ObjectValueMust(skippedType.AttrTypes, map[string]attr.Value{
			"name": types.StringValue(s.Name), "reason": types.StringValue(string(s.Reason)), "detail": types.StringValue(s.Detail),
		}))
	}
	resp.Error = resp.Result.Set(ctx, types.ObjectValueMust(webhooksResultTypes, map[string]attr.Value{
		"called":   types.ListValueMust(types.StringType, called),
		"skipped":  types.ListValueMust(skippedType, skipped),
		"rejected": types.StringValue(res.Rejected),
	}))
}
