// Package functions holds the provider's functions: validate, mutate and
// webhooks, which say what the API server does with an admission request,
// with no cluster. They read their arguments and shape their results; the
// answers come from internal/simulate. An object argument is read in either
// form (decode.go): the API form as the API's JSON, the resource form through
// the kind's own model and expansion (internal/webhook, internal/policy).
package functions

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/core"
	policyfamily "github.com/seed-a73d233f/terraform-provider-admission/internal/policy"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/simulate"
)

// All is every function of the provider.
func All() []func() function.Function {
	return []func() function.Function{NewValidate, NewMutate, NewWebhooks, NewAdmit}
}

// requestDescription documents the request argument, shared by the functions.
const requestDescription = "The request: an object with, all optional, `operation` (`CREATE`, `UPDATE`, `DELETE` or `CONNECT`; " +
	"by default `CREATE` with only `object`, `UPDATE` with `object` and `old_object`, `DELETE` with only `old_object`), " +
	"`object` and `old_object` (objects in API form, such as `yamldecode(file(\"deployment.yaml\"))`), " +
	"`namespace` (a name; `name`, `labels` and `annotations`; or a `Namespace` in API form: what namespace selectors and `namespaceObject` " +
	"see; the name defaults to the object's namespace, else `default`, and the namespace always has the label `kubernetes.io/metadata.name` " +
	"the server gives it; a cluster-scoped request has none), `user_info` (`username`, `uid`, `groups`, `extra`; " +
	"by default `test-user` in `system:authenticated`), `params` (objects in API form that a binding's `param_ref` may find), " +
	"`authorizer` (a list of rules that allow, each with any of `verb`, `api_group`, `resource`, `subresource`, `namespace`, `name`, " +
	"`path`, `user` and `groups`; a missing field or `*` matches anything; the group `system:masters` is allowed everything, as the " +
	"server's authorizer allows it, and what no rule allows is denied), " +
	"`resource` (`group`, `version`, `resource`, `kind`, `namespaced`: required for kinds not built into Kubernetes, and for a `Scale`, " +
	"which several resources serve, where the name of a built-in resource alone will do, such as `{ resource = \"deployments\" }`; " +
	"a `sub_resource` whose objects' kind only one resource serves, such as a Pod's `status`, finds it), " +
	"`sub_resource`, `name` and `dry_run`. With `match_policy = \"Equivalent\"`, a rule matches the other versions and groups that serve " +
	"the same objects (autoscaling/v1 and v2 HorizontalPodAutoscalers, core and events.k8s.io events), the object converted as the server " +
	"converts it. A field the request does not use is an error."

func dynamicParam(name, desc string) function.DynamicParameter {
	return function.DynamicParameter{Name: name, MarkdownDescription: desc, AllowUnknownValues: true, AllowNullValue: name == "request"}
}

// objectForm documents an object argument; resource is an example
// resource type of this provider.
func objectForm(resource string) string {
	return "Either a resource of this provider (such as `" + resource + ".x`) " +
		"or the object in API form (such as `yamldecode(file(\"manifest.yaml\"))`)."
}

var validateResultTypes = map[string]attr.Type{
	"matched":           types.BoolType,
	"allowed":           types.BoolType,
	"message":           types.StringType,
	"reason":            types.StringType,
	"code":              types.NumberType,
	"warnings":          types.ListType{ElemType: types.StringType},
	"audit_annotations": types.MapType{ElemType: types.StringType},
}

type validateFunction struct{}

// NewValidate is provider::admission::validate.
func NewValidate() function.Function { return validateFunction{} }

func (validateFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "validate"
}

func (validateFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "What the API server does with a request, for a validating admission policy and its binding",
		MarkdownDescription: "Evaluates a `ValidatingAdmissionPolicy` and its binding against an admission request as kube-apiserver does, " +
			"with no cluster: whether the policy applies (`matched`), whether the request is admitted (`allowed`), the server's `message`, " +
			"`reason` and `code` of a denial, the `warnings` of the `Warn` action and the `audit_annotations` of the audit event. " +
			"The binding is applied to the policy whatever its `policy_name`. " +
			"The result is unknown while an input that decides it is not known yet.",
		Parameters: []function.Parameter{
			dynamicParam("policy", "The `ValidatingAdmissionPolicy`. "+objectForm("admission_validating_admission_policy")),
			dynamicParam("binding", "The `ValidatingAdmissionPolicyBinding`. "+objectForm("admission_validating_admission_policy_binding")),
			dynamicParam("request", requestDescription),
		},
		Return: function.ObjectReturn{AttributeTypes: validateResultTypes},
	}
}

func (validateFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var policyArg, bindingArg, requestArg types.Dynamic
	if resp.Error = req.Arguments.Get(ctx, &policyArg, &bindingArg, &requestArg); resp.Error != nil {
		return
	}
	unknown := func() { resp.Error = resp.Result.Set(ctx, types.ObjectUnknown(validateResultTypes)) }
	var policy simulate.ValidatingPolicy
	var binding simulate.ValidatingBinding
	r, ok := decodeArgs(ctx, resp, []decodeArg{
		objectArg(policyArg, "policy", "ValidatingAdmissionPolicy", policyfamily.ValidatingPolicyForm(), &policy),
		objectArg(bindingArg, "binding", "ValidatingAdmissionPolicyBinding", policyfamily.ValidatingBindingForm(), &binding),
	}, requestArg, 2)
	if !ok {
		if resp.Error == nil {
			unknown()
		}
		return
	}
	res, err := simulate.Validate(ctx, &policy, &binding, r)
	if err != nil {
		resp.Error = function.NewFuncError(err.Error())
		return
	}
	warnings := make([]attr.Value, 0, len(res.Warnings))
	for _, w := range res.Warnings {
		warnings = append(warnings, types.StringValue(w))
	}
	audit := map[string]attr.Value{}
	for k, v := range res.AuditAnnotations {
		audit[k] = types.StringValue(v)
	}
	resp.Error = resp.Result.Set(ctx, types.ObjectValueMust(validateResultTypes, map[string]attr.Value{
		"matched":           types.BoolValue(res.Matched),
		"allowed":           types.BoolValue(res.Allowed),
		"message":           types.StringValue(res.Message),
		"reason":            types.StringValue(res.Reason),
		"code":              value(int64(res.Code)),
		"warnings":          types.ListValueMust(types.StringType, warnings),
		"audit_annotations": types.MapValueMust(types.StringType, audit),
	}))
}

// decodeArg is an object argument: its value, its name, and how to decode it (decodeObject).
type decodeArg struct {
	v      types.Dynamic
	name   string
	decode func(ctx context.Context, v types.Dynamic, t any) error
}

// objectArg is the argument v, named name, of API kind kind and resource form form, decoded into out.
func objectArg[T any](v types.Dynamic, name, kind string, form core.FormReader[T], out *T) decodeArg {
	return decodeArg{v, name, func(ctx context.Context, v types.Dynamic, t any) error {
		return decodeObject(ctx, v, t, kind, form, out)
	}}
}

// decodeArgs decodes the object arguments and the request (argument
// requestIndex). It returns false when the function must stop: with
// resp.Error set for an error in an input, without it when an input that
// decides the answer is not known yet.
func decodeArgs(ctx context.Context, resp *function.RunResponse, args []decodeArg, requestArg types.Dynamic, requestIndex int64) (*simulate.Request, bool) {
	for i, a := range args {
		t, err := tree(ctx, a.v)
		if err != nil {
			resp.Error = argError(int64(i), a.name, err)
			return nil, false
		}
		if _, ok := t.(simulate.Unknown); ok {
			return nil, false
		}
		if err := a.decode(ctx, a.v, t); err != nil {
			if isUnknown(err) {
				return nil, false
			}
			resp.Error = argError(int64(i), a.name, err)
			return nil, false
		}
	}
	t, err := tree(ctx, requestArg)
	if err != nil {
		resp.Error = argError(requestIndex, "request", err)
		return nil, false
	}
	if _, ok := t.(simulate.Unknown); ok {
		return nil, false
	}
	r, err := simulate.ParseRequest(t)
	if err != nil {
		if isUnknown(err) {
			return nil, false
		}
		resp.Error = argError(requestIndex, "request", err)
		return nil, false
	}
	return r, true
}
