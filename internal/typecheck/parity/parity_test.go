// Package parity compares internal/typecheck with what kube-controller-manager's
// ValidatingAdmissionPolicy status controller writes in status.typeChecking: the server's
// TypeChecker over the Go OpenAPI definitions of the built-in types (k8s.io/kubernetes
// v1.37.2 pkg/generated/openapi, as cmd/kube-controller-manager
// newValidatingAdmissionPolicyStatusController builds it), where internal/typecheck resolves
// the same kinds from the OpenAPI v3 documents that kube-apiserver serves. It lives in its own
// module because the main module cannot import k8s.io/kubernetes.
//
//	cd internal/typecheck/parity && go test .
package parity

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsscheme "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/scheme"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	k8sscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/restmapper"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kubernetes/pkg/generated/openapi"
	"sigs.k8s.io/yaml"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/builtinapi/snapshot"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/typecheck"
)

// statusController is the type checker of the status controller. Its RESTMapper comes from
// the live discovery, and the kinds that have no Go definition (APIService) are resolved
// through the live discovery's OpenAPI v3 (resolver.ClientDiscoveryResolver); the embedded
// snapshot stands for both (TestAccBuiltinIsFresh).
func statusController(t *testing.T) *validating.TypeChecker {
	t.Helper()
	data, err := os.ReadFile("../../builtinapi/builtin.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	snap, err := snapshot.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	return &validating.TypeChecker{
		SchemaResolver: resolver.NewDefinitionsSchemaResolver(openapi.GetOpenAPIDefinitions, k8sscheme.Scheme, apiextensionsscheme.Scheme).
			Combine(served{snap}),
		RestMapper: restmapper.NewDiscoveryRESTMapper(snap.GroupResources()),
	}
}

// served resolves kinds from the served OpenAPI v3 documents, as ClientDiscoveryResolver.
type served struct{ snap *snapshot.Snapshot }

func (s served) ResolveSchema(gvk schema.GroupVersionKind) (*spec.Schema, error) {
	name, ok := s.snap.KindSchemas()[gvk]
	if !ok {
		return nil, fmt.Errorf("%v: %w", gvk, resolver.ErrSchemaNotFound)
	}
	return resolver.PopulateRefs(func(ref string) (*spec.Schema, bool) {
		raw, ok := s.snap.Schemas[strings.TrimPrefix(ref, snapshot.RefPrefix)]
		if !ok {
			return nil, false
		}
		out := new(spec.Schema)
		return out, json.Unmarshal(raw, out) == nil
	}, snapshot.RefPrefix+name)
}

type resource struct{ group, version, resource string }

// resources are the kinds the policies match, one policy each.
var resources = []resource{
	{"", "v1", "pods"}, {"", "v1", "services"}, {"", "v1", "configmaps"}, {"", "v1", "secrets"},
	{"", "v1", "namespaces"}, {"", "v1", "nodes"}, {"", "v1", "persistentvolumeclaims"},
	{"", "v1", "serviceaccounts"}, {"", "v1", "endpoints"}, {"", "v1", "events"},
	{"apps", "v1", "deployments"}, {"apps", "v1", "statefulsets"}, {"apps", "v1", "daemonsets"},
	{"apps", "v1", "controllerrevisions"}, {"batch", "v1", "jobs"}, {"batch", "v1", "cronjobs"},
	{"networking.k8s.io", "v1", "ingresses"}, {"networking.k8s.io", "v1", "networkpolicies"},
	{"rbac.authorization.k8s.io", "v1", "clusterroles"}, {"autoscaling", "v2", "horizontalpodautoscalers"},
	{"policy", "v1", "poddisruptionbudgets"}, {"storage.k8s.io", "v1", "storageclasses"},
	{"scheduling.k8s.io", "v1", "priorityclasses"}, {"coordination.k8s.io", "v1", "leases"},
	{"resource.k8s.io", "v1", "resourceclaims"}, {"certificates.k8s.io", "v1", "certificatesigningrequests"},
	{"admissionregistration.k8s.io", "v1", "validatingadmissionpolicies"},
	{"admissionregistration.k8s.io", "v1", "mutatingadmissionpolicies"},
	{"admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations"},
	{"apiextensions.k8s.io", "v1", "customresourcedefinitions"},
	{"apiregistration.k8s.io", "v1", "apiservices"},
}

// expressions are checked against every kind: most fit some kinds and not others, so each
// gives warnings for some and none for others.
var expressions = []string{
	"object.metadata.name.startsWith('a')",
	"object.metadata.labelz['a'] == 'b'",
	"object.metadata.creationTimestamp > timestamp('2020-01-01T00:00:00Z')",
	"object.spec == 1",
	"object.spec.replicas > 3",
	"object.spec.replicass > 3",
	"object.spec.template.spec.containers.all(c, c.image.startsWith('r/'))",
	"object.spec.template.spec.containers.all(c, c.resources.limits['cpu'] == '1')",
	"object.spec.containers.exists(c, c.securityContext.privileged)",
	"object.spec.strategy.rollingUpdate.maxSurge == '25%'",
	"object.spec.jobTemplate.spec.backoffLimit > 1",
	"object.spec.ports.all(p, p.port > 0 && p.targetPort != 0)",
	"object.spec.selector.matchLabels.size() > 0",
	"object.spec.podSelector.matchExpressions.size() > 0",
	"object.spec.accessModes.exists(m, m == 'ReadWriteOnce')",
	"object.spec.resources.requests['storage'] == '1Gi'",
	"object.status.conditions.exists(c, c.type == 'Ready' && c.lastTransitionTime > now)",
	"object.data.x == 'y'",
	"object.binaryData['x'] == b'y'",
	"object.stringData.x == 'y'",
	"object.data.raw == 1",
	"object.rules.all(r, r.verbs.all(v, v != '*'))",
	"object.webhooks.all(w, w.sideEffects == 'None' && w.timeoutSeconds < 10)",
	"object.spec.validations.all(v, v.expression.size() > 0)",
	"object.spec.mutations.all(m, m.patchType == 'JSONPatch')",
	"object.spec.versions.all(v, v.schema.openAPIV3Schema.type == 'object')",
	"object.spec.caBundle.size() > 0",
	"object.provisioner.startsWith('x')",
	"object.value > 1000",
	"object.spec.metrics[0].resource.target.averageUtilization > 50",
	"object.spec.devices.requests.size() > 0",
	"object.spec.holderIdentity == 'me'",
	"object.spec.request.size() > 0 && object.spec.signerName != ''",
	"object.secrets.size() < 2",
	"object.subsets.size() > 0",
	"params.data.x == 'y'",
	"variables.size > 1",
}

func policyFor(r resource) *admissionregistrationv1.ValidatingAdmissionPolicy {
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{}
	p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
	p.Spec.Variables = []admissionregistrationv1.Variable{{Name: "size", Expression: "object.metadata.name.size()"}}
	p.Spec.MatchConstraints = &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
		RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{r.group}, APIVersions: []string{r.version}, Resources: []string{r.resource}},
		},
	}}}
	for _, e := range expressions {
		p.Spec.Validations = append(p.Spec.Validations, admissionregistrationv1.Validation{Expression: e})
	}
	return p
}

// TestSameAsStatusController requires, for every policy, the warnings of the status
// controller: the same fields, the same messages (but for the number the server appends to
// each kind's type name).
func TestSameAsStatusController(t *testing.T) {
	server := statusController(t)
	ours := typecheck.New(nil)
	total := 0
	for _, r := range resources {
		p := policyFor(r)
		var want []typecheck.Warning
		for _, w := range server.Check(p) {
			want = append(want, typecheck.Warning{Field: w.FieldRef, Message: w.Warning})
		}
		total += len(want)
		if diff := cmp.Diff(normalize(want), normalize(ours.ValidatingPolicy(p))); diff != "" {
			t.Errorf("%s/%s %s (-status controller +ours):\n%s", r.group, r.version, r.resource, diff)
		}
	}
	t.Logf("%d policies, %d expressions each, %d warnings of the status controller", len(resources), len(expressions), total)
	if total < len(resources)*len(expressions)/2 {
		t.Errorf("only %d warnings: the comparison shows little", total)
	}
}

// typeNameSuffix is the unique number the server's TypeChecker appends to each kind's CEL type
// name (generateUniqueTypeName).
var typeNameSuffix = regexp.MustCompile(`\b([A-Z][A-Za-z]*)[0-9]+\b`)

func normalize(ws []typecheck.Warning) []typecheck.Warning {
	out := make([]typecheck.Warning, len(ws))
	for i, w := range ws {
		out[i] = typecheck.Warning{Field: w.Field, Message: typeNameSuffix.ReplaceAllString(w.Message, "$1")}
	}
	return out
}

// TestRealPolicySameAsStatusController is TestSameAsStatusController on a policy on ten
// kinds of the shape real ones have (../testdata/resource-limit-types.yaml), whose findings include fields the type
// checker does not see (the limits of a container's resources, maps of quantities), as the
// status controller does not.
func TestRealPolicySameAsStatusController(t *testing.T) {
	raw, err := os.ReadFile("../testdata/resource-limit-types.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var p admissionregistrationv1.ValidatingAdmissionPolicy
	if err := yaml.UnmarshalStrict(raw, &p); err != nil {
		t.Fatal(err)
	}
	var want []typecheck.Warning
	for _, w := range statusController(t).Check(&p) {
		want = append(want, typecheck.Warning{Field: w.FieldRef, Message: w.Warning})
	}
	if len(want) == 0 {
		t.Fatal("the status controller has no warning on the policy: the comparison shows nothing")
	}
	if diff := cmp.Diff(normalize(want), normalize(typecheck.New(nil).ValidatingPolicy(&p))); diff != "" {
		t.Errorf("(-status controller +ours):\n%s", diff)
	}
	for _, w := range want {
		if strings.Contains(w.Message, "undefined field 'limits'") {
			t.Logf("the status controller also finds undefined field 'limits' in %s", w.Field)
			break
		}
	}
}
