package functions

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dsschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/core"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/impact"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/live"
	policyfamily "github.com/seed-a73d233f/terraform-provider-admission/internal/policy"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/simulate"
)

// The impact data source gives, for a validating policy and binding taken as the functions take
// them (either form), the verdict on the next write of each object the cluster runs that they
// match (internal/impact, the same evaluation as the plan's impact lines), for check blocks
// and reports.

// DataSources are the provider's data sources that take their objects as the functions do.
func DataSources() []func() datasource.DataSource {
	return []func() datasource.DataSource{func() datasource.DataSource { return &impactDataSource{} }}
}

type impactDataSource struct{ client core.ClientHolder }

type impactModel struct {
	Policy     types.Dynamic `tfsdk:"policy"`
	Binding    types.Dynamic `tfsdk:"binding"`
	Examined   types.Int64   `tfsdk:"examined"`
	Matched    types.Int64   `tfsdk:"matched"`
	Denied     types.Int64   `tfsdk:"denied"`
	Warned     types.Int64   `tfsdk:"warned"`
	Audited    types.Int64   `tfsdk:"audited"`
	CannotTell types.Int64   `tfsdk:"cannot_tell"`
	Complete   types.Bool    `tfsdk:"complete"`
	Unseen     []string      `tfsdk:"unseen"`
	Objects    []verdict     `tfsdk:"objects"`
}

type verdict struct {
	Resource   string   `tfsdk:"resource"`
	Kind       string   `tfsdk:"kind"`
	Namespace  string   `tfsdk:"namespace"`
	Name       string   `tfsdk:"name"`
	Ref        string   `tfsdk:"ref"`
	Denied     bool     `tfsdk:"denied"`
	Warned     bool     `tfsdk:"warned"`
	Audited    bool     `tfsdk:"audited"`
	CannotTell string   `tfsdk:"cannot_tell"`
	Message    string   `tfsdk:"message"`
	Warnings   []string `tfsdk:"warnings"`
	Audit      []string `tfsdk:"audit"`
}

func (d *impactDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_validating_admission_policy_impact"
}

func (d *impactDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.client.Set(req.ProviderData, &resp.Diagnostics)
}

func (d *impactDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	count := func(what string) dsschema.Int64Attribute {
		return dsschema.Int64Attribute{Computed: true, MarkdownDescription: what}
	}
	str := func(what string) dsschema.StringAttribute {
		return dsschema.StringAttribute{Computed: true, MarkdownDescription: what}
	}
	flag := func(what string) dsschema.BoolAttribute {
		return dsschema.BoolAttribute{Computed: true, MarkdownDescription: what}
	}
	strs := func(what string) dsschema.ListAttribute {
		return dsschema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: what}
	}
	resp.Schema = dsschema.Schema{
		MarkdownDescription: "The verdict of a `ValidatingAdmissionPolicy` and its binding on the next write of each object the cluster " +
			"already runs that they match: the same evaluation as the impact the plan reports on a binding, for `check` blocks and reports. " +
			"Each object is evaluated as an `UPDATE` that leaves it unchanged (what its next `kubectl apply`, `helm upgrade`, sync or " +
			"controller update is), with the params the binding finds in the cluster. The objects are read within the provider's " +
			"`impact_max_objects` (per resource; the default when it is `0`) and `impact_timeout`; what could not be read is in `unseen`, and " +
			"what the evaluation cannot know offline is counted in `cannot_tell`, never as admitted.",
		Attributes: map[string]dsschema.Attribute{
			"policy": dsschema.DynamicAttribute{Required: true, MarkdownDescription: "The `ValidatingAdmissionPolicy`. " +
				objectForm("admission_validating_admission_policy")},
			"binding": dsschema.DynamicAttribute{Required: true, MarkdownDescription: "The `ValidatingAdmissionPolicyBinding`, applied to the " +
				"policy whatever its `policy_name`. " + objectForm("admission_validating_admission_policy_binding")},
			"examined":    count("How many objects were read, of the resources the policy's rules may match."),
			"matched":     count("How many of them the policy and binding apply to (rules, selectors, match conditions)."),
			"denied":      count("How many of those the next write would be denied (the `Deny` action, or a failure that rejects)."),
			"warned":      count("How many of those the next write would get a warning for (the `Warn` action)."),
			"audited":     count("How many of those the next write would be recorded as failing in the audit log (the `Audit` action)."),
			"cannot_tell": count("How many of those the evaluation cannot judge offline (see each object's `cannot_tell`)."),
			"complete":    flag("Whether every object of every resource was read, and every matched one judged."),
			"unseen":      strs("What could not be read: lists cut by the bounds, refused to the credentials or failed."),
			"objects": dsschema.ListNestedAttribute{Computed: true, MarkdownDescription: "One verdict per object matched, by resource, namespace and name.",
				NestedObject: dsschema.NestedAttributeObject{Attributes: map[string]dsschema.Attribute{
					"resource":    str("The resource, as RBAC names it: `deployments.apps`."),
					"kind":        str("The kind: `Deployment`."),
					"namespace":   str("The namespace; empty for a cluster-scoped object."),
					"name":        str("The name."),
					"ref":         str("`namespace/name`, or the name of a cluster-scoped object."),
					"denied":      flag("The next write would be denied."),
					"warned":      flag("The next write would get a warning."),
					"audited":     flag("The next write would be recorded as failing in the audit log."),
					"cannot_tell": str("Why the evaluation cannot judge it offline; empty when it can."),
					"message":     str("The message of the denial."),
					"warnings":    strs("The warnings of the `Warn` action."),
					"audit":       strs("The messages of the failures the `Audit` action records."),
				}}},
		},
	}
}

func (d *impactDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m impactModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	var policy simulate.ValidatingPolicy
	var binding simulate.ValidatingBinding
	for _, a := range []decodeArg{
		objectArg(m.Policy, "policy", "ValidatingAdmissionPolicy", policyfamily.ValidatingPolicyForm(), &policy),
		objectArg(m.Binding, "binding", "ValidatingAdmissionPolicyBinding", policyfamily.ValidatingBindingForm(), &binding),
	} {
		t, err := tree(ctx, a.v)
		if err == nil {
			if _, ok := t.(simulate.Unknown); ok {
				err = &simulate.ErrUnknown{}
			} else {
				err = a.decode(ctx, a.v, t)
			}
		}
		if err != nil {
			if isUnknown(err) {
				err = fmt.Errorf("a value that decides the verdicts is not known yet: %w", err)
			}
			resp.Diagnostics.AddAttributeError(path.Root(a.name), "Invalid "+a.name, err.Error())
			return
		}
	}
	c := d.client.Ready(&resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	cluster, err := impactClusterOf(c)
	if err != nil {
		resp.Diagnostics.AddError("Cannot reach the cluster", err.Error())
		return
	}
	res := cluster.Validating(ctx, impact.ValidatingPair{Policy: &policy, Binding: &binding}, nil, impact.Options{KeepAll: true})
	rep := impact.Report{Bounds: cluster.Bounds, MaxObjectsSetting: "impact_max_objects", BudgetSetting: "impact_timeout"}
	m.Examined, m.Matched = types.Int64Value(int64(res.Examined)), types.Int64Value(int64(res.Matched))
	m.Denied, m.Warned = types.Int64Value(int64(res.Denied.Count)), types.Int64Value(int64(res.Warned.Count))
	m.Audited, m.CannotTell = types.Int64Value(int64(res.Audited.Count)), types.Int64Value(int64(res.CannotTell.Count))
	m.Unseen = append([]string{}, res.Unseen(rep)...)
	m.Complete = types.BoolValue(len(m.Unseen) == 0 && res.CannotTell.Count == 0)
	m.Objects = []verdict{}
	for _, v := range res.All {
		m.Objects = append(m.Objects, verdict{Resource: v.Resource.String(), Kind: v.Resource.Kind.Kind, Namespace: v.Namespace, Name: v.Name,
			Ref: v.Ref(), Denied: v.Denied, Warned: v.Warned, Audited: v.Audited, CannotTell: v.CannotTell, Message: v.Message,
			Warnings: append([]string{}, v.Warnings...), Audit: append([]string{}, v.Audit...)})
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// impactClusterOf is the cluster of c as the impact reads it, within the provider's bounds (the
// default count when the plan's impact is turned off: the data source is asked for).
func impactClusterOf(c *kube.Client) (*impact.Cluster, error) {
	clients, err := live.ClientsOf(c)
	if err != nil {
		return nil, err
	}
	return impact.NewCluster(clients, impact.Bounds{MaxObjects: max(c.ImpactMaxObjects, 0), Budget: c.ImpactTimeout}), nil
}
