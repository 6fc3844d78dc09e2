package validation

import (
	"encoding/json"
	"reflect"
	"testing"
)

// fuzzSeeds are JSON objects as a client would send them: valid, broken against each group of
// the server's rules, and odd in shape.
var fuzzSeeds = []string{
	`{"metadata":{"name":"example"},"webhooks":[{"name":"a.example.com","clientConfig":{"service":{"namespace":"webhooks","name":"svc","path":"/mutate"}},"rules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["pods"]}],"sideEffects":"None","admissionReviewVersions":["v1"]}]}`,
	`{"metadata":{"generateName":"Bad-","labels":{"a/b/c":"-"},"annotations":{"A B":"x"},"finalizers":["orphan","foregroundDeletion"],"ownerReferences":[{"controller":true},{"apiVersion":"a/b/c","controller":true}]}}`,
	`{"metadata":{"name":"x.static.k8s.io","namespace":"ns","generation":-4},"webhooks":[{"name":"a.b","clientConfig":{"url":"example.com/x?q#f","caBundle":"aGVsbG8="},"rules":[{"operations":["*","create"],"apiGroups":["*",""],"apiVersions":["",""],"resources":["pods/*","pods/log","*","pods","*/*","*/x","a/x"],"scope":"cluster"}],"failurePolicy":"","matchPolicy":"x","sideEffects":"Some","timeoutSeconds":0,"admissionReviewVersions":["v2","v2","V3"],"reinvocationPolicy":"IfNeeded"}]}`,
	`{"metadata":{"name":"m"},"webhooks":[{"name":"","clientConfig":{},"namespaceSelector":{"matchLabels":{"":""},"matchExpressions":[{"key":"","operator":"in","values":["-"]},{"key":"a","operator":"Exists","values":["x"]},{"key":"b","operator":"In"}]},"objectSelector":{},"admissionReviewVersions":[]},{"name":"","clientConfig":{"url":"https://h","service":{"name":"","namespace":"","port":0,"path":"//"}}}]}`,
	`{"metadata":{"name":"m"},"webhooks":[{"name":"a.b.c","clientConfig":{"service":{"name":"s","namespace":"n","path":"/a//B/"}},"sideEffects":"NoneOnDryRun","admissionReviewVersions":["v1beta1"],"matchConditions":[{"name":"","expression":"  "},{"name":"x","expression":"object.spec.enabled"},{"name":"x","expression":"params.x == 1"},{"name":"a/b/c","expression":"[1].includes(1)"},{"name":"ok","expression":"request.namespace != 'kube-system' && [3,1].sort() == [1,3]"},{"name":"syntax","expression":"object.x["}]}]}`,
	`{"webhooks":[{"name":"a.b.c","rules":[{"apiGroups":["authentication.k8s.io","authorization.k8s.io"],"resources":["tokenreviews","subjectaccessreviews"],"operations":["CREATE"],"apiVersions":["v1"]}],"clientConfig":{"url":"HTTPS://h:99999/#"},"sideEffects":"None","admissionReviewVersions":["v1"],"timeoutSeconds":31}]}`,
	`{"metadata":{"name":"m","managedFields":[{"operation":"x","fieldsType":"y"}]},"webhooks":[{},{},{"rules":[{}]}]}`,
	`{}`,
}

// FuzzValidate feeds decoded objects to Default, Validate and ServerWarnings (internal/advice
// fuzzes its own). None may panic; Validate
// must be deterministic. (That every error path maps to an attribute is checked where the schema
// is, in internal/webhook.)
func FuzzValidate(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var in mwc
		if err := json.Unmarshal(data, &in); err != nil {
			return
		}
		obj := Default(&in)
		errs := Validate(obj)
		for _, e := range errs {
			_ = Message(e)
		}
		// The compile cache must not change a result.
		if again := Validate(obj); !reflect.DeepEqual(again, errs) {
			t.Errorf("Validate is not deterministic:\n%s\nthen\n%s", dump(errs), dump(again))
		}
		// Validating the undefaulted object must not panic either.
		Validate(&in)
		ServerWarnings(Assumed, &in, false)
	})
}
