package advice

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"sigs.k8s.io/yaml"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

type mwc = admissionregistrationv1.MutatingWebhookConfiguration

// validYAML is a configuration the server accepts: one webhook on pod creates, served by a
// service in namespace "webhooks", with no selector.
const validYAML = `
metadata: {name: example}
webhooks:
- name: a.example.com
  clientConfig: {service: {namespace: webhooks, name: svc, path: /mutate}}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]
  sideEffects: None
  admissionReviewVersions: [v1]
`

// valid returns validYAML, defaulted.
func valid() *mwc {
	var o mwc
	if err := yaml.Unmarshal([]byte(validYAML), &o); err != nil {
		panic(err)
	}
	return validation.Default(&o)
}

// hook0 and rule0 are the first webhook of o and its first rule.
func hook0(o *mwc) *admissionregistrationv1.MutatingWebhook    { return &o.Webhooks[0] }
func rule0(o *mwc) *admissionregistrationv1.RuleWithOperations { return &hook0(o).Rules[0] }

// ops are operation types.
func ops(names ...string) (out []admissionregistrationv1.OperationType) {
	for _, n := range names {
		out = append(out, admissionregistrationv1.OperationType(n))
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// Warnings is Advice and the warnings of a kube-apiserver of version validation.Assumed on a
// create (validation.ServerWarnings): everything the plan warns about a webhook configuration
// offline.
func Warnings(obj *admissionregistrationv1.MutatingWebhookConfiguration) []warning.Warning {
	return append(Advice(obj, nil, true), validation.ServerWarnings(validation.Assumed, obj, false)...)
}
