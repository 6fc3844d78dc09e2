package webhook

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/metadata"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/protocol"
)

// A webhook's caBundle that the configuration leaves out belongs to whoever
// injects it (cert-manager's CA injector): the apply leaves it out
// (leaveUnsetCABundles), the resource keeps beside the state which webhooks'
// caBundle Terraform sets (managedCABundles), and the plan keeps an injected
// value as it is (caBundlePlanModifier). An import reads an empty caBundle in
// the spelling of the manifest it was applied from (readAppliedEmptyCABundles).

// caBundleKey is the private state key that lists the webhooks whose
// ca_bundle the configuration sets (and so Terraform owns).
const caBundleKey = "ca_bundle_managed"

// setsCABundle reports whether a webhook's configuration sets its caBundle.
func setsCABundle(h hook) bool {
	cc := h.base().ClientConfig
	return len(cc) > 0 && !cc[0].CABundle.IsNull()
}

// leaveUnsetCABundles takes out of the plan the caBundle of each webhook
// whose configuration leaves it out, so that the apply leaves it to whoever
// injects it. It changes plan's webhooks, not the slices they share.
func leaveUnsetCABundles[H hook](newHook func(webhookModel, types.String) H, plan, cfg *objectModel[H]) {
	plan.Webhook = slices.Clone(plan.Webhook)
	for i, h := range plan.Webhook {
		if i < len(cfg.Webhook) && setsCABundle(cfg.Webhook[i]) {
			continue
		}
		w := h.base()
		if len(w.ClientConfig) == 0 {
			continue
		}
		w.ClientConfig = slices.Clone(w.ClientConfig)
		w.ClientConfig[0].CABundle = types.StringNull()
		plan.Webhook[i] = newHook(w, h.reinvocation())
	}
}

// readAppliedEmptyCABundles reads, after an import, as "" the ca_bundle of
// each webhook of m that the server stores none for and whose caBundle the
// configuration that kubectl apply last applied (metadata.LastApplied)
// spells as "", as charts render it when nobody fills it: a configuration
// written from the same manifest (ca_bundle = "") then plans no change, and
// neither does one that leaves ca_bundle out (it is Optional and Computed,
// and left out its planned value is the state's, caBundlePlanModifier). The
// server cannot tell "" from none, and ca_bundle stays null where nothing
// says the configuration spelled it (as a create and a data source read it).
func readAppliedEmptyCABundles[H hook](newHook func(webhookModel, types.String) H, obj *configuration, m *objectModel[H]) {
	raw := obj.Annotations[metadata.LastApplied]
	if raw == "" {
		return
	}
	var applied struct {
		Webhooks []struct {
			Name         string                     `json:"name"`
			ClientConfig map[string]json.RawMessage `json:"clientConfig"`
		} `json:"webhooks"`
	}
	if json.Unmarshal([]byte(raw), &applied) != nil {
		return
	}
	empty := map[string]bool{}
	for _, w := range applied.Webhooks {
		if v, ok := w.ClientConfig["caBundle"]; ok && string(v) == `""` {
			empty[w.Name] = true
		}
	}
	if len(empty) == 0 {
		return
	}
	m.Webhook = slices.Clone(m.Webhook)
	for i, h := range m.Webhook {
		w := h.base()
		if !empty[w.Name.ValueString()] || len(w.ClientConfig) == 0 || !w.ClientConfig[0].CABundle.IsNull() {
			continue
		}
		w.ClientConfig = slices.Clone(w.ClientConfig)
		w.ClientConfig[0].CABundle = types.StringValue("")
		m.Webhook[i] = newHook(w, h.reinvocation())
	}
}

// managedCABundles is what the resource keeps beside the state: the names
// of the webhooks whose caBundle the configuration sets (the others belong
// to whoever injects them).
func managedCABundles[H hook](cfg *objectModel[H]) (string, any) {
	managed := []string{}
	for _, w := range cfg.Webhook {
		if setsCABundle(w) {
			managed = append(managed, w.base().Name.ValueString())
		}
	}
	return caBundleKey, managed
}

// caBundlePlanModifier plans ca_bundle when the configuration leaves it out:
// the value another controller injected stays as it is, while one that
// Terraform set before and no longer sets is planned as unknown, since the
// apply removes it.
type caBundlePlanModifier struct{}

// It acts only on an unknown planned value: a plan that changes nothing
// may be answered without the framework's walks.
var _ protocol.KeepsUnchanged = caBundlePlanModifier{}

func (caBundlePlanModifier) KeepsUnchangedValue() {}

func (caBundlePlanModifier) Description(context.Context) string {
	return "Keeps a ca_bundle injected by another controller; plans one Terraform stops setting as unknown."
}

func (m caBundlePlanModifier) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

func (caBundlePlanModifier) PlanModifyString(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if !req.ConfigValue.IsNull() || req.StateValue.IsNull() || !req.PlanValue.IsUnknown() {
		return
	}
	// req.Path is webhook[i].client_config[0].ca_bundle.
	webhookPath := req.Path.ParentPath().ParentPath().ParentPath()
	var planName, stateName types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, webhookPath.AtName("name"), &planName)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, webhookPath.AtName("name"), &stateName)...)
	if resp.Diagnostics.HasError() || !planName.Equal(stateName) {
		return
	}
	data, diags := req.Private.GetKey(ctx, caBundleKey)
	resp.Diagnostics.Append(diags...)
	var managed []string
	if len(data) > 0 {
		if err := json.Unmarshal(data, &managed); err != nil {
			return
		}
	}
	if slices.Contains(managed, planName.ValueString()) {
		return
	}
	resp.PlanValue = req.StateValue
}
