package typecheck_test

import (
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/restmapper"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/typecheck"
)

// TestAccBuiltinSameAsLiveDiscovery compares the warnings from the embedded snapshot with those of
// the server's TypeChecker resolving the same kinds through the live discovery and OpenAPI v3
// (k8s.io/apiserver pkg/cel/openapi/resolver ClientDiscoveryResolver): trimming the schemas
// must change no type.
func TestAccBuiltinSameAsLiveDiscovery(t *testing.T) {
	cp := liveCluster(t)
	dc, err := discovery.NewDiscoveryClientForConfig(cp.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	groups, err := restmapper.GetAPIGroupResources(dc)
	if err != nil {
		t.Fatal(err)
	}
	server := &validating.TypeChecker{
		SchemaResolver: &resolver.ClientDiscoveryResolver{Discovery: dc},
		RestMapper:     restmapper.NewDiscoveryRESTMapper(groups),
	}
	ours := typecheck.New(nil)
	for name, p := range parityPolicies() {
		var want []typecheck.Warning
		for _, w := range server.Check(p) {
			want = append(want, typecheck.Warning{Field: w.FieldRef, Message: w.Warning})
		}
		got := ours.ValidatingPolicy(p)
		if len(want) < 5 {
			t.Errorf("%s: the server found only %d issues, the comparison shows little", name, len(want))
		}
		if diff := cmp.Diff(normalizeTypeNames(want), normalizeTypeNames(got)); diff != "" {
			t.Errorf("%s (-server +ours):\n%s", name, diff)
		}
	}
}

// parityPolicies have validations on a variety of kinds and of field types: integers,
// int-or-string, quantities, timestamps, bytes, maps, lists, embedded raw objects.
func parityPolicies() map[string]*admissionregistrationv1.ValidatingAdmissionPolicy {
	workloads := []admissionregistrationv1.NamedRuleWithOperations{
		rule("", "v1", "pods", "services", "configmaps", "secrets"),
		rule("apps", "v1", "deployments", "statefulsets", "daemonsets", "controllerrevisions"),
		rule("batch", "v1", "jobs", "cronjobs"),
	}
	others := []admissionregistrationv1.NamedRuleWithOperations{
		rule("networking.k8s.io", "v1", "ingresses", "networkpolicies"),
		rule("rbac.authorization.k8s.io", "v1", "clusterroles"),
		rule("autoscaling", "v2", "horizontalpodautoscalers"),
		rule("admissionregistration.k8s.io", "v1", "validatingadmissionpolicies", "mutatingadmissionpolicies"),
		rule("resource.k8s.io", "v1", "resourceclaims"),
	}
	exprs := []string{
		"object.spec.replicas > 3",
		"object.spec.replicass > 3",
		"object.spec == 1",
		"object.metadata.creationTimestamp < timestamp('2020-01-01T00:00:00Z')",
		"object.metadata.labels.all(k, k.startsWith('a'))",
		"object.spec.template.spec.containers.all(c, c.resources.limits['cpu'] == '1')",
		"quantity(object.spec.template.spec.containers[0].resources.limits['memory']).isGreaterThan(quantity('1Gi'))",
		"object.spec.strategy.rollingUpdate.maxSurge > 1",
		"object.data['x'] == b'y'",
		"object.data.x.size() > 0",
		"object.spec.ports.exists(p, p.targetPort == 80)",
		"object.spec.rules.all(r, has(r.host))",
		"object.rules.exists(r, r.verbs.exists(v, v == '*'))",
		"object.spec.metrics[0].resource.target.averageUtilization > 50",
		"object.spec.validations.all(v, v.expression != '')",
		"object.spec.devices.requests.size() > 0",
		"object.data.raw == 1",
		"object.spec.jobTemplate.spec.template.spec.restartPolicy == 'Never'",
		"object.status.conditions.exists(c, c.lastTransitionTime > now)",
	}
	return map[string]*admissionregistrationv1.ValidatingAdmissionPolicy{
		"workloads": policy(workloads, exprs...),
		"others":    policy(others, exprs...),
	}
}

// typeNameSuffix is the unique number the server's TypeChecker appends to the name of each
// kind's CEL type (generateUniqueTypeName): it differs between two runs.
var typeNameSuffix = regexp.MustCompile(`\b([A-Z][A-Za-z]*)[0-9]+\b`)

func normalizeTypeNames(ws []typecheck.Warning) []typecheck.Warning {
	out := make([]typecheck.Warning, len(ws))
	for i, w := range ws {
		out[i] = typecheck.Warning{Field: w.Field, Message: typeNameSuffix.ReplaceAllString(w.Message, "$1")}
	}
	return out
}
