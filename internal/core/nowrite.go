package core

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/metadata"
)

// An update that writes nothing.
//
// A configuration may spell out a value that the server does not store (an
// empty selector block, `values = []`, `ca_bundle = ""`) or that the state
// read from the server does not hold (a key of another tool's bookkeeping,
// such as Helm's `app.kubernetes.io/managed-by`, which an import does not
// read). Terraform then plans an update, since the plan must hold the
// configuration's values and the state does not, though the server's object
// would not change. The dry run at plan tells: when it gives back the object
// the server has (ignoring managed fields, resource version and generation),
// the plan says so in a warning that names those values, and the apply sends
// no write (so Terraform takes over no field from the object's other field
// managers) and only records the configuration's spelling in the state, so
// that the next plan is empty.
//
// What the server has is what the resource last read or wrote: Read, Create
// and Update keep its resource version and a digest of it in the private
// state (serverKey). Terraform gives the plan the private state of the prior
// state (the refreshed one), also for the plan that terraform apply makes
// again just before it applies (not the private state of the first plan): so
// each plan judges its own dry run against what the refresh saw, and one made
// after the object changed (another resource version in its dry run) plans a
// write. The plan that decides no write names the resource version it judged
// in its planned private state (noWriteKey), which only the apply reads:
// Update reads the object and writes nothing only while it still has that
// resource version; otherwise it writes as any update does.

// Private state keys: what the server had when last read or written, and
// the resource version of an update planned to write nothing.
const (
	serverKey  = "server_object"
	noWriteKey = "no_write"
)

// serverObject is what the private state keeps of the object the server
// has: its resource version and the digest of the rest (fingerprint).
//
// It is kept short: Terraform stores the private state of every resource
// in the state file (base64 of the framework's JSON, whose values are
// base64 again), and writes the whole file after each resource it applies
// (terraform's statemgr.Filesystem.WriteState), so that in an apply of N
// objects every byte here is written some N²/2 times. A private state of
// an earlier version of the provider, in longer names, decodes without a
// resource version, which only means that the plan finds no unchanged
// object to skip the write of; the refresh before each plan writes it anew.
type serverObject struct {
	ResourceVersion string `json:"rv"`
	Digest          string `json:"d,omitempty"`
}

// privateReader reads the resource's private state in a request.
type privateReader interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

// fingerprint is obj's resource version and the digest of its JSON without
// managed fields, resource version and generation: two objects with the same
// digest are the same object to anyone who reads it. A dry run of an apply
// that changes nothing answers with the object the server has, but for the
// entry of the applier's field manager in its managed fields.
func (d *Description[M, T]) fingerprint(obj *T) serverObject {
	c := *obj
	meta := d.Meta(&c)
	rv := meta.ResourceVersion
	meta.ManagedFields, meta.ResourceVersion, meta.Generation = nil, "", 0
	data, err := json.Marshal(&c)
	if err != nil {
		return serverObject{ResourceVersion: rv}
	}
	sum := sha256.Sum256(data)
	// 128 bits tell the versions of one object apart as well as 256.
	return serverObject{ResourceVersion: rv, Digest: base64.RawStdEncoding.EncodeToString(sum[:16])}
}

// keepServerObject records obj, as the server has it now, in the private
// state, where no update planned to write nothing is left.
func (r *Resource[M, T]) keepServerObject(ctx context.Context, obj *T, private privateState, diags *diag.Diagnostics) {
	if private == nil || obj == nil {
		return
	}
	data, err := json.Marshal(r.Kind.fingerprint(obj))
	if err != nil {
		return
	}
	diags.Append(private.SetKey(ctx, serverKey, data)...)
	diags.Append(private.SetKey(ctx, noWriteKey, nil)...)
}

// readPrivate decodes the private state at key into v; false when there is
// none.
func readPrivate(ctx context.Context, private privateReader, key string, v any) bool {
	if private == nil {
		return false
	}
	data, diags := private.GetKey(ctx, key)
	return !diags.HasError() && len(data) > 0 && json.Unmarshal(data, v) == nil
}

// planNoWrite decides, for the plan of an update whose dry run answered
// dryRun, whether the apply writes nothing: the dry run gives back the
// object that the refresh (or the last write) saw, at the same resource
// version. It then names that version in the planned private state and
// warns, naming the values that make the update; the values only the server
// knows stay as the plan has them (known after apply), since the plan that
// terraform apply makes again must plan the same ones when the object has
// changed since and the apply writes after all.
func (r *Resource[M, T]) planNoWrite(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, dryRun *T) {
	if resp.Private == nil || dryRun == nil {
		return
	}
	var seen serverObject
	if !readPrivate(ctx, req.Private, serverKey, &seen) || seen.ResourceVersion == "" || seen.Digest == "" {
		return
	}
	if r.Kind.fingerprint(dryRun) != seen {
		return
	}
	data, err := json.Marshal(serverObject{ResourceVersion: seen.ResourceVersion})
	if err != nil {
		return
	}
	if diags := resp.Private.SetKey(ctx, noWriteKey, data); diags.HasError() {
		return
	}
	var diffs []valueDiff
	walkDiffs("", req.State.Raw, req.Plan.Raw, &diffs)
	diffs = slices.DeleteFunc(diffs, func(d valueDiff) bool { return d.path == "timeouts" || strings.HasPrefix(d.path, "timeouts.") })
	if len(diffs) == 0 {
		return // only the timeouts block changes: nothing to say
	}
	meta := *r.Kind.Meta(dryRun)
	resp.Diagnostics.AddWarning(noWriteSummary(meta.Name), noWriteDetail(r.Kind.API.Kind, meta, diffs))
}

// plannedNoWrite is the resource version that the plan of an update judged
// when it found that the apply writes nothing, or "".
func plannedNoWrite(ctx context.Context, private privateReader) string {
	var planned serverObject
	if !readPrivate(ctx, private, noWriteKey, &planned) {
		return ""
	}
	return planned.ResourceVersion
}

func noWriteSummary(name string) string {
	return fmt.Sprintf("The update of %q writes nothing to the server", name)
}

func noWriteDetail(kind string, meta metav1.ObjectMeta, diffs []valueDiff) string {
	lines := make([]string, 0, len(diffs))
	for _, d := range diffs {
		lines = append(lines, "  - "+d.path+": "+d.explain(meta))
	}
	return "The cluster already has this " + kind + " as the configuration describes it: the dry run of the apply gives back " +
		"the object the server has now. The plan shows an update only because the configuration holds values that the state, " +
		"as read from the server, does not:\n\n" + strings.Join(lines, "\n") + "\n\n" +
		"The apply sends nothing to the server (it takes over no field from the object's other field managers) and records " +
		"these values in the state, so that the next plan is empty; the values shown as known after apply keep those the " +
		"server has. To plan no update at all, remove these values from the configuration. If the object changes on the " +
		"server before the apply, the apply writes it as any update does."
}

// valueDiff is a value of the plan (the configuration's) that the prior
// state does not hold, at an attribute path such as
// webhook[0].namespace_selector.
type valueDiff struct {
	path        string
	state, plan tftypes.Value
}

// walkDiffs appends to out the values where plan differs from state, as
// deep as both have the same shape: a value of a map by its key, a list by
// its elements when both have as many, an object by its attributes. Values
// known only after apply are left out.
func walkDiffs(at string, state, plan tftypes.Value, out *[]valueDiff) {
	if !plan.IsKnown() || state.Equal(plan) {
		return
	}
	typ := plan.Type()
	bothSet := !plan.IsNull() && state.IsKnown()
	switch {
	case bothSet && typ.Is(tftypes.Map{}):
		var s, p map[string]tftypes.Value
		if !state.IsNull() && state.As(&s) != nil || plan.As(&p) != nil {
			break
		}
		mt, ok := typ.(tftypes.Map)
		if !ok {
			break
		}
		elem := mt.ElementType
		keys := slices.Sorted(maps.Keys(p))
		for k := range s {
			if _, ok := p[k]; !ok {
				keys = append(keys, k)
			}
		}
		for _, k := range keys {
			sv, ok := s[k]
			if !ok {
				sv = tftypes.NewValue(elem, nil)
			}
			pv, ok := p[k]
			if !ok {
				pv = tftypes.NewValue(elem, nil)
			}
			walkDiffs(at+"["+strconv.Quote(k)+"]", sv, pv, out)
		}
		return
	case bothSet && !state.IsNull() && typ.Is(tftypes.Object{}):
		var s, p map[string]tftypes.Value
		if state.As(&s) != nil || plan.As(&p) != nil {
			break
		}
		for _, k := range slices.Sorted(maps.Keys(p)) {
			walkDiffs(joinPath(at, k), s[k], p[k], out)
		}
		return
	case bothSet && !state.IsNull() && (typ.Is(tftypes.List{}) || typ.Is(tftypes.Set{})):
		var s, p []tftypes.Value
		if state.As(&s) != nil || plan.As(&p) != nil || len(s) != len(p) {
			break
		}
		for i := range p {
			walkDiffs(at+"["+strconv.Itoa(i)+"]", s[i], p[i], out)
		}
		return
	}
	*out = append(*out, valueDiff{path: at, state: state, plan: plan})
}

func joinPath(at, name string) string {
	if at == "" {
		return name
	}
	return at + "." + name
}

// name is the attribute or block name of the diff's path (its last name),
// and the map key when the path ends in one.
func (d valueDiff) name() (name, key string) {
	p := d.path
	if strings.HasSuffix(p, "\"]") {
		if i := strings.LastIndex(p, "[\""); i >= 0 {
			key, _ = strconv.Unquote(p[i+1 : len(p)-1])
			p = p[:i]
		}
	}
	if i := strings.LastIndex(p, "."); i >= 0 {
		p = p[i+1:]
	}
	if i := strings.Index(p, "["); i >= 0 {
		p = p[:i]
	}
	return p, key
}

// explain says what the configuration's value is and why the server has it
// already; meta is the object's metadata as the dry run gave it back.
func (d valueDiff) explain(meta metav1.ObjectMeta) string {
	name, key := d.name()
	switch {
	case key != "" && d.plan.IsKnown() && !d.plan.IsNull() && d.state.IsNull() && isMetadataMap(d.path):
		var value string
		_ = d.plan.As(&value)
		label := strings.HasSuffix(strings.TrimSuffix(d.path, "["+strconv.Quote(key)+"]"), ".labels")
		entry := fmt.Sprintf("`%s = %s`", strconv.Quote(key), strconv.Quote(value))
		if tool := metadata.Bookkeeper(meta, label, key, value); tool != "" {
			return entry + ", " + tool + "'s bookkeeping, which the object already has: an import does not read other tools' bookkeeping into the state"
		}
		return entry + ", which the object already has, though the state does not hold it"
	case d.plan.IsNull():
		if isNone(d.state) {
			return fmt.Sprintf("the state holds `%s = %s` and the configuration leaves it out: the server stores both as none", name, hcl(d.state))
		}
		return fmt.Sprintf("the state holds `%s = %s` and the configuration leaves it out: the server keeps it as it is, and the state stops holding it", name, hcl(d.state))
	case isNone(d.state) && isBlockList(d.plan) && isNone(d.plan):
		s := fmt.Sprintf("`%s {}`, an empty block: the server stores it as none", name)
		if strings.HasSuffix(name, "_selector") {
			s += " (an empty selector and none both select everything)"
		}
		return s
	case isNone(d.state) && isNone(d.plan) && d.plan.Type().Is(tftypes.String):
		return fmt.Sprintf("`%s = \"\"`, an empty value: the server stores it as none", name)
	case isNone(d.state) && isNone(d.plan) && (d.plan.Type().Is(tftypes.List{}) || d.plan.Type().Is(tftypes.Set{})):
		return fmt.Sprintf("`%s = []`, an empty list: the server stores it as none", name)
	case isNone(d.state) && isNone(d.plan):
		return fmt.Sprintf("`%s = %s`, empty: the server stores it as none", name, hcl(d.plan))
	case isBlockList(d.plan):
		return fmt.Sprintf("`%s %s`, where the state holds %s: the server already has the configuration's value", name, hcl(d.plan), hcl(d.state))
	}
	return fmt.Sprintf("`%s = %s`, where the state holds %s: the server already has the configuration's value", name, hcl(d.plan), hcl(d.state))
}

// isMetadataMap reports whether path is a key of the metadata's labels or
// annotations.
func isMetadataMap(path string) bool {
	return strings.HasPrefix(path, "metadata[0].labels[") || strings.HasPrefix(path, "metadata[0].annotations[")
}

// isBlockList reports whether v is a list of objects: a block list, since
// the schemas have no list attribute of objects.
func isBlockList(v tftypes.Value) bool {
	l, ok := v.Type().(tftypes.List)
	return ok && l.ElementType.Is(tftypes.Object{})
}

// isNone reports whether v is what the server stores as none: null, an empty
// string, list or map, a block list of empty blocks, an object of such
// values.
func isNone(v tftypes.Value) bool {
	if v.IsNull() {
		return true
	}
	if !v.IsKnown() {
		return false
	}
	typ := v.Type()
	switch {
	case typ.Is(tftypes.String):
		var s string
		return v.As(&s) == nil && s == ""
	case typ.Is(tftypes.Map{}), typ.Is(tftypes.Object{}):
		var m map[string]tftypes.Value
		if v.As(&m) != nil {
			return false
		}
		for _, e := range m {
			if !isNone(e) {
				return false
			}
		}
		return !typ.Is(tftypes.Map{}) || len(m) == 0
	case typ.Is(tftypes.List{}), typ.Is(tftypes.Set{}):
		var l []tftypes.Value
		if v.As(&l) != nil {
			return false
		}
		if !isBlockList(v) {
			return len(l) == 0
		}
		for _, e := range l {
			if !isNone(e) {
				return false
			}
		}
		return true
	}
	return false
}

// hcl is v as the configuration writes it, on one line.
func hcl(v tftypes.Value) string {
	if !v.IsKnown() {
		return "(known after apply)"
	}
	if v.IsNull() {
		return "null"
	}
	typ := v.Type()
	switch {
	case typ.Is(tftypes.String):
		var s string
		_ = v.As(&s)
		return strconv.Quote(s)
	case typ.Is(tftypes.Number):
		var n big.Float
		_ = v.As(&n)
		return n.Text('f', -1)
	case typ.Is(tftypes.Bool):
		var b bool
		_ = v.As(&b)
		return strconv.FormatBool(b)
	case typ.Is(tftypes.List{}), typ.Is(tftypes.Set{}), typ.Is(tftypes.Tuple{}):
		var l []tftypes.Value
		_ = v.As(&l)
		if isBlockList(v) {
			return blocks(l)
		}
		parts := make([]string, len(l))
		for i, e := range l {
			parts[i] = hcl(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case typ.Is(tftypes.Map{}), typ.Is(tftypes.Object{}):
		var m map[string]tftypes.Value
		_ = v.As(&m)
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if isNone(m[k]) && typ.Is(tftypes.Object{}) {
				continue
			}
			name := k
			if typ.Is(tftypes.Map{}) {
				name = strconv.Quote(k)
			}
			parts = append(parts, name+" = "+hcl(m[k]))
		}
		if len(parts) == 0 {
			return "{}"
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	return v.String()
}

// blocks is a block list as its blocks: none, {}, or { … } each.
func blocks(l []tftypes.Value) string {
	if len(l) == 0 {
		return "none"
	}
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = hcl(e)
	}
	return strings.Join(parts, " ")
}
