package metadata

import (
	"encoding/json"
	"maps"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// entry is a managed fields entry of manager, with fields as the server
// writes them (FieldsV1).
func entry(manager string, op metav1.ManagedFieldsOperationType, fields map[string]any) metav1.ManagedFieldsEntry {
	raw, err := json.Marshal(fields)
	if err != nil {
		panic(err)
	}
	return metav1.ManagedFieldsEntry{
		Manager: manager, Operation: op, APIVersion: "admissionregistration.k8s.io/v1",
		FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(string(raw)),
	}
}

// keys is the field set of the keys of a labels or annotations map.
func keys(ks ...string) map[string]any {
	set := map[string]any{".": map[string]any{}}
	for _, k := range ks {
		set["f:"+k] = map[string]any{}
	}
	return set
}

// metaFields is the field set of metadata with the given label and
// annotation keys (none: left out).
func metaFields(labels, annotations []string) map[string]any {
	m := map[string]any{}
	if labels != nil {
		m["f:labels"] = keys(labels...)
	}
	if annotations != nil {
		m["f:annotations"] = keys(annotations...)
	}
	return m
}

// webhookFields is the field set of a webhook configuration's one webhook
// named cert-manager-webhook.cert-manager.io, as a manifest sets it (the
// server's defaults included, as an update's managed fields have them).
func webhookFields() map[string]any {
	return map[string]any{
		".": map[string]any{}, "k:{\"name\":\"webhook.cert-manager.io\"}": map[string]any{
			".": map[string]any{}, "f:admissionReviewVersions": map[string]any{},
			"f:clientConfig": map[string]any{"f:service": map[string]any{
				".": map[string]any{}, "f:name": map[string]any{}, "f:namespace": map[string]any{}, "f:path": map[string]any{}, "f:port": map[string]any{},
			}},
			"f:failurePolicy": map[string]any{}, "f:matchPolicy": map[string]any{}, "f:name": map[string]any{},
			"f:namespaceSelector": map[string]any{}, "f:objectSelector": map[string]any{}, "f:rules": map[string]any{},
			"f:sideEffects": map[string]any{}, "f:timeoutSeconds": map[string]any{},
		},
	}
}

// made is the field set of a manager that made the object from a manifest
// with these label and annotation keys.
func made(labels, annotations []string) map[string]any {
	return map[string]any{"f:metadata": metaFields(labels, annotations), "f:webhooks": webhookFields()}
}

// caInjected is cert-manager's cainjector: an update of caBundle.
func caInjected() metav1.ManagedFieldsEntry {
	return entry("cainjector", metav1.ManagedFieldsOperationUpdate, map[string]any{"f:webhooks": map[string]any{
		"k:{\"name\":\"webhook.cert-manager.io\"}": map[string]any{"f:clientConfig": map[string]any{"f:caBundle": map[string]any{}}},
	}})
}

func stringMap(t *testing.T, m types.Map) map[string]string {
	t.Helper()
	if m.IsNull() {
		return nil
	}
	out := map[string]string{}
	for k, v := range m.Elements() {
		s, ok := v.(types.String)
		if !ok {
			t.Fatalf("%s: %T in a map of strings", k, v)
		}
		out[k] = s.ValueString()
	}
	return out
}

const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// TestFlattenOwnKeys reads objects made by each tool, with its field
// manager, operation and bookkeeping keys, without a prior state (an
// import): only the object's own keys are read.
func TestFlattenOwnKeys(t *testing.T) {
	chart := map[string]string{
		"app": "webhook", "app.kubernetes.io/name": "webhook", "app.kubernetes.io/instance": "cert-manager",
		"app.kubernetes.io/component": "webhook", "app.kubernetes.io/version": "v1.19.1", "helm.sh/chart": "cert-manager-v1.19.1",
	}
	inject := map[string]string{"cert-manager.io/inject-ca-from-secret": "cert-manager/cert-manager-webhook-ca"}
	with := func(m map[string]string, kv ...string) map[string]string {
		out := maps.Clone(m)
		if out == nil {
			out = map[string]string{}
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	keysOf := func(m map[string]string) []string {
		out := []string{}
		for k := range m {
			out = append(out, k)
		}
		return out
	}
	helmLabels := with(chart, "app.kubernetes.io/managed-by", "Helm")
	helmAnnotations := with(inject, "meta.helm.sh/release-name", "cert-manager", "meta.helm.sh/release-namespace", "cert-manager")
	trackingID := "cert-manager:admissionregistration.k8s.io/ValidatingWebhookConfiguration:/cert-manager-webhook"
	fluxLabels := with(chart, "kustomize.toolkit.fluxcd.io/name", "infra", "kustomize.toolkit.fluxcd.io/namespace", "flux-system")

	for _, tc := range []struct {
		name                string
		labels, annotations map[string]string
		fields              []metav1.ManagedFieldsEntry
		wantL, wantA        map[string]string
	}{
		{
			name:   "kubectl apply (client-side)",
			labels: chart, annotations: with(inject, lastApplied, `{"apiVersion":"admissionregistration.k8s.io/v1"}`),
			fields: []metav1.ManagedFieldsEntry{
				entry("kubectl-client-side-apply", metav1.ManagedFieldsOperationUpdate, made(keysOf(chart), append(keysOf(inject), lastApplied))),
				caInjected(),
			},
			wantL: chart, wantA: inject,
		},
		{
			name:   "kubectl apply --server-side",
			labels: chart, annotations: inject,
			fields: []metav1.ManagedFieldsEntry{entry("kubectl", metav1.ManagedFieldsOperationApply, made(keysOf(chart), keysOf(inject)))},
			wantL:  chart, wantA: inject,
		},
		{
			name:   "kubectl create",
			labels: chart, annotations: inject,
			fields: []metav1.ManagedFieldsEntry{entry("kubectl-create", metav1.ManagedFieldsOperationUpdate, made(keysOf(chart), keysOf(inject)))},
			wantL:  chart, wantA: inject,
		},
		{
			name:   "Helm 3",
			labels: helmLabels, annotations: helmAnnotations,
			fields: []metav1.ManagedFieldsEntry{
				entry("helm", metav1.ManagedFieldsOperationUpdate, made(keysOf(helmLabels), keysOf(helmAnnotations))), caInjected(),
			},
			wantL: chart, wantA: inject,
		},
		{
			name:   "Argo CD, annotation tracking: the chart's instance label is the release's",
			labels: with(chart, "app.kubernetes.io/instance", "release"), annotations: with(inject, "argocd.argoproj.io/tracking-id", trackingID),
			fields: []metav1.ManagedFieldsEntry{entry("argocd-controller", metav1.ManagedFieldsOperationApply,
				made(keysOf(chart), append(keysOf(inject), "argocd.argoproj.io/tracking-id")))},
			wantL: with(chart, "app.kubernetes.io/instance", "release"), wantA: inject,
		},
		{
			name:   "Argo CD, annotation+label tracking",
			labels: chart, annotations: with(inject, "argocd.argoproj.io/tracking-id", trackingID),
			fields: []metav1.ManagedFieldsEntry{entry("argocd-controller", metav1.ManagedFieldsOperationApply,
				made(keysOf(chart), append(keysOf(inject), "argocd.argoproj.io/tracking-id")))},
			wantL: with(chart, "app.kubernetes.io/instance", ""), wantA: inject,
		},
		{
			name:   "Argo CD, label tracking (client-side apply by its controller)",
			labels: chart, annotations: with(inject, lastApplied, "{}"),
			fields: []metav1.ManagedFieldsEntry{entry("argocd-controller", metav1.ManagedFieldsOperationUpdate,
				made(keysOf(chart), append(keysOf(inject), lastApplied)))},
			wantL: with(chart, "app.kubernetes.io/instance", ""), wantA: inject,
		},
		{
			name:   "Argo CD, instance label of an application in another namespace",
			labels: with(chart, "app.kubernetes.io/instance", "team-a_cert-manager"),
			annotations: map[string]string{"argocd.argoproj.io/tracking-id": "team-a_cert-manager:admissionregistration.k8s.io/ValidatingWebhookConfiguration:/x",
				"argocd.argoproj.io/installation-id": "prod"},
			fields: []metav1.ManagedFieldsEntry{entry("argocd-controller", metav1.ManagedFieldsOperationApply, made(keysOf(chart),
				[]string{"argocd.argoproj.io/tracking-id", "argocd.argoproj.io/installation-id"}))},
			wantL: with(chart, "app.kubernetes.io/instance", ""), wantA: nil,
		},
		{
			name:   "Flux kustomize-controller",
			labels: fluxLabels, annotations: with(inject, "kustomize.toolkit.fluxcd.io/prune", "disabled"),
			fields: []metav1.ManagedFieldsEntry{entry("kustomize-controller", metav1.ManagedFieldsOperationApply,
				made(keysOf(fluxLabels), append(keysOf(inject), "kustomize.toolkit.fluxcd.io/prune")))},
			// The prune setting is the user's instruction to Flux, written in the manifest.
			wantL: chart, wantA: with(inject, "kustomize.toolkit.fluxcd.io/prune", "disabled"),
		},
		{
			name:        "Flux helm-controller",
			labels:      with(helmLabels, "helm.toolkit.fluxcd.io/name", "cert-manager", "helm.toolkit.fluxcd.io/namespace", "flux-system"),
			annotations: helmAnnotations,
			fields: []metav1.ManagedFieldsEntry{entry("helm-controller", metav1.ManagedFieldsOperationUpdate, made(
				keysOf(with(helmLabels, "helm.toolkit.fluxcd.io/name", "", "helm.toolkit.fluxcd.io/namespace", "")), keysOf(helmAnnotations)))},
			wantL: chart, wantA: inject,
		},
		{
			name:   "a controller annotates the object later",
			labels: chart, annotations: with(inject, "policy.example.com/last-synced", "2026-12-01T10:00:00Z"),
			fields: []metav1.ManagedFieldsEntry{
				entry("kubectl-create", metav1.ManagedFieldsOperationUpdate, made(keysOf(chart), keysOf(inject))),
				caInjected(),
				entry("policy-controller", metav1.ManagedFieldsOperationUpdate, map[string]any{"f:metadata": metaFields(nil, []string{"policy.example.com/last-synced"})}),
			},
			wantL: chart, wantA: inject,
		},
		{
			name:   "a key the main manager and a controller both own is the object's",
			labels: chart, annotations: with(inject, "example.com/shared", "x"),
			fields: []metav1.ManagedFieldsEntry{
				entry("kubectl", metav1.ManagedFieldsOperationApply, made(keysOf(chart), append(keysOf(inject), "example.com/shared"))),
				entry("other", metav1.ManagedFieldsOperationUpdate, map[string]any{"f:metadata": metaFields(nil, []string{"example.com/shared"})}),
			},
			wantL: chart, wantA: with(inject, "example.com/shared", "x"),
		},
		{
			name:   "Terraform after adopting a kubectl object: both are main",
			labels: chart, annotations: with(inject, lastApplied, "{}", "example.com/kubectl-only", "x"),
			fields: []metav1.ManagedFieldsEntry{
				entry("kubectl-client-side-apply", metav1.ManagedFieldsOperationUpdate, made(keysOf(chart), append(keysOf(inject), lastApplied, "example.com/kubectl-only"))),
				entry("terraform-provider-admission", metav1.ManagedFieldsOperationApply, made(keysOf(chart), keysOf(inject))),
			},
			wantL: chart, wantA: with(inject, "example.com/kubectl-only", "x"),
		},
		{
			name:   "the status writer says nothing of who made the object",
			labels: chart, annotations: inject,
			fields: []metav1.ManagedFieldsEntry{
				entry("kubectl-create", metav1.ManagedFieldsOperationUpdate, map[string]any{"f:metadata": metaFields(keysOf(chart), keysOf(inject)), "f:spec": map[string]any{"f:policyName": map[string]any{}}}),
				func() metav1.ManagedFieldsEntry {
					e := entry("kube-apiserver", metav1.ManagedFieldsOperationUpdate, map[string]any{"f:status": map[string]any{
						"f:typeChecking": map[string]any{"f:a": map[string]any{}, "f:b": map[string]any{}, "f:c": map[string]any{}},
					}})
					e.Subresource = "status"
					return e
				}(),
			},
			wantL: chart, wantA: inject,
		},
		{
			name:   "no managed fields: only the bookkeeping list applies",
			labels: helmLabels, annotations: helmAnnotations,
			wantL: chart, wantA: inject,
		},
		{
			name:   "another managed-by value is the object's",
			labels: map[string]string{"app.kubernetes.io/managed-by": "platform-team"},
			fields: []metav1.ManagedFieldsEntry{entry("kubectl", metav1.ManagedFieldsOperationApply, made([]string{"app.kubernetes.io/managed-by"}, nil))},
			wantL:  map[string]string{"app.kubernetes.io/managed-by": "platform-team"},
		},
		{
			name:        "an object of metadata alone: nobody is main, all keys are read",
			labels:      map[string]string{"a": "1"},
			annotations: map[string]string{"b": "2"},
			fields: []metav1.ManagedFieldsEntry{
				entry("one", metav1.ManagedFieldsOperationUpdate, map[string]any{"f:metadata": metaFields([]string{"a"}, nil)}),
				entry("two", metav1.ManagedFieldsOperationUpdate, map[string]any{"f:metadata": metaFields(nil, []string{"b"})}),
			},
			wantL: map[string]string{"a": "1"}, wantA: map[string]string{"b": "2"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A label value "" in wantL means the key must be absent.
			for k, v := range tc.wantL {
				if v == "" {
					delete(tc.wantL, k)
				}
			}
			meta := metav1.ObjectMeta{Name: "cert-manager-webhook", Labels: tc.labels, Annotations: tc.annotations, ManagedFields: tc.fields}
			m := Flatten(meta, nil)
			if got := stringMap(t, m.Labels); !maps.Equal(got, tc.wantL) {
				t.Errorf("labels %v, want %v", got, tc.wantL)
			}
			if got := stringMap(t, m.Annotations); !maps.Equal(got, tc.wantA) {
				t.Errorf("annotations %v, want %v", got, tc.wantA)
			}
			if len(tc.wantA) == 0 && !m.Annotations.IsNull() {
				t.Errorf("no annotations of the object's own: %v, want null", m.Annotations)
			}
		})
	}
}

// TestFlattenRefreshReadsPriorKeys: with a prior state, exactly its keys
// are read, whoever owns them, so drift in them shows and a key a
// controller adds never does.
func TestFlattenRefreshReadsPriorKeys(t *testing.T) {
	meta := metav1.ObjectMeta{
		Name:        "x",
		Labels:      map[string]string{"team": "changed", "app.kubernetes.io/managed-by": "Helm", "added": "later"},
		Annotations: map[string]string{lastApplied: "{}"},
		ManagedFields: []metav1.ManagedFieldsEntry{
			entry("helm", metav1.ManagedFieldsOperationUpdate, made([]string{"app.kubernetes.io/managed-by"}, []string{lastApplied})),
			entry("kubectl-edit", metav1.ManagedFieldsOperationUpdate, map[string]any{"f:metadata": metaFields([]string{"team", "added"}, nil)}),
		},
	}
	prior := &Model{
		Labels: types.MapValueMust(types.StringType, map[string]attr.Value{
			"team": types.StringValue("platform"), "app.kubernetes.io/managed-by": types.StringValue("Helm"), "gone": types.StringValue("x"),
		}),
		Annotations: types.MapValueMust(types.StringType, map[string]attr.Value{}),
	}
	m := Flatten(meta, prior)
	want := map[string]string{"team": "changed", "app.kubernetes.io/managed-by": "Helm"}
	if got := stringMap(t, m.Labels); !maps.Equal(got, want) {
		t.Errorf("labels %v, want %v", got, want)
	}
	if got := m.Annotations; got.IsNull() || len(got.Elements()) != 0 {
		t.Errorf("annotations %v, want the empty map of the prior state", got)
	}
}

// TestOwnIgnoresBrokenManagedFields: managed fields that are not the
// server's JSON are no ownership at all, never a panic.
func TestOwnIgnoresBrokenManagedFields(t *testing.T) {
	meta := metav1.ObjectMeta{
		Labels: map[string]string{"a": "1"},
		ManagedFields: []metav1.ManagedFieldsEntry{
			{Manager: "x", FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1("not json")},
			{Manager: "y", FieldsType: "FieldsV1"},
			{Manager: "z", FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{"f:labels":"oops"},"f:webhooks":[]}`)},
		},
	}
	if labels, _ := Own(meta); !maps.Equal(labels, map[string]string{"a": "1"}) {
		t.Errorf("labels %v", labels)
	}
}

// TestDropBookkeeping: state moved from another provider loses other tools'
// keys and keeps the rest; a map left empty becomes null; a map with none of
// those keys is left as it is (an empty map stays empty).
func TestDropBookkeeping(t *testing.T) {
	m := Model{
		Labels: types.MapValueMust(types.StringType, map[string]attr.Value{
			"team": types.StringValue("platform"), "app.kubernetes.io/managed-by": types.StringValue("Helm"),
		}),
		Annotations: types.MapValueMust(types.StringType, map[string]attr.Value{
			"meta.helm.sh/release-name": types.StringValue("x"), "meta.helm.sh/release-namespace": types.StringValue("y"),
		}),
	}
	m.DropBookkeeping()
	if got := stringMap(t, m.Labels); !maps.Equal(got, map[string]string{"team": "platform"}) {
		t.Errorf("labels %v", got)
	}
	if !m.Annotations.IsNull() {
		t.Errorf("annotations %v, want null", m.Annotations)
	}
	empty := Model{Labels: types.MapValueMust(types.StringType, map[string]attr.Value{}), Annotations: types.MapNull(types.StringType)}
	empty.DropBookkeeping()
	if empty.Labels.IsNull() || len(empty.Labels.Elements()) != 0 || !empty.Annotations.IsNull() {
		t.Errorf("labels %v, annotations %v: want {} and null", empty.Labels, empty.Annotations)
	}
}

// Bookkeeper names the tool of each bookkeeping key that Own leaves out,
// and none for the object's own keys.
func TestBookkeeper(t *testing.T) {
	meta := metav1.ObjectMeta{
		Labels: map[string]string{"app.kubernetes.io/managed-by": "Helm", "kustomize.toolkit.fluxcd.io/name": "apps",
			"app.kubernetes.io/instance": "platform", "team": "search"},
		Annotations: map[string]string{LastApplied: "{}", "meta.helm.sh/release-name": "r", "argocd.argoproj.io/tracking-id": "platform:admissionregistration.k8s.io/X:/x"},
	}
	for _, c := range []struct {
		label      bool
		key, value string
		want       string
	}{
		{true, "app.kubernetes.io/managed-by", "Helm", "Helm"},
		{true, "app.kubernetes.io/managed-by", "Kustomize", ""},
		{true, "kustomize.toolkit.fluxcd.io/name", "apps", "Flux"},
		{true, "app.kubernetes.io/instance", "platform", "Argo CD"},
		{true, "team", "search", ""},
		{false, LastApplied, "{}", "kubectl"},
		{false, "meta.helm.sh/release-name", "r", "Helm"},
		{false, "argocd.argoproj.io/tracking-id", "", "Argo CD"},
		{false, "cert-manager.io/inject-ca-from", "ns/cert", ""},
	} {
		if got := Bookkeeper(meta, c.label, c.key, c.value); got != c.want {
			t.Errorf("Bookkeeper(label %v, %s=%s) = %q, want %q", c.label, c.key, c.value, got, c.want)
		}
	}
	labels, annotations := Own(meta)
	if want := map[string]string{"team": "search"}; !maps.Equal(labels, want) || len(annotations) != 0 {
		t.Errorf("Own: labels %v (want %v), annotations %v (want none)", labels, want, annotations)
	}
}
