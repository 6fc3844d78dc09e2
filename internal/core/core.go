// Package core is the one resource, data source and list resource of
// every kind of API object the provider manages, written once over a
// description of the kind (Description: its schema, model, conversion,
// checks, advice, and the few hooks a family needs). What belongs here is
// what does not depend on the kind: the CRUD steps and the plan (one dry run,
// the planned identity, updates that write nothing, conflict handling,
// creates kept as tainted when their answer is lost), the codec between
// Terraform values and models, the provider's client and timeouts, the
// resource identity, and diagnostics put on the attribute they are about. A kind's family (internal/webhook,
// internal/policy) holds its descriptions and what only it has.
package core

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// ClientHolder keeps the provider's client for a resource or data source.
type ClientHolder struct{ C *kube.Client }

// Set takes the client from the provider data of a Configure call.
func (h *ClientHolder) Set(data any, diags *diag.Diagnostics) {
	if data == nil {
		return // not configured yet (validation)
	}
	c, ok := data.(*kube.Client)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf("Expected *kube.Client, got %T. This is a bug in the provider.", data))
		return
	}
	h.C = c
}

// Ready returns the client, or reports on diags why there is none.
func (h *ClientHolder) Ready(diags *diag.Diagnostics) *kube.Client {
	switch {
	case h.C == nil:
		diags.AddError("Provider not configured", "The admission provider has no connection to a cluster. This is a bug in the provider.")
	case h.C.Ready() != nil:
		diags.AddError("Provider not configured", h.C.Ready().Error())
	}
	return h.C
}

// Connected reports whether the client can make requests now: it is false
// while the provider's configuration depends on values known only at apply.
func (h *ClientHolder) Connected() bool { return h.C != nil && h.C.Ready() == nil }

// Begin starts an operation on the cluster once diags hold what reading its
// configuration, plan or state reported: it returns the client, and ctx
// bounded by the operation's timeout (def when the timeouts block leaves it
// out), or a nil client when diags say why the operation cannot go on.
// cancel is never nil.
func (h *ClientHolder) Begin(ctx context.Context, timeout Timeout, def time.Duration, diags *diag.Diagnostics) (context.Context, context.CancelFunc, *kube.Client) {
	c := h.Ready(diags)
	if diags.HasError() {
		return ctx, func() {}, nil
	}
	ctx, cancel, timeoutDiags := WithTimeout(ctx, timeout, def)
	if diags.Append(timeoutDiags...); timeoutDiags.HasError() {
		return ctx, cancel, nil
	}
	return ctx, cancel, c
}

// Operation timeouts when the timeouts block leaves them out. A write
// includes waiting for a deletion to finish (finalizers).
const (
	DefaultReadTimeout  = 2 * time.Minute
	DefaultWriteTimeout = 5 * time.Minute
)

// Timeout is one operation's timeout in a timeouts block, given the default
// for when the block leaves it out: a method value such as the Read of a
// resource's or data source's timeouts.Value.
type Timeout = func(ctx context.Context, def time.Duration) (time.Duration, diag.Diagnostics)

// WithTimeout bounds an operation by its timeout from the timeouts block.
func WithTimeout(ctx context.Context, get Timeout, def time.Duration) (context.Context, context.CancelFunc, diag.Diagnostics) {
	d, diags := get(ctx, def)
	ctx, cancel := context.WithTimeout(ctx, d)
	return ctx, cancel, diags
}

// IdentityModel is the resource identity of a cluster-scoped object: its name.
type IdentityModel struct {
	Name types.String `tfsdk:"name"`
}

// IdentitySchema is the identity schema of a resource of the API kind kind.
func IdentitySchema(kind string) identityschema.Schema {
	return identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			"name": identityschema.StringAttribute{
				RequiredForImport: true,
				Description:       "Name of the " + kind + ".",
			},
		},
	}
}

// SetIdentity records the resource identity, where Terraform supports it.
func SetIdentity(ctx context.Context, identity *tfsdk.ResourceIdentity, name string, diags *diag.Diagnostics) {
	if identity != nil {
		diags.Append(identity.Set(ctx, IdentityModel{Name: types.StringValue(name)})...)
	}
}

// ImportName is the name an import asks for: the import ID, or the name in
// the identity of an import block.
func ImportName(ctx context.Context, id string, identity *tfsdk.ResourceIdentity, diags *diag.Diagnostics) string {
	if id == "" && identity != nil {
		var m IdentityModel
		diags.Append(identity.Get(ctx, &m)...)
		return m.Name.ValueString()
	}
	return id
}

// KeepUnconfirmed records a create whose request may have reached the
// server although no answer came back: the planned object named name, with
// the values only the server knows left empty, as the state, with its id
// and identity. Kept as the state beside the error, Terraform taints it, so
// the next run reads what the server has and replaces it, instead of finding
// an object it does not know about. It reports false when it could not.
func KeepUnconfirmed(ctx context.Context, plan tfsdk.Plan, name string, state *tfsdk.State, identity *tfsdk.ResourceIdentity, diags *diag.Diagnostics) bool {
	raw, err := tftypes.Transform(plan.Raw, func(_ *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if !v.IsKnown() {
			return tftypes.NewValue(v.Type(), nil), nil
		}
		return v, nil
	})
	if err != nil {
		diags.AddError("Cannot record the unconfirmed create", err.Error())
		return false
	}
	state.Raw = raw
	diags.Append(state.SetAttribute(ctx, path.Root("id"), name)...)
	SetIdentity(ctx, identity, name, diags)
	return true
}

// TimeoutsBlock is the timeouts block of a resource: create, read, update
// and delete.
func TimeoutsBlock(ctx context.Context) schema.Block {
	return timeouts.Block(ctx, timeouts.Opts{Create: true, Read: true, Update: true, Delete: true})
}

// KubernetesVersion returns the version of the API server that the checks at plan are made
// for: the provider's kubernetes_version, else what the server's /version reports (asked once
// per provider process, see kube.Client.ServerVersion), else the zero Version, unknown. It
// makes a request only when the provider is connected and has no kubernetes_version.
func (h *ClientHolder) KubernetesVersion(ctx context.Context) validation.Version {
	if h.C == nil {
		return validation.Version{}
	}
	if s := h.C.KubernetesVersion; s != "" {
		v, err := validation.ParseVersion(s)
		if err != nil {
			// Configure rejects such a setting; a client made elsewhere may still carry one.
			tflog.Warn(ctx, "ignoring kubernetes_version", map[string]any{"error": err.Error()})
			return validation.Version{}
		}
		return v
	}
	if !h.Connected() {
		return validation.Version{}
	}
	info, err := h.C.ServerVersion(ctx)
	if err != nil {
		tflog.Warn(ctx, "the version of the API server is not known", map[string]any{"error": err.Error()})
		return validation.Version{}
	}
	v, err := validation.ParseVersion(info.GitVersion)
	if err != nil {
		// Some distributions put their own text in gitVersion; major and minor still say it.
		if v, err = validation.ParseVersion(info.Major + "." + info.Minor); err != nil {
			tflog.Warn(ctx, "the API server reports a version that is not Kubernetes'", map[string]any{"gitVersion": info.GitVersion})
			return validation.Version{}
		}
	}
	tflog.Debug(ctx, "API server version", map[string]any{"gitVersion": info.GitVersion, "checks": v.String()})
	return v
}

// FromHashicorpKubernetes reports whether the source provider address of a
// `moved` block is hashicorp/kubernetes: registry.terraform.io/hashicorp/kubernetes
// from Terraform, registry.opentofu.org/hashicorp/kubernetes from OpenTofu.
func FromHashicorpKubernetes(address string) bool {
	host, rest, _ := strings.Cut(address, "/")
	return host != "" && rest == "hashicorp/kubernetes"
}
