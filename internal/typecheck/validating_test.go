package typecheck_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/typecheck"
)

// The messages below are kube-apiserver's (status.typeChecking.expressionWarnings[].warning):
// the kind, then cel-go's issues.

func TestValidatingPolicyTypoInDeployment(t *testing.T) {
	got := typecheck.New(nil).ValidatingPolicy(policy(deployments(), "object.spec.replicass > 3"))
	want := []typecheck.Warning{{
		Field: "spec.validations[0].expression",
		Message: "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicass'\n" +
			" | object.spec.replicass > 3\n" +
			" | ...........^\n",
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestValidatingPolicyCorrectExpressionsNoWarning(t *testing.T) {
	p := policy(deployments(),
		"object.spec.replicas > 3",
		"object.spec.template.spec.containers.all(c, c.image.startsWith('registry.example.com/'))",
		"has(object.metadata.labels) && 'app' in object.metadata.labels",
		"oldObject == null || object.spec.selector == oldObject.spec.selector",
		"request.operation == 'CREATE' && namespaceObject.metadata.name != 'kube-system'",
		"authorizer.group('apps').resource('deployments').check('update').allowed()",
		"type(object.spec.strategy.rollingUpdate.maxSurge) == string",
	)
	p.Spec.Validations[0].MessageExpression = "'replicas: ' + string(object.spec.replicas)"
	if got := typecheck.New(nil).ValidatingPolicy(p); len(got) != 0 {
		t.Errorf("want no warning, got %q", got)
	}
}

func TestValidatingPolicyEveryExpressionField(t *testing.T) {
	p := policy(deployments(), "object.spec.replicas > 3", "object.spec.paused")
	p.Spec.Validations[1].MessageExpression = "object.spec.pausedd ? 'paused' : 'not paused'"
	p.Spec.AuditAnnotations = []admissionregistrationv1.AuditAnnotation{
		{Key: "ok", ValueExpression: "string(object.spec.replicas)"},
		{Key: "typo", ValueExpression: "object.spec.strategy.typee"},
	}
	p.Spec.MatchConditions = []admissionregistrationv1.MatchCondition{
		{Name: "ok", Expression: "object.spec.replicas != 0"},
		{Name: "typo", Expression: "object.metadata.labelz['a'] == 'b'"},
	}
	var fields []string
	for _, w := range typecheck.New(nil).ValidatingPolicy(p) {
		fields = append(fields, w.Field)
		if !strings.HasPrefix(w.Message, "apps/v1, Kind=Deployment: ERROR: <input>:1:") || !strings.Contains(w.Message, "undefined field") {
			t.Errorf("%s: unexpected message %q", w.Field, w.Message)
		}
	}
	want := []string{
		"spec.validations[1].messageExpression",
		"spec.auditAnnotations[1].valueExpression",
		"spec.matchConditions[1].expression",
	}
	if diff := cmp.Diff(want, fields); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
}

func TestValidatingPolicyParamsTypedFromParamKind(t *testing.T) {
	p := policy(deployments(),
		"object.metadata.name in params.data",
		"params.dataa.size() > 0",
	)
	p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
	got := typecheck.New(nil).ValidatingPolicy(p)
	if len(got) != 1 || got[0].Field != "spec.validations[1].expression" || !strings.Contains(got[0].Message, "undefined field 'dataa'") {
		t.Errorf("want one warning on validations[1] about dataa, got %q", got)
	}

	// A paramKind that does not resolve leaves params dyn: no warning.
	p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "example.com/v1", Kind: "Nothing"}
	if got := typecheck.New(nil).ValidatingPolicy(p); len(got) != 0 {
		t.Errorf("unresolved paramKind: want no warning, got %q", got)
	}

	// Without paramKind there is no params variable, as on the server.
	p.Spec.ParamKind = nil
	if got := typecheck.New(nil).ValidatingPolicy(p); len(got) != 2 || !strings.Contains(got[0].Message, "undeclared reference to 'params'") {
		t.Errorf("no paramKind: want two warnings about params, got %q", got)
	}
}

func TestValidatingPolicyVariablesTypedInOrder(t *testing.T) {
	p := policy(deployments(),
		"variables.replicas > 3",
		"variables.replicas == 'three'",
		"variables.image.startsWith('registry.example.com/')",
	)
	p.Spec.Variables = []admissionregistrationv1.Variable{
		{Name: "replicas", Expression: "object.spec.replicas"},
		{Name: "image", Expression: "object.spec.template.spec.containers[0].image"},
		{Name: "early", Expression: "variables.late + 1"},
		{Name: "late", Expression: "variables.replicas * 2"},
		{Name: "typo", Expression: "object.spec.replicass"},
	}
	got := typecheck.New(nil).ValidatingPolicy(p)
	want := map[string]string{
		"spec.validations[1].expression": "found no matching overload for '_==_' applied to '(int, string)'",
		"spec.variables[2].expression":   "undefined field 'late'",
		"spec.variables[4].expression":   "undefined field 'replicass'",
	}
	if len(got) != len(want) {
		t.Errorf("want %d warnings, got %q", len(want), got)
	}
	for _, w := range got {
		if !strings.Contains(w.Message, want[w.Field]) || want[w.Field] == "" {
			t.Errorf("%s: want a message with %q, got %q", w.Field, want[w.Field], w.Message)
		}
	}
}

func TestValidatingPolicyKindsNotChecked(t *testing.T) {
	typo := "object.spec.replicass > 3"
	for name, rules := range map[string][]admissionregistrationv1.NamedRuleWithOperations{
		"no rules":           nil,
		"wildcard resources": {rule("apps", "v1", "*")},
		"wildcard group":     {rule("*", "v1", "deployments")},
		"wildcard version":   {rule("apps", "*", "deployments")},
		"subresource":        {rule("apps", "v1", "deployments/status")},
		"unknown resource":   {rule("apps", "v1", "deploymentz")},
		"unknown group":      {rule("example.com", "v1", "widgets")},
	} {
		t.Run(name, func(t *testing.T) {
			if got := typecheck.New(nil).ValidatingPolicy(policy(rules, typo)); len(got) != 0 {
				t.Errorf("want no warning, got %q", got)
			}
		})
	}
	t.Run("no matchConstraints", func(t *testing.T) {
		p := policy(nil, typo)
		p.Spec.MatchConstraints = nil
		if got := typecheck.New(nil).ValidatingPolicy(p); len(got) != 0 {
			t.Errorf("want no warning, got %q", got)
		}
	})
	t.Run("nil policy", func(t *testing.T) {
		if got := typecheck.New(nil).ValidatingPolicy(nil); len(got) != 0 {
			t.Errorf("want no warning, got %q", got)
		}
	})
}

func TestValidatingPolicyOneMessagePartPerKind(t *testing.T) {
	p := policy([]admissionregistrationv1.NamedRuleWithOperations{
		rule("", "v1", "pods"),
		rule("apps", "v1", "deployments", "statefulsets", "daemonsets"),
		rule("batch", "v1", "jobs"),
	}, "object.spec.replicass > 3", "object.metadata.name != ''")
	got := typecheck.New(nil).ValidatingPolicy(p)
	if len(got) != 1 {
		t.Fatalf("want one warning, got %q", got)
	}
	// In the server's order: by group, version, kind.
	var kinds []string
	for _, part := range strings.Split(strings.TrimSuffix(got[0].Message, "\n"), "\n\n") {
		kinds = append(kinds, part[:strings.Index(part, ":")])
	}
	want := []string{"/v1, Kind=Pod", "apps/v1, Kind=DaemonSet", "apps/v1, Kind=Deployment", "apps/v1, Kind=StatefulSet", "batch/v1, Kind=Job"}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("kinds (-want +got):\n%s\nmessage:\n%s", diff, got[0].Message)
	}
}

func TestValidatingPolicyNeverPanics(t *testing.T) {
	p := policy(deployments(),
		"{b'a': 1}[b'a'] == 1",
		"object.spec.replicas >",
		"",
		"   ",
		strings.Repeat("(", 500)+"1"+strings.Repeat(")", 500),
	)
	_ = typecheck.New(nil).ValidatingPolicy(p)
}

func TestConcurrent(t *testing.T) {
	c := typecheck.New(nil)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			expr := []string{"object.spec.replicass > 3", "object.spec.replicas > 3"}[i%2]
			got := c.ValidatingPolicy(policy(deployments(), expr))
			if want := 1 - i%2; len(got) != want {
				t.Errorf("%s: want %d warnings, got %q", expr, want, got)
			}
			mexpr := []string{"Object{spec: Object.spec{replicass: 3}}", "Object{spec: Object.spec{replicas: 3}}"}[i%2]
			got = c.MutatingPolicy(mutatingPolicy(deployments(), mexpr))
			if want := 1 - i%2; len(got) != want {
				t.Errorf("%s: want %d warnings, got %q", mexpr, want, got)
			}
		})
	}
	wg.Wait()
}
