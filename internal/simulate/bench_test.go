package simulate

import (
	"context"
	"fmt"
	"testing"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/jsontest"
)

const fiveValidations = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: five}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
    namespaceSelector:
      matchExpressions:
      - {key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system]}
  variables:
  - {name: max, expression: int(params.data.max)}
  validations:
  - expression: object.spec.replicas <= variables.max
    messageExpression: "'at most ' + string(variables.max) + ' replicas'"
  - expression: has(object.metadata.labels) && 'team' in object.metadata.labels
    message: needs a team label
  - expression: object.metadata.name.matches('^[a-z][a-z0-9-]*$')
  - expression: object.spec.template.spec.containers.all(c, !c.image.endsWith(':latest'))
    message: no latest images
  - expression: request.userInfo.username != 'system:anonymous'
`

// BenchmarkValidate evaluates a policy of five validations against 1,000
// requests per iteration, each call as the function makes it (decoding the
// policy, binding and request, evaluating): with the compiled policy
// cached, as for every call after the first, and compiled for each request.
func BenchmarkValidate(b *testing.B) {
	b.Run("cached", func(b *testing.B) { benchmarkValidate(b, false) })
	b.Run("compiled each time", func(b *testing.B) { benchmarkValidate(b, true) })
}

func benchmarkValidate(b *testing.B, cold bool) {
	var policyTree, bindingTree any
	policyTree = benchTree(b, fiveValidations)
	bindingTree = benchTree(b, `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: five}
spec:
  policyName: five
  validationActions: [Deny]
  paramRef: {name: limits, namespace: default, parameterNotFoundAction: Deny}
`)
	limits := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "limits", "namespace": "default"}, "data": map[string]any{"max": "5"}}
	var requests []map[string]any
	for i := 0; i < 1000; i++ {
		d := deployment([]string{"default", "apps", "kube-system"}[i%3], i%8)
		jsontest.Object(b, d, "metadata")["name"] = fmt.Sprintf("web-%d", i)
		if i%2 == 0 {
			jsontest.Object(b, d, "metadata")["labels"] = map[string]any{"team": "a"}
		}
		jsontest.Object(b, d, "spec")["template"] = map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "app", "image": []string{"nginx:1.27", "nginx:latest"}[i%2]}}}}
		requests = append(requests, map[string]any{"object": d, "params": []any{limits}})
	}
	ctx := context.Background()
	denied := 0
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		denied = 0
		for _, rq := range requests {
			if cold {
				validatingCache = compileCache[compiledValidating]{}
			}
			var p ValidatingPolicy
			var bd ValidatingBinding
			if err := DecodeAPIObject(policyTree, "ValidatingAdmissionPolicy", &p); err != nil {
				b.Fatal(err)
			}
			if err := DecodeAPIObject(bindingTree, "ValidatingAdmissionPolicyBinding", &bd); err != nil {
				b.Fatal(err)
			}
			r, err := ParseRequest(rq)
			if err != nil {
				b.Fatal(err)
			}
			res, err := Validate(ctx, &p, &bd, r)
			if err != nil {
				b.Fatal(err)
			}
			if !res.Allowed {
				denied++
			}
		}
	}
	b.StopTimer()
	if denied == 0 || denied == len(requests) {
		b.Fatalf("%d of %d denied: the benchmark does not exercise both verdicts", denied, len(requests))
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(requests))/1e3, "µs/request")
}

func benchTree(b *testing.B, y string) any {
	b.Helper()
	t := &testing.T{}
	return tree(t, y)
}
