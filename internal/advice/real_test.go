package advice

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"sigs.k8s.io/yaml"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// realConfigurations are the webhook configurations of testdata/real, by file name, defaulted,
// both kinds in the mutating type.
func realConfigurations(t *testing.T) map[string]*admissionregistrationv1.MutatingWebhookConfiguration {
	t.Helper()
	files, err := filepath.Glob("testdata/real/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("testdata/real: %v", err)
	}
	out := map[string]*admissionregistrationv1.MutatingWebhookConfiguration{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		js, err := yaml.YAMLToJSON(data)
		if err != nil {
			t.Fatal(err)
		}
		obj := &admissionregistrationv1.MutatingWebhookConfiguration{}
		if err := json.Unmarshal(js, obj); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[filepath.Base(f)] = validation.Default(obj)
	}
	return out
}
