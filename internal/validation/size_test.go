package validation

import (
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestSizeErrors(t *testing.T) {
	if errs := SizeErrors(valid()); len(errs) != 0 {
		t.Fatalf("a small object: %s", dump(errs))
	}
	// 2 MiB in one annotation: over etcd's limit, not over the request's.
	o := valid()
	o.Annotations = map[string]string{"big": strings.Repeat("a", 2<<20)}
	errs := SizeErrors(o)
	checkCauses(t, errs, []cause{{field.ErrorTypeTooLong, "metadata.annotations", ""}})
	if !strings.Contains(errs[0].Detail, "etcd") || !strings.Contains(Message(errs[0]), "Too long: the object is at least 2.00 MiB") {
		t.Errorf("message: %s", Message(errs[0]))
	}
	// 5 MiB in the caBundle of the third webhook: over both, on that attribute.
	o = valid()
	o.Webhooks = append(o.Webhooks, validHook("b.example.com"), validHook("c.example.com"))
	o.Webhooks[2].ClientConfig.CABundle = []byte(strings.Repeat("x", 5<<20))
	errs = SizeErrors(o)
	checkCauses(t, errs, []cause{
		{field.ErrorTypeTooLong, "webhooks[2].clientConfig.caBundle", ""},
		{field.ErrorTypeTooLong, "webhooks[2].clientConfig.caBundle", ""},
	})
	if !strings.Contains(errs[0].Detail, "413") {
		t.Errorf("message: %s", errs[0].Detail)
	}
	// Many webhooks of 40 KiB each: no one of them is the cause; the list is.
	o = valid()
	h := validHook("a.example.com")
	h.ClientConfig.CABundle = []byte(strings.Repeat("x", 40<<10))
	o.Webhooks = nil
	for range 100 {
		o.Webhooks = append(o.Webhooks, h)
	}
	checkCauses(t, SizeErrors(o), []cause{{field.ErrorTypeTooLong, "webhooks", ""}, {field.ErrorTypeTooLong, "webhooks", ""}})
	// The check of a kind reports it at every version, so ValidateConfig does.
	p := validPolicy()
	p.Spec.Validations = []admissionregistrationv1.Validation{{Expression: "true", Message: strings.Repeat("a", 4<<20)}}
	errs = Offline(ValidatingPolicyCheck(p, nil))
	if len(errs) != 2 || errs[0].Field != "spec.validations[0].message" || errs[1].Field != errs[0].Field {
		for _, e := range errs {
			t.Errorf("offline: %s %s", e.Field, e.Type)
		}
	}
}
