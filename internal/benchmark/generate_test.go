package benchmark

import (
	"bytes"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// The harness must give both tools the same, valid objects.

func TestObjectsAreValid(t *testing.T) {
	for _, changed := range []bool{false, true} {
		for _, o := range Objects(3, changed) {
			if errs := validation.Validate(validation.Default(o.DeepCopy())); len(errs) > 0 {
				t.Errorf("%s: %v", o.Name, errs)
			}
		}
	}
}

func TestChangedDiffersInOneField(t *testing.T) {
	before, after := Objects(2, false), Objects(2, true)
	for i := range before {
		b, a := before[i].DeepCopy(), after[i].DeepCopy()
		if *a.Webhooks[0].TimeoutSeconds == *b.Webhooks[0].TimeoutSeconds {
			t.Fatalf("%s: timeout unchanged", a.Name)
		}
		a.Webhooks[0].TimeoutSeconds = b.Webhooks[0].TimeoutSeconds
		if !equality.Semantic.DeepEqual(a, b) {
			t.Errorf("%s: more than the timeout changed", a.Name)
		}
	}
}

func TestYAMLRoundTrip(t *testing.T) {
	objs := Objects(3, false)
	data, err := YAML(objs)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("null")) {
		t.Errorf("YAML has nulls:\n%s", data)
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for i := 0; ; i++ {
		var got admissionregistrationv1.MutatingWebhookConfiguration
		if err := dec.Decode(&got); err != nil {
			if i != len(objs) {
				t.Fatalf("decoded %d objects, want %d: %v", i, len(objs), err)
			}
			break
		}
		if i >= len(objs) || !equality.Semantic.DeepEqual(&got, objs[i]) {
			t.Errorf("object %d differs after the YAML round trip", i)
		}
	}
}

func TestHCL(t *testing.T) {
	src := string(HCL(Objects(4, false)))
	if n := strings.Count(src, `resource "admission_mutating_webhook_configuration"`); n != 4 {
		t.Errorf("%d resource blocks, want 4", n)
	}
	if n := strings.Count(src, "match_conditions {"); n != 4*WebhooksPerObject*conditionsPerWebook {
		t.Errorf("%d match_conditions blocks", n)
	}
	if strings.Count(src, "{") != strings.Count(src, "}") {
		t.Error("unbalanced braces")
	}
}

func TestHCLString(t *testing.T) {
	for in, want := range map[string]string{
		`a"b\c`:       `"a\"b\\c"`,
		"x\ny":        `"x\ny"`,
		"${var.x}":    `"$${var.x}"`,
		"%{ if x }":   `"%%{ if x }"`,
		"$ and % are": `"$ and % are"`,
	} {
		if got := hclString(in); got != want {
			t.Errorf("hclString(%q) = %s, want %s", in, got, want)
		}
	}
}
