package functions

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	policyfamily "github.com/seed-a73d233f/terraform-provider-admission/internal/policy"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/simulate"
)

var mutateResultTypes = map[string]attr.Type{
	"matched": types.BoolType,
	"allowed": types.BoolType,
	"message": types.StringType,
	"reason":  types.StringType,
	"code":    types.NumberType,
	"object":  types.DynamicType,
}

type mutateFunction struct{}

// NewMutate is provider::admission::mutate.
func NewMutate() function.Function { return mutateFunction{} }

func (mutateFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "mutate"
}

func (mutateFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "What the API server makes of a request's object, for a mutating admission policy and its binding",
		MarkdownDescription: "Applies a `MutatingAdmissionPolicy` and its binding to an admission request as kube-apiserver does, with no cluster: " +
			"whether the policy applies (`matched`), and the `object` after its mutations (apply configurations merged as server-side apply " +
			"merges them, with the schemas of the built-in kinds; JSON patches), reinvoked once when `reinvocation_policy` is `IfNeeded` and " +
			"the object changed. A mutation that fails under `failure_policy = \"Fail\"` rejects the request: `allowed` is then false, " +
			"with the server's `message`, `reason` and `code`. The server's own defaulting of built-in kinds is not applied. " +
			"The binding is applied to the policy whatever its `policy_name`. The result is unknown while an input that decides it is not known yet.",
		Parameters: []function.Parameter{
			dynamicParam("policy", "The `MutatingAdmissionPolicy`. "+objectForm("admission_mutating_admission_policy")),
			dynamicParam("binding", "The `MutatingAdmissionPolicyBinding`. "+objectForm("admission_mutating_admission_policy_binding")),
			dynamicParam("request", requestDescription),
		},
		Return: function.ObjectReturn{AttributeTypes: mutateResultTypes},
	}
}

func (mutateFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var policyArg, bindingArg, requestArg types.Dynamic
	if resp.Error = req.Arguments.Get(ctx, &policyArg, &bindingArg, &requestArg); resp.Error != nil {
		return
	}
	var policy simulate.MutatingPolicy
	var binding simulate.MutatingBinding
	r, ok := decodeArgs(ctx, resp, []decodeArg{
		objectArg(policyArg, "policy", "MutatingAdmissionPolicy", policyfamily.MutatingPolicyForm(), &policy),
		objectArg(bindingArg, "binding", "MutatingAdmissionPolicyBinding", policyfamily.MutatingBindingForm(), &binding),
	}, requestArg, 2)
	if !ok {
		if resp.Error == nil {
			resp.Error = resp.Result.Set(ctx, types.ObjectUnknown(mutateResultTypes))
		}
		return
	}
	res, err := simulate.Mutate(ctx, &policy, &binding, r)
	if err != nil {
		resp.Error = function.NewFuncError(err.Error())
		return
	}
	object := types.DynamicNull()
	if res.Object != nil {
		object = types.DynamicValue(value(res.Object.Object))
	}
	resp.Error = resp.Result.Set(ctx, types.ObjectValueMust(mutateResultTypes, map[string]attr.Value{
		"matched": types.BoolValue(res.Matched),
		"allowed": types.BoolValue(res.Allowed),
		"message": types.StringValue(res.Message),
		"reason":  types.StringValue(res.Reason),
		"code":    value(int64(res.Code)),
		"object":  object,
	}))
}
