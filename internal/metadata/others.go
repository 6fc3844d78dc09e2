package metadata

import (
	"encoding/json"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The rule for reading labels and annotations of an object that has no
// prior state (an import, a `terraform query` result; a data source reads
// every key, FlattenStored):
//
//  1. A key another tool keeps for its own bookkeeping (bookkeeping) is not
//     read: it says how that tool made the object, not what the object is,
//     and the tool keeps it whatever Terraform does, since server-side apply
//     never removes a field that another manager owns.
//  2. A key that only field managers other than the object's main manager
//     own (metadata.managedFields) is not read: a controller added it after
//     the object was made (mainManagers says which managers are main).
//
// Every other key is read, so the state holds what the manifest the object
// was made from says. A key left out of the state is still on the server
// and stays there; a configuration that sets it makes Terraform a co-owner.
// A refresh reads exactly the keys the state already has (Flatten), so drift
// in them shows, and keys that others add later never do.

// LastApplied is the annotation in which kubectl apply (client-side) keeps
// the configuration it last applied, for its three-way merge
// (k8s.io/kubectl/pkg/util.LastAppliedConfigAnnotation).
const LastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// Bookkeeping annotations of other tools, by key: the tool.
var bookkeepingAnnotations = map[string]string{
	LastApplied: "kubectl",
	// Helm 3 records the release that owns the object
	// (helm.sh/helm/v3/pkg/action, helmReleaseNameAnnotation and
	// helmReleaseNamespaceAnnotation), which `helm install` checks before it
	// adopts an object.
	"meta.helm.sh/release-name":      "Helm",
	"meta.helm.sh/release-namespace": "Helm",
	// Argo CD's resource tracking: the application that owns the object, and
	// the instance of Argo CD (Argo CD's docs, "Resource Tracking").
	argoTrackingID:                       "Argo CD",
	"argocd.argoproj.io/installation-id": "Argo CD",
	// This provider's record, on a ValidatingAdmissionPolicyBinding, of the
	// binding resource's fail_on_existing_denials (internal/policy): the
	// resource's own setting, not an annotation of the configuration.
	GateAnnotation: "fail_on_existing_denials",
}

// GateAnnotation is the annotation in which this provider records, on a
// ValidatingAdmissionPolicyBinding applied with fail_on_existing_denials =
// true, that the gate is on, so that the plan of a change of the binding's
// policy (which Terraform plans without the binding) finds it in the cluster.
const GateAnnotation = "admission.seed-a73d233f.io/fail-on-existing-denials"

const (
	argoTrackingID  = "argocd.argoproj.io/tracking-id"
	argoInstance    = "app.kubernetes.io/instance"
	argoManager     = "argocd-controller"
	helmManagedBy   = "app.kubernetes.io/managed-by"
	helmManagedByV  = "Helm"
	fluxKustomize   = "kustomize.toolkit.fluxcd.io/"
	fluxHelmRelease = "helm.toolkit.fluxcd.io/"
)

// bookkeepingLabel reports whether the label key=value of meta is another
// tool's bookkeeping: Helm's app.kubernetes.io/managed-by=Helm (which `helm
// install` checks before it adopts an object), Flux's
// kustomize.toolkit.fluxcd.io/* and helm.toolkit.fluxcd.io/* (the
// Kustomization or HelmRelease that applied the object), and Argo CD's
// app.kubernetes.io/instance when Argo CD wrote it: with label tracking (no
// tracking annotation) owned by its field manager, with annotation+label
// tracking equal to the application its tracking annotation names. A chart's
// own app.kubernetes.io/instance (the release name) installed by Helm is the
// object's.
func bookkeepingLabel(meta *metav1.ObjectMeta, o ownership, key, value string) bool {
	return labelBookkeeper(meta, o, key, value) != ""
}

// labelBookkeeper is the tool whose bookkeeping the label key=value of meta
// is (bookkeepingLabel), or "".
func labelBookkeeper(meta *metav1.ObjectMeta, o ownership, key, value string) string {
	switch {
	case key == helmManagedBy && value == helmManagedByV:
		return "Helm"
	case strings.HasPrefix(key, fluxKustomize), strings.HasPrefix(key, fluxHelmRelease):
		return "Flux"
	case key == argoInstance:
		id, ok := meta.Annotations[argoTrackingID]
		if !ok {
			if o.labels[key][argoManager] {
				return "Argo CD"
			}
			return ""
		}
		// <application>:<group>/<kind>:<namespace>/<name>, where an
		// application outside Argo CD's namespace is <namespace>_<name>.
		app, _, _ := strings.Cut(id, ":")
		_, short, namespaced := strings.Cut(app, "_")
		if value == app || namespaced && value == short {
			return "Argo CD"
		}
	}
	return ""
}

// Bookkeeper is the tool (such as "Helm") whose bookkeeping the label
// (label true) or annotation key=value of meta is, by the first part of the
// rule of Own, or "" when it is none's.
func Bookkeeper(meta metav1.ObjectMeta, label bool, key, value string) string {
	if label {
		return labelBookkeeper(&meta, readOwnership(meta.ManagedFields), key, value)
	}
	return bookkeepingAnnotations[key]
}

// ownership is who owns each label and annotation of an object, from its
// managed fields.
type ownership struct {
	labels, annotations map[string]map[string]bool // key → managers
	// main are the managers that own most of the object outside its
	// metadata (mainManagers); empty when the managed fields do not say.
	main map[string]bool
}

// readOwnership reads the managed fields of an object. Entries of a
// subresource (status) are left out: they say nothing of who made the
// object.
func readOwnership(fields []metav1.ManagedFieldsEntry) ownership {
	o := ownership{labels: map[string]map[string]bool{}, annotations: map[string]map[string]bool{}}
	counts := map[string]int{}
	for _, e := range fields {
		if e.Subresource != "" || e.FieldsV1 == nil || e.FieldsType != "FieldsV1" {
			continue
		}
		var set map[string]json.RawMessage
		if json.Unmarshal(e.FieldsV1.GetRawBytes(), &set) != nil {
			continue
		}
		for k, v := range set {
			if k == "f:metadata" {
				var meta map[string]json.RawMessage
				if json.Unmarshal(v, &meta) == nil {
					own(o.labels, meta["f:labels"], e.Manager)
					own(o.annotations, meta["f:annotations"], e.Manager)
				}
				continue
			}
			if k == "f:status" {
				continue
			}
			counts[e.Manager] += leaves(v)
		}
	}
	o.main = mainManagers(counts)
	return o
}

// mainManagers are the managers that own the most fields outside the
// object's metadata: the tool that made the object from its manifest, and
// Terraform once it applied the configuration (both own all of it). A
// manager that sets one field (cert-manager's cainjector injecting
// caBundle) owns fewer.
func mainManagers(counts map[string]int) map[string]bool {
	most := 0
	for _, n := range counts {
		most = max(most, n)
	}
	main := map[string]bool{}
	if most == 0 {
		return main
	}
	for m, n := range counts {
		if n == most {
			main[m] = true
		}
	}
	return main
}

// own records manager as an owner of the keys of a labels or annotations
// field set ({"f:key": {}, ".": {}}).
func own(keys map[string]map[string]bool, raw json.RawMessage, manager string) {
	var set map[string]json.RawMessage
	if raw == nil || json.Unmarshal(raw, &set) != nil {
		return
	}
	for k := range set {
		key, ok := strings.CutPrefix(k, "f:")
		if !ok {
			continue
		}
		if keys[key] == nil {
			keys[key] = map[string]bool{}
		}
		keys[key][manager] = true
	}
}

// leaves counts the fields of a field set, at every level.
func leaves(raw json.RawMessage) int {
	var set map[string]json.RawMessage
	if json.Unmarshal(raw, &set) != nil || len(set) == 0 {
		return 1
	}
	n := 0
	for _, v := range set {
		n += leaves(v)
	}
	return n
}

// othersKey reports whether a key, owned as owners says, belongs to a
// controller other than the object's main manager: every manager that owns
// it is one that is not main. A key no entry names (managed fields reset)
// is the object's.
func (o ownership) othersKey(owners map[string]bool) bool {
	if len(o.main) == 0 || len(owners) == 0 {
		return false
	}
	for m := range owners {
		if o.main[m] {
			return false
		}
	}
	return true
}

// Own returns the labels and annotations of meta that are the object's own,
// by the rule above: those a person adopting it keeps in a configuration.
func Own(meta metav1.ObjectMeta) (labels, annotations map[string]string) {
	o := readOwnership(meta.ManagedFields)
	labels = map[string]string{}
	for k, v := range meta.Labels {
		if !bookkeepingLabel(&meta, o, k, v) && !o.othersKey(o.labels[k]) {
			labels[k] = v
		}
	}
	annotations = map[string]string{}
	for k, v := range meta.Annotations {
		if bookkeepingAnnotations[k] == "" && !o.othersKey(o.annotations[k]) {
			annotations[k] = v
		}
	}
	return labels, annotations
}

// DropBookkeeping removes from m's labels and annotations the bookkeeping
// keys of other tools (the first part of the rule of Own; a state has no
// managed fields for the second). A map left with no key becomes null. It
// is for state taken over from another provider (a moved block), which may
// hold such keys: read back, they would plan a removal the apply never makes.
func (m *Model) DropBookkeeping() {
	meta := metav1.ObjectMeta{Labels: stringsOf(m.Labels), Annotations: stringsOf(m.Annotations)}
	labels, annotations := Own(meta)
	if len(labels) != len(meta.Labels) {
		m.Labels = mapOf(labels)
	}
	if len(annotations) != len(meta.Annotations) {
		m.Annotations = mapOf(annotations)
	}
}

func stringsOf(m types.Map) map[string]string {
	if m.IsNull() || m.IsUnknown() {
		return nil
	}
	out := map[string]string{}
	for k, v := range m.Elements() {
		if s, ok := v.(types.String); ok && !s.IsNull() && !s.IsUnknown() {
			out[k] = s.ValueString()
		}
	}
	return out
}

func mapOf(m map[string]string) types.Map {
	if len(m) == 0 {
		return types.MapNull(types.StringType)
	}
	elems := map[string]attr.Value{}
	for k, v := range m {
		elems[k] = types.StringValue(v)
	}
	return types.MapValueMust(types.StringType, elems)
}
