package functions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	policyfamily "github.com/seed-a73d233f/terraform-provider-admission/internal/policy"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/simulate"
)

var stepType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"kind":          types.StringType,
	"name":          types.StringType,
	"binding":       types.StringType,
	"configuration": types.StringType,
	"round":         types.NumberType,
	"mutation":      types.NumberType,
	"outcome":       types.StringType,
	"reason":        types.StringType,
	"detail":        types.StringType,
	"message":       types.StringType,
	"patch":         types.StringType,
}}

var admitResultTypes = map[string]attr.Type{
	"allowed":           types.BoolType,
	"message":           types.StringType,
	"reason":            types.StringType,
	"code":              types.NumberType,
	"warnings":          types.ListType{ElemType: types.StringType},
	"audit_annotations": types.MapType{ElemType: types.StringType},
	"object":            types.DynamicType,
	"object_known":      types.BoolType,
	"steps":             types.ListType{ElemType: stepType},
	"order_dependent":   types.BoolType,
	"outcomes":          types.DynamicType,
	"unanswered":        types.ListType{ElemType: types.StringType},
	"orders":            types.NumberType,
	"notes":             types.ListType{ElemType: types.StringType},
}

type admitFunction struct{}

// NewAdmit is provider::admission::admit.
func NewAdmit() function.Function { return admitFunction{} }

func (admitFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "admit"
}

// webhookAnswersDescription documents the request's webhook_answers.
const webhookAnswersDescription = "The request may also have `webhook_answers`: a map from a webhook's name (or `configuration/webhook`, where two " +
	"configurations have webhooks of the same name) to its answer, an object with, all optional, `allowed` (true by default), " +
	"`message`, `reason` and `code` (of a denial), `patch` (a JSON patch: a list of operations, or its JSON text), `warnings`, " +
	"`audit_annotations`, and `call_error` (the call fails: the webhook's `failure_policy` decides). A webhook called with no answer " +
	"is taken to allow with no patch, is listed in `unanswered`, and what depends on it is unknown (null)."

func (admitFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "What the API server does with a request, for a whole set of admission policies and webhooks",
		MarkdownDescription: "Runs an admission request through kube-apiserver's admission chain, with no cluster: the mutating admission policies " +
			"and the mutating webhooks (reinvoked as their `reinvocation_policy` says), then the validating admission policies and the " +
			"validating webhooks, the first denial ending the chain. `objects` is a list of any of the six kinds; a binding applies to the " +
			"policy its `policy_name` names (when that is not known yet, as a policy's `id` at plan, the one policy of its kind among " +
			"`objects`, or the one of the binding's name, and `notes` say so; with neither, the result is unknown). Webhooks are called in the server's order (configurations by name, then their webhooks as " +
			"listed); their answers cannot be known offline and come from the request's `webhook_answers`. The result has `allowed`, the " +
			"`message`, `reason` and `code` of the denial, every warning (`warnings`) and audit annotation (`audit_annotations`), the final " +
			"`object` (null when denied, or when `object_known` is false: a webhook with no answer may have changed it), and `steps`, what " +
			"each policy (with its binding) and webhook did: its `outcome` (`not_matched` with a `reason`, `mutated` with its `patch` as " +
			"JSON, `unchanged`, `admitted`, `warned`, `denied`, `failed`, `unanswered`), in each `round` (2 when reinvoked). The server " +
			"runs mutating policies in no fixed order: every order is evaluated (`orders` says how many), and when they give different " +
			"results `order_dependent` is true, `outcomes` lists each result with the orders (`mutating_policies`) that give it, and a " +
			"top-level field on which they disagree is null. `notes` say what the server does that the answer leaves out (the defaults of " +
			"built-in kinds, which cannot be applied here). The result is unknown while an input that decides it is not known yet.",
		Parameters: []function.Parameter{
			dynamicParam("objects", "The admission objects: a list of `ValidatingAdmissionPolicy`, `ValidatingAdmissionPolicyBinding`, "+
				"`MutatingAdmissionPolicy`, `MutatingAdmissionPolicyBinding`, `MutatingWebhookConfiguration` and `ValidatingWebhookConfiguration` "+
				"objects, each either a resource of this provider (such as `admission_mutating_admission_policy.x`) or in API form (such as "+
				"`yamldecode(file(\"policy.yaml\"))`)."),
			dynamicParam("request", requestDescription+" "+webhookAnswersDescription),
		},
		Return: function.ObjectReturn{AttributeTypes: admitResultTypes},
	}
}

func (admitFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var objectsArg, requestArg types.Dynamic
	if resp.Error = req.Arguments.Get(ctx, &objectsArg, &requestArg); resp.Error != nil {
		return
	}
	unknown := func() { resp.Error = resp.Result.Set(ctx, types.ObjectUnknown(admitResultTypes)) }
	objs, err := decodeAdmitObjects(ctx, objectsArg)
	if err != nil {
		if isUnknown(err) {
			unknown()
			return
		}
		resp.Error = argError(0, "objects", err)
		return
	}
	t, err := tree(ctx, requestArg)
	if err != nil {
		resp.Error = argError(1, "request", err)
		return
	}
	if _, ok := t.(simulate.Unknown); ok {
		unknown()
		return
	}
	var answers simulate.WebhookAnswers
	if m, ok := t.(map[string]any); ok {
		if answers, err = parseAnswers(m["webhook_answers"]); err != nil {
			if isUnknown(err) {
				unknown()
				return
			}
			resp.Error = argError(1, "request", err)
			return
		}
		rest := make(map[string]any, len(m))
		for k, v := range m {
			if k != "webhook_answers" {
				rest[k] = v
			}
		}
		t = rest
	}
	r, err := simulate.ParseRequest(t)
	if err != nil {
		if isUnknown(err) {
			unknown()
			return
		}
		resp.Error = argError(1, "request", err)
		return
	}
	res, err := simulate.Admit(ctx, objs, r, answers)
	var ie *simulate.InputError
	switch {
	case errors.As(err, &ie):
		resp.Error = argError(1, "request", err)
		return
	case err != nil:
		resp.Error = function.NewFuncError(err.Error())
		return
	}
	resp.Error = resp.Result.Set(ctx, types.ObjectValueMust(admitResultTypes, admitValues(res)))
}

// decodeAdmitObjects decodes the objects argument: a list (or a map, taken in the order of its
// keys) of the six kinds, each in either form.
func decodeAdmitObjects(ctx context.Context, v types.Dynamic) (*simulate.AdmitObjects, error) {
	t, err := tree(ctx, v)
	if err != nil {
		return nil, err
	}
	if _, ok := t.(simulate.Unknown); ok {
		return nil, &simulate.ErrUnknown{Path: ""}
	}
	values, err := elements(ctx, v)
	if err != nil {
		return nil, err
	}
	var list []any
	switch l := t.(type) {
	case nil:
	case []any:
		list = l
	case map[string]any:
		keys := make([]string, 0, len(l))
		for k := range l {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			list = append(list, l[k])
		}
	default:
		return nil, &simulate.InputError{Err: fmt.Errorf("want a list of admission objects")}
	}
	objs := &simulate.AdmitObjects{}
	var unboundMutating, unboundValidating []int
	for i, e := range list {
		if _, ok := e.(simulate.Unknown); ok {
			return nil, &simulate.ErrUnknown{Path: fmt.Sprintf("[%d]", i)}
		}
		if m, ok := e.(map[string]any); ok && policyNameUnknown(m) {
			switch admitKind(m) {
			case "MutatingAdmissionPolicyBinding":
				unboundMutating = append(unboundMutating, len(objs.MutatingBindings))
			case "ValidatingAdmissionPolicyBinding":
				unboundValidating = append(unboundValidating, len(objs.ValidatingBindings))
			}
		}
		if err := decodeAdmitObject(ctx, values[i], e, objs); err != nil {
			var ie *simulate.InputError
			if errors.As(err, &ie) {
				return nil, &simulate.InputError{Path: join(fmt.Sprintf("[%d]", i), ie.Path), Err: ie.Err}
			}
			if isUnknown(err) {
				return nil, err
			}
			return nil, &simulate.InputError{Path: fmt.Sprintf("[%d]", i), Err: err}
		}
	}
	for _, i := range unboundMutating {
		b := objs.MutatingBindings[i]
		name, note, err := boundPolicy("MutatingAdmissionPolicy", b.Name, policyNames(objs.MutatingPolicies))
		if err != nil {
			return nil, err
		}
		b.Spec.PolicyName = name
		objs.Notes = append(objs.Notes, note)
	}
	for _, i := range unboundValidating {
		b := objs.ValidatingBindings[i]
		name, note, err := boundPolicy("ValidatingAdmissionPolicy", b.Name, policyNames(objs.ValidatingPolicies))
		if err != nil {
			return nil, err
		}
		b.Spec.PolicyName = name
		objs.Notes = append(objs.Notes, note)
	}
	return objs, nil
}

// policyNameUnknown: the binding's policy name, in either form, is not known yet (the id of a
// policy created in the same apply, as the binding's advice asks, at plan).
func policyNameUnknown(m map[string]any) bool {
	if spec, ok := m["spec"].(map[string]any); ok {
		_, unknown := spec["policyName"].(simulate.Unknown)
		return unknown
	}
	if spec, ok := m["spec"].([]any); ok && len(spec) > 0 {
		if s, ok := spec[0].(map[string]any); ok {
			_, unknown := s["policy_name"].(simulate.Unknown)
			return unknown
		}
	}
	return false
}

func policyNames[P interface{ GetName() string }](policies []P) []string {
	var out []string
	for _, p := range policies {
		out = append(out, p.GetName())
	}
	return out
}

// boundPolicy is the policy a binding whose policy name is not known yet binds, among the
// objects' policies of its kind: a policy_name that is not known at plan is a policy resource's
// id, the policy created in the same apply, which the objects hold when it is the one of its
// kind among them, or the one of the binding's name. Otherwise which policy it binds is not
// known, and neither is the answer.
func boundPolicy(kind, binding string, policies []string) (string, string, error) {
	var name string
	switch {
	case len(policies) == 1:
		name = policies[0]
	case slices.Contains(policies, binding):
		name = binding
	default:
		return "", "", &simulate.ErrUnknown{Path: "policy_name of " + binding}
	}
	return name, fmt.Sprintf("The policy name of the %sBinding %q is not known yet (a policy's id, at plan): it is taken to be %q, "+
		"the %s among the objects it can bind.", kind, binding, name, kind), nil
}

func join(prefix, path string) string {
	if path == "" {
		return prefix
	}
	if path[0] == '[' {
		return prefix + path
	}
	return prefix + "." + path
}

// elements are the element values of the list, tuple or map v, as dynamic values (the order of
// a map's sorted keys).
func elements(ctx context.Context, v types.Dynamic) ([]types.Dynamic, error) {
	if v.IsNull() || v.IsUnknown() || v.IsUnderlyingValueNull() || v.IsUnderlyingValueUnknown() {
		return nil, nil
	}
	var out []types.Dynamic
	switch u := v.UnderlyingValue().(type) {
	case types.Tuple:
		for _, e := range u.Elements() {
			out = append(out, types.DynamicValue(e))
		}
	case types.List:
		for _, e := range u.Elements() {
			out = append(out, types.DynamicValue(e))
		}
	case types.Set:
		for _, e := range u.Elements() {
			out = append(out, types.DynamicValue(e))
		}
	case types.Object:
		attrs := u.Attributes()
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range attrs {
				if !yield(k) {
					return
				}
			}
		}) {
			out = append(out, types.DynamicValue(attrs[k]))
		}
	case types.Map:
		elems := u.Elements()
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range elems {
				if !yield(k) {
					return
				}
			}
		}) {
			out = append(out, types.DynamicValue(elems[k]))
		}
	case types.Dynamic:
		return elements(ctx, u)
	}
	return out, nil
}

// admitKind is the API kind of an admission object: the API form says it; the resource form is
// told by its attributes (a resource's value has every attribute of its schema, null where
// unset): webhook blocks for a webhook configuration, validation_actions for a validating
// binding, policy_name for a mutating one, mutations or reinvocation_policy for a mutating
// policy, else a validating policy.
func admitKind(t map[string]any) string {
	if isAPIForm(t) {
		if k, ok := t["kind"].(string); ok {
			return k
		}
		return ""
	}
	if _, ok := t["webhook"]; ok {
		return "WebhookConfiguration"
	}
	spec, _ := t["spec"].([]any)
	var s map[string]any
	if len(spec) > 0 {
		s, _ = spec[0].(map[string]any)
	}
	has := func(k string) bool { _, ok := s[k]; return ok }
	switch {
	case has("validation_actions"):
		return "ValidatingAdmissionPolicyBinding"
	case has("policy_name"):
		return "MutatingAdmissionPolicyBinding"
	case has("mutations") || has("reinvocation_policy"):
		return "MutatingAdmissionPolicy"
	}
	return "ValidatingAdmissionPolicy"
}

func decodeAdmitObject(ctx context.Context, v types.Dynamic, t any, objs *simulate.AdmitObjects) error {
	m, ok := t.(map[string]any)
	if !ok {
		return &simulate.InputError{Err: fmt.Errorf("want an admission object, got %T", t)}
	}
	switch kind := admitKind(m); kind {
	case "ValidatingAdmissionPolicy":
		p := &simulate.ValidatingPolicy{}
		if err := decodeObject(ctx, v, t, kind, policyfamily.ValidatingPolicyForm(), p); err != nil {
			return err
		}
		objs.ValidatingPolicies = append(objs.ValidatingPolicies, p)
	case "ValidatingAdmissionPolicyBinding":
		b := &simulate.ValidatingBinding{}
		if err := decodeObject(ctx, v, t, kind, policyfamily.ValidatingBindingForm(), b); err != nil {
			return err
		}
		objs.ValidatingBindings = append(objs.ValidatingBindings, b)
	case "MutatingAdmissionPolicy":
		p := &simulate.MutatingPolicy{}
		if err := decodeObject(ctx, v, t, kind, policyfamily.MutatingPolicyForm(), p); err != nil {
			return err
		}
		objs.MutatingPolicies = append(objs.MutatingPolicies, p)
	case "MutatingAdmissionPolicyBinding":
		b := &simulate.MutatingBinding{}
		if err := decodeObject(ctx, v, t, kind, policyfamily.MutatingBindingForm(), b); err != nil {
			return err
		}
		objs.MutatingBindings = append(objs.MutatingBindings, b)
	case "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration", "WebhookConfiguration":
		mc, vc, err := decodeWebhookConfiguration(ctx, v, t)
		if err != nil {
			return err
		}
		if mc != nil {
			objs.MutatingWebhooks = append(objs.MutatingWebhooks, mc)
		}
		if vc != nil {
			objs.ValidatingWebhooks = append(objs.ValidatingWebhooks, vc)
		}
	default:
		return &simulate.InputError{Path: "kind", Err: fmt.Errorf("want one of the six kinds of admissionregistration.k8s.io/v1, got %q", kind)}
	}
	return nil
}

// answerFields are the fields of a webhook's answer.
var answerFields = []string{"allowed", "message", "reason", "code", "patch", "warnings", "audit_annotations", "call_error"}

// parseAnswers reads the request's webhook_answers.
func parseAnswers(v any) (simulate.WebhookAnswers, error) {
	if v == nil {
		return nil, nil
	}
	if _, ok := v.(simulate.Unknown); ok {
		return nil, &simulate.ErrUnknown{Path: "webhook_answers"}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &simulate.InputError{Path: "webhook_answers", Err: fmt.Errorf("want a map from webhook names to answers")}
	}
	out := simulate.WebhookAnswers{}
	for name, e := range m {
		path := "webhook_answers." + name
		a, ok := e.(map[string]any)
		if !ok {
			return nil, &simulate.InputError{Path: path, Err: fmt.Errorf("want an object with %v", answerFields)}
		}
		answer := simulate.WebhookAnswer{Allowed: true}
		for _, k := range slices.Sorted(maps.Keys(a)) {
			f := a[k]
			if _, ok := f.(simulate.Unknown); ok {
				return nil, &simulate.ErrUnknown{Path: path + "." + k}
			}
			if f == nil {
				continue
			}
			bad := func(want string) error {
				return &simulate.InputError{Path: path + "." + k, Err: fmt.Errorf("want %s", want)}
			}
			switch k {
			case "allowed":
				b, ok := f.(bool)
				if !ok {
					return nil, bad("a bool")
				}
				answer.Allowed = b
			case "message", "reason", "call_error":
				s, ok := f.(string)
				if !ok {
					return nil, bad("a string")
				}
				switch k {
				case "message":
					answer.Message = s
				case "reason":
					answer.Reason = s
				default:
					answer.CallError = s
				}
			case "code":
				n, ok := f.(json.Number)
				c, err := n.Int64()
				if !ok || err != nil || c < 100 || c > 599 {
					return nil, bad("an HTTP status code")
				}
				answer.Code = int32(c)
			case "patch":
				var data []byte
				if s, ok := f.(string); ok {
					data = []byte(s)
				} else if l, ok := f.([]any); ok {
					var err error
					if data, err = json.Marshal(l); err != nil {
						return nil, bad("a JSON patch")
					}
				} else {
					return nil, bad("a JSON patch: a list of operations, or its JSON text")
				}
				var ops []map[string]any
				if err := json.Unmarshal(data, &ops); err != nil {
					return nil, bad("a JSON patch (a list of operations): " + err.Error())
				}
				answer.Patch = data
			case "warnings":
				l, ok := f.([]any)
				if !ok {
					return nil, bad("a list of strings")
				}
				for _, w := range l {
					s, ok := w.(string)
					if !ok {
						return nil, bad("a list of strings")
					}
					answer.Warnings = append(answer.Warnings, s)
				}
			case "audit_annotations":
				am, ok := f.(map[string]any)
				if !ok {
					return nil, bad("a map of strings")
				}
				answer.AuditAnnotations = map[string]string{}
				for ak, av := range am {
					s, ok := av.(string)
					if !ok {
						return nil, bad("a map of strings")
					}
					answer.AuditAnnotations[ak] = s
				}
			default:
				return nil, &simulate.InputError{Path: path + "." + k, Err: fmt.Errorf("unknown field; the fields are %v", answerFields)}
			}
		}
		out[name] = answer
	}
	return out, nil
}

// admitValues are the result's attributes.
func admitValues(res *simulate.AdmitResult) map[string]attr.Value {
	out := outcomeValues(res.Outcome)
	steps := make([]attr.Value, 0, len(res.Steps))
	for _, s := range res.Steps {
		patch := ""
		if s.Patch != nil {
			if data, err := json.Marshal(s.Patch); err == nil {
				patch = string(data)
			}
		}
		steps = append(steps, types.ObjectValueMust(stepType.AttrTypes, map[string]attr.Value{
			"kind": types.StringValue(s.Kind), "name": types.StringValue(s.Name), "binding": types.StringValue(s.Binding),
			"configuration": types.StringValue(s.Configuration), "round": value(int64(s.Round)), "mutation": value(int64(s.Mutation)),
			"outcome": types.StringValue(s.Outcome), "reason": types.StringValue(s.Reason), "detail": types.StringValue(s.Detail),
			"message": types.StringValue(s.Message), "patch": types.StringValue(patch),
		}))
	}
	out["steps"] = types.ListValueMust(stepType, steps)
	out["order_dependent"] = types.BoolValue(res.OrderDependent)
	outcomes := make([]any, 0, len(res.Outcomes))
	for _, o := range res.Outcomes {
		e := map[string]any{"object_known": o.ObjectKnown}
		if o.Allowed != nil {
			e["allowed"] = *o.Allowed
		}
		if o.Message != nil {
			e["message"] = *o.Message
		}
		if o.Object != nil {
			e["object"] = o.Object.Object
		}
		var orders []any
		for _, ord := range o.Orders {
			policies := make([]any, 0, len(ord.MutatingPolicies))
			for _, p := range ord.MutatingPolicies {
				policies = append(policies, p)
			}
			orders = append(orders, map[string]any{"mutating_policies": policies, "first_denial": ord.FirstDenial})
		}
		e["orders"] = orders
		warnings := make([]any, 0, len(o.Warnings))
		for _, w := range o.Warnings {
			warnings = append(warnings, w)
		}
		e["warnings"] = warnings
		outcomes = append(outcomes, e)
	}
	out["outcomes"] = types.DynamicValue(value(outcomes))
	out["unanswered"] = stringList(res.Unanswered)
	out["orders"] = value(int64(res.Orders))
	out["notes"] = stringList(res.Notes)
	return out
}

// outcomeValues are the attributes of an outcome, null where it is not known.
func outcomeValues(o simulate.Outcome) map[string]attr.Value {
	allowed := types.BoolNull()
	if o.Allowed != nil {
		allowed = types.BoolValue(*o.Allowed)
	}
	message := types.StringNull()
	if o.Message != nil {
		message = types.StringValue(*o.Message)
	}
	audit := map[string]attr.Value{}
	for k, v := range o.AuditAnnotations {
		audit[k] = types.StringValue(v)
	}
	object := types.DynamicNull()
	if o.Object != nil {
		object = types.DynamicValue(value(o.Object.Object))
	}
	return map[string]attr.Value{
		"allowed":           allowed,
		"message":           message,
		"reason":            types.StringValue(o.Reason),
		"code":              value(int64(o.Code)),
		"warnings":          stringList(o.Warnings),
		"audit_annotations": types.MapValueMust(types.StringType, audit),
		"object":            object,
		"object_known":      types.BoolValue(o.ObjectKnown),
	}
}

func stringList(l []string) types.List {
	values := make([]attr.Value, 0, len(l))
	for _, s := range l {
		values = append(values, types.StringValue(s))
	}
	return types.ListValueMust(types.StringType, values)
}
