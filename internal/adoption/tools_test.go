package adoption_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"maps"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/jsontest"
)

// kind is one of the six kinds: the manifest an object of it is made from
// (testdata), and the configuration a person adopting it writes.
type kind struct {
	resourceType string // admission_<type>
	resource     string // the API resource
	manifest     string // file under testdata
	// body is what the kind's resource block has after its metadata block;
	// policy is the tool's policy of the same family, which a binding names.
	body func(policy string, manifest *unstructured.Unstructured) string
}

// config is the resource block of the configuration for the object named
// name, at address <resourceType>.<label>, with the metadata lines meta
// (labels and annotations); policy is as for body.
func (k kind) config(label, name, meta, policy string, manifest *unstructured.Unstructured) string {
	return fmt.Sprintf("\nresource %q %q {\n  metadata {\n    name = %q\n%s  }%s}\n", k.resourceType, label, name, meta, k.body(policy, manifest))
}

// certManagerWebhook is the webhook block of cert-manager's webhook
// configurations (testdata), calling path, with more (blocks) after its
// client_config.
func certManagerWebhook(path, more string) string {
	return fmt.Sprintf(`
  webhook {
    name                      = "webhook.cert-manager.io"
    admission_review_versions = ["v1"]
    match_policy              = "Equivalent"
    timeout_seconds           = 30
    failure_policy            = "Fail"
    side_effects              = "None"
    client_config {
      service {
        name      = "cert-manager-webhook"
        namespace = "cert-manager"
        path      = %q
      }
    }
%s  }
`, path, more)
}

var (
	mutatingWebhooks = kind{"admission_mutating_webhook_configuration", "mutatingwebhookconfigurations", "cert-manager-mutating.yaml",
		func(string, *unstructured.Unstructured) string {
			return certManagerWebhook("/mutate", `    rule {
      api_groups   = ["cert-manager.io"]
      api_versions = ["v1"]
      operations   = ["CREATE"]
      resources    = ["certificaterequests"]
    }
`)
		}}
	validatingWebhooks = kind{"admission_validating_webhook_configuration", "validatingwebhookconfigurations", "cert-manager-validating.yaml",
		func(string, *unstructured.Unstructured) string {
			return certManagerWebhook("/validate", `    namespace_selector {
      match_expressions {
        key      = "cert-manager.io/disable-validation"
        operator = "NotIn"
        values   = ["true"]
      }
    }
    rule {
      api_groups   = ["cert-manager.io", "acme.cert-manager.io"]
      api_versions = ["v1"]
      operations   = ["CREATE", "UPDATE"]
      resources    = ["*/*"]
    }
`)
		}}
	validatingPolicies = kind{"admission_validating_admission_policy", "validatingadmissionpolicies", "demo-policy.yaml",
		func(string, *unstructured.Unstructured) string {
			return `
  spec {
    failure_policy = "Fail"
    match_constraints {
      resource_rules {
        api_groups   = ["apps"]
        api_versions = ["v1"]
        operations   = ["CREATE", "UPDATE"]
        resources    = ["deployments"]
      }
    }
    validations {
      expression = "object.spec.replicas <= 5"
    }
  }
`
		}}
	validatingBindings = kind{"admission_validating_admission_policy_binding", "validatingadmissionpolicybindings", "demo-binding.yaml",
		func(policy string, _ *unstructured.Unstructured) string {
			return fmt.Sprintf(`
  spec {
    policy_name        = %q
    validation_actions = ["Deny"]
    match_resources {
      namespace_selector {
        match_labels = { environment = "test" }
      }
    }
  }
`, policy)
		}}
	mutatingPolicies = kind{"admission_mutating_admission_policy", "mutatingadmissionpolicies", "sidecar-policy.yaml",
		func(_ string, manifest *unstructured.Unstructured) string {
			condition, _ := jsontest.At(manifest.Object, "spec", "matchConditions", 0, "expression")
			apply, _ := jsontest.At(manifest.Object, "spec", "mutations", 0, "applyConfiguration", "expression")
			return fmt.Sprintf(`
  spec {
    failure_policy      = "Fail"
    reinvocation_policy = "IfNeeded"
    match_constraints {
      resource_rules {
        api_groups   = [""]
        api_versions = ["v1"]
        operations   = ["CREATE"]
        resources    = ["pods"]
      }
    }
    match_conditions {
      name       = "does-not-already-have-sidecar"
      expression = %q
    }
    mutations {
      patch_type = "ApplyConfiguration"
      apply_configuration {
        expression = %q
      }
    }
  }
`, condition, apply)
		}}
	mutatingBindings = kind{"admission_mutating_admission_policy_binding", "mutatingadmissionpolicybindings", "sidecar-binding.yaml",
		func(policy string, _ *unstructured.Unstructured) string {
			return fmt.Sprintf(`
  spec {
    policy_name = %q
    match_resources {
      namespace_selector {
        match_labels = { "kubernetes.io/metadata.name" = "adoption-test" }
      }
    }
  }
`, policy)
		}}
)

// kinds are the six kinds, each binding after its policy.
var kinds = []kind{mutatingWebhooks, validatingWebhooks, validatingPolicies, validatingBindings, mutatingPolicies, mutatingBindings}

func (k kind) gvr() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: k.resource}
}

// policyOf is the kind of policy a binding kind names, or nothing.
func (k kind) policyOf() *kind {
	switch k.resourceType {
	case validatingBindings.resourceType:
		return &validatingPolicies
	case mutatingBindings.resourceType:
		return &mutatingPolicies
	}
	return nil
}

// load reads a manifest of testdata.
func load(t *testing.T, file string) *unstructured.Unstructured {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(raw, &u.Object); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return u
}

// tool is a way objects get into a cluster: it makes the object u (a
// manifest, renamed) as that tool does, with its field manager, operation
// and bookkeeping keys.
type tool struct {
	name string // also the prefix of the objects' names
	// what the tool adds to the manifest's metadata, and what it takes away
	// (Argo CD's label tracking overwrites the chart's instance label).
	labels, annotations map[string]string
	// make writes the object.
	make func(t *testing.T, c dynamic.ResourceInterface, u *unstructured.Unstructured)
	// overwrites are the manifest's label keys whose values the tool replaces.
	overwrites []string
}

const argoApp = "platform-admission"

// trackingID is Argo CD's tracking annotation of the cluster-scoped object u
// of its application argoApp: <app>:<group>/<kind>:<namespace>/<name>.
func trackingID(u *unstructured.Unstructured) string {
	return fmt.Sprintf("%s:admissionregistration.k8s.io/%s:/%s", argoApp, u.GetKind(), u.GetName())
}

var tools = []tool{
	{
		// kubectl apply -f: a create with the configuration it applied kept
		// in the last-applied annotation (k8s.io/kubectl/pkg/cmd/apply), by
		// field manager kubectl-client-side-apply.
		name: "kubectl-client-side-apply",
		make: func(t *testing.T, c dynamic.ResourceInterface, u *unstructured.Unstructured) {
			setLastApplied(t, u)
			create(t, c, u, "kubectl-client-side-apply")
		},
	},
	{
		// kubectl apply --server-side: an apply by field manager kubectl.
		name: "kubectl-server-side-apply",
		make: func(t *testing.T, c dynamic.ResourceInterface, u *unstructured.Unstructured) {
			apply(t, c, u, "kubectl")
		},
	},
	{
		// kubectl create -f.
		name: "kubectl-create",
		make: func(t *testing.T, c dynamic.ResourceInterface, u *unstructured.Unstructured) {
			create(t, c, u, "kubectl-create")
		},
	},
	{
		// helm install (Helm 3): a create by field manager helm with the
		// release's annotations and the managed-by label.
		name:        "helm",
		labels:      map[string]string{"app.kubernetes.io/managed-by": "Helm"},
		annotations: map[string]string{"meta.helm.sh/release-name": "cert-manager", "meta.helm.sh/release-namespace": "cert-manager"},
		make:        func(t *testing.T, c dynamic.ResourceInterface, u *unstructured.Unstructured) { create(t, c, u, "helm") },
	},
	{
		// Argo CD 3 (annotation tracking, server-side apply): an apply by
		// field manager argocd-controller with the tracking annotation.
		name: "argocd",
		make: func(t *testing.T, c dynamic.ResourceInterface, u *unstructured.Unstructured) {
			setAnnotations(u, map[string]string{"argocd.argoproj.io/tracking-id": trackingID(u)})
			apply(t, c, u, "argocd-controller")
		},
	},
	{
		// Argo CD with label tracking and client-side apply: a create by its
		// controller, with the last-applied annotation, and the instance
		// label set to the application.
		name:       "argocd-label",
		labels:     map[string]string{"app.kubernetes.io/instance": argoApp},
		overwrites: []string{"app.kubernetes.io/instance"},
		make: func(t *testing.T, c dynamic.ResourceInterface, u *unstructured.Unstructured) {
			setLastApplied(t, u)
			create(t, c, u, "argocd-controller")
		},
	},
	{
		// Flux: an apply by kustomize-controller with the labels of the
		// Kustomization that applied it.
		name:   "flux",
		labels: map[string]string{"kustomize.toolkit.fluxcd.io/name": "infra-controllers", "kustomize.toolkit.fluxcd.io/namespace": "flux-system"},
		make: func(t *testing.T, c dynamic.ResourceInterface, u *unstructured.Unstructured) {
			apply(t, c, u, "kustomize-controller")
		},
	},
	{
		// kubectl apply --server-side, then a controller that annotates the
		// object with an update by its own field manager (and, for webhook
		// configurations, cert-manager's cainjector injecting the CA).
		name: "controller",
		make: func(t *testing.T, c dynamic.ResourceInterface, u *unstructured.Unstructured) {
			apply(t, c, u, "kubectl")
			patch(t, c, u.GetName(), "policy-reporter", map[string]any{"metadata": map[string]any{
				"annotations": map[string]any{controllerKey: "2026-12-01T10:00:00Z"},
			}})
			if strings.HasSuffix(u.GetKind(), "WebhookConfiguration") {
				injectCA(t, c, u)
			}
		},
	},
}

const (
	lastAppliedKey = "kubectl.kubernetes.io/last-applied-configuration"
	controllerKey  = "reports.example.com/last-reconciled"
)

// setLastApplied keeps u, as it is, in the last-applied annotation, as
// kubectl apply does (k8s.io/kubectl/pkg/util CreateApplyAnnotation).
func setLastApplied(t *testing.T, u *unstructured.Unstructured) {
	t.Helper()
	lastApplied, err := json.Marshal(u.Object)
	if err != nil {
		t.Fatal(err)
	}
	setAnnotations(u, map[string]string{lastAppliedKey: string(lastApplied) + "\n"})
}

// merged is m with the entries of add (a new map when m is nil).
func merged(m, add map[string]string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	maps.Copy(m, add)
	return m
}

func setAnnotations(u *unstructured.Unstructured, add map[string]string) {
	u.SetAnnotations(merged(u.GetAnnotations(), add))
}

func create(t *testing.T, c dynamic.ResourceInterface, u *unstructured.Unstructured, manager string) {
	t.Helper()
	if _, err := c.Create(context.Background(), u, metav1.CreateOptions{FieldManager: manager}); err != nil {
		t.Fatalf("create %s %s as %s: %v", u.GetKind(), u.GetName(), manager, err)
	}
}

func apply(t *testing.T, c dynamic.ResourceInterface, u *unstructured.Unstructured, manager string) {
	t.Helper()
	if _, err := c.Apply(context.Background(), u.GetName(), u, metav1.ApplyOptions{FieldManager: manager, Force: true}); err != nil {
		t.Fatalf("apply %s %s as %s: %v", u.GetKind(), u.GetName(), manager, err)
	}
}

// patch updates the object named name with a merge patch by manager: an
// Update in its managed fields, as a controller's client-go patch is.
func patch(t *testing.T, c dynamic.ResourceInterface, name, manager string, p map[string]any) {
	t.Helper()
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Patch(context.Background(), name, k8stypes.MergePatchType, raw, metav1.PatchOptions{FieldManager: manager}); err != nil {
		t.Fatalf("patch %s as %s: %v", name, manager, err)
	}
}

// injectCA sets the caBundle of every webhook of u, as cert-manager's
// cainjector does (an update by field manager cainjector).
func injectCA(t *testing.T, c dynamic.ResourceInterface, u *unstructured.Unstructured) {
	t.Helper()
	cur, err := c.Get(context.Background(), u.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hooks, _, _ := unstructured.NestedSlice(cur.Object, "webhooks")
	for i := range hooks {
		if err := unstructured.SetNestedField(jsontest.Object(t, hooks, i), caBundle, "clientConfig", "caBundle"); err != nil {
			t.Fatal(err)
		}
	}
	if err := unstructured.SetNestedSlice(cur.Object, hooks, "webhooks"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Update(context.Background(), cur, metav1.UpdateOptions{FieldManager: "cainjector"}); err != nil {
		t.Fatalf("inject the CA into %s: %v", u.GetName(), err)
	}
}

// caBundle is a self-signed CA certificate, PEM in base64, as cainjector
// writes it.
var caBundle = func() string {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "cert-manager-webhook-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(365 * 24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		panic(err)
	}
	return base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}()

// object is one object a test made: its kind, name and address.
type object struct {
	kind    kind
	name    string
	label   string
	address string
	// own are the labels and annotations a person adopting it writes: the
	// manifest's, but those the tool overwrote.
	ownLabels, ownAnnotations map[string]string
	// others are the keys of other tools, with their values, that must stay
	// on the server.
	othersLabels, othersAnnotations map[string]string
	// resourceVersion is the object's as the tool left it.
	resourceVersion string
}

// made are the objects of every kind made by one tool.
type made struct {
	tool    tool
	objects []object
}

// makeAll makes an object of every kind from its manifest with tl, named
// <prefix>-<manifest name>, and deletes them when the test ends (if still
// there).
func makeAll(t *testing.T, tl tool, prefix string) made {
	t.Helper()
	return makeAllWith(t, tl, prefix, nil)
}

// makeAllWith is makeAll with extra labels in every manifest.
func makeAllWith(t *testing.T, tl tool, prefix string, extra map[string]string) made {
	t.Helper()
	dyn, err := dynamic.NewForConfig(acctest.Cluster(t).RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	m := made{tool: tl}
	policies := map[string]string{}
	for _, k := range kinds {
		u := load(t, k.manifest)
		name := prefix + "-" + u.GetName()
		u.SetName(name)
		if len(extra) > 0 {
			u.SetLabels(merged(u.GetLabels(), extra))
		}
		if p := k.policyOf(); p != nil {
			if err := unstructured.SetNestedField(u.Object, policies[p.resourceType], "spec", "policyName"); err != nil {
				t.Fatal(err)
			}
		} else {
			policies[k.resourceType] = name
		}
		own := object{kind: k, name: name, label: strings.ReplaceAll(tl.name, "-", "_"), ownLabels: maps.Clone(u.GetLabels()), ownAnnotations: maps.Clone(u.GetAnnotations())}
		for _, key := range tl.overwrites {
			delete(own.ownLabels, key)
		}
		own.address = k.resourceType + "." + own.label
		u.SetLabels(merged(u.GetLabels(), tl.labels))
		setAnnotations(u, tl.annotations)
		c := dyn.Resource(k.gvr())
		tl.make(t, c, u)
		t.Cleanup(func() {
			if err := c.Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("delete %s: %v", name, err)
			}
		})
		// What the server has now, but the object's own keys, is the
		// others' bookkeeping.
		cur, err := c.Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		own.othersLabels, own.othersAnnotations = map[string]string{}, map[string]string{}
		for key, v := range cur.GetLabels() {
			if _, ok := own.ownLabels[key]; !ok {
				own.othersLabels[key] = v
			}
		}
		for key, v := range cur.GetAnnotations() {
			if _, ok := own.ownAnnotations[key]; !ok {
				own.othersAnnotations[key] = v
			}
		}
		own.resourceVersion = cur.GetResourceVersion()
		m.objects = append(m.objects, own)
	}
	return m
}

// hclMap is a map of strings in HCL, keys sorted.
func hclMap(m map[string]string) string {
	keys := slices.Sorted(maps.Keys(m))
	var b strings.Builder
	b.WriteString("{\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "      %q = %q\n", k, m[k])
	}
	b.WriteString("    }")
	return b.String()
}

// metaLines are the labels and annotations lines of a metadata block.
func metaLines(labels, annotations map[string]string) string {
	var b strings.Builder
	if len(labels) > 0 {
		fmt.Fprintf(&b, "    labels = %s\n", hclMap(labels))
	}
	if len(annotations) > 0 {
		fmt.Fprintf(&b, "    annotations = %s\n", hclMap(annotations))
	}
	return b.String()
}

// config is the configuration of the objects of m, each with labels and
// annotations as edit leaves them (nil: their own), and with import blocks
// when imports is set.
func (m made) config(t *testing.T, imports bool, edit func(o object, labels, annotations map[string]string)) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(acctest.ProviderBlock(t))
	policies := map[string]string{}
	for _, o := range m.objects {
		labels, annotations := maps.Clone(o.ownLabels), maps.Clone(o.ownAnnotations)
		if labels == nil {
			labels = map[string]string{}
		}
		if annotations == nil {
			annotations = map[string]string{}
		}
		if edit != nil {
			edit(o, labels, annotations)
		}
		policy := ""
		if p := o.kind.policyOf(); p != nil {
			policy = policies[p.resourceType]
		} else {
			policies[o.kind.resourceType] = o.name
		}
		b.WriteString(o.kind.config(o.label, o.name, metaLines(labels, annotations), policy, load(t, o.kind.manifest)))
		if imports {
			fmt.Fprintf(&b, "\nimport {\n  to = %s\n  id = %q\n}\n", o.address, o.name)
		}
	}
	return b.String()
}
