package adoption_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	sdkacctest "github.com/hashicorp/terraform-plugin-testing/helper/acctest"
	"k8s.io/client-go/dynamic"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/provider"
)

// queryLabel marks the objects of one run of TestAccQueryGenerateConfig.
const queryLabel = "example.com/adoption-query"

// bookkeeping are keys of other tools that a generated configuration must
// not hold: a person would not keep them.
var bookkeeping = []string{
	lastAppliedKey, "meta.helm.sh/release-name", "meta.helm.sh/release-namespace", "app.kubernetes.io/managed-by",
	"argocd.argoproj.io/tracking-id", "kustomize.toolkit.fluxcd.io/name", "kustomize.toolkit.fluxcd.io/namespace", controllerKey,
	`"app.kubernetes.io/instance" = "` + argoApp + `"`,
}

// TestAccQueryGenerateConfig finds, for each of the six kinds, the objects
// that every tool made with `terraform query`, writes their configuration
// with -generate-config-out, and applies it: it imports them and changes
// nothing, and the next plan is empty. The generated configuration holds the
// manifests' own labels and annotations, and none of the other tools'.
// Every kind must have a list resource.
func TestAccQueryGenerateConfig(t *testing.T) {
	acctest.TerraformCLI(t) // skips, saying why, with a CLI that has no `terraform query`
	listed := map[string]bool{}
	lister, ok := provider.New("test")().(interface {
		ListResources(context.Context) []func() list.ListResource
	})
	if !ok {
		t.Fatal("the provider has no list resources")
	}
	for _, newList := range lister.ListResources(context.Background()) {
		var resp resource.MetadataResponse
		newList().Metadata(context.Background(), resource.MetadataRequest{ProviderTypeName: "admission"}, &resp)
		listed[resp.TypeName] = true
	}

	value := strings.ToLower(sdkacctest.RandString(10))
	var all []made
	for _, tl := range tools {
		all = append(all, makeAllWith(t, tl, "query-"+tl.name+"-"+value[:4], map[string]string{queryLabel: value}))
	}

	for i, k := range kinds {
		t.Run(k.resourceType, func(t *testing.T) {
			if !listed[k.resourceType] {
				t.Fatalf("%s has no list resource: every kind must have one", k.resourceType)
			}
			tf := newModule(t)
			tf.write("main.tf", acctest.ProviderBlock(t))
			tf.write("find.tfquery.hcl", fmt.Sprintf(`list %q "found" {
  provider = admission
  config {
    label_selector = %q
  }
}
`, k.resourceType, queryLabel+"="+value))
			out := tf.mustRun("query", "-generate-config-out=generated.tf")
			raw, err := os.ReadFile(filepath.Join(tf.dir, "generated.tf"))
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			gen := string(raw)
			for _, m := range all {
				o := m.objects[i]
				if !strings.Contains(gen, fmt.Sprintf("%q", o.name)) {
					t.Errorf("generated.tf does not import %s (made by %s)", o.name, m.tool.name)
				}
			}
			for _, key := range bookkeeping {
				if strings.Contains(gen, key) {
					t.Errorf("generated.tf keeps another tool's %s", key)
				}
			}
			// The manifests' own keys are kept.
			own := all[0].objects[i]
			for key := range own.ownLabels {
				if !regexp.MustCompile(`(?m)^\s*("` + regexp.QuoteMeta(key) + `"|` + regexp.QuoteMeta(key) + `)\s*=`).MatchString(gen) {
					t.Errorf("generated.tf lacks the label %s of the manifest", key)
				}
			}
			for key := range own.ownAnnotations {
				if !strings.Contains(gen, fmt.Sprintf("%q", key)) {
					t.Errorf("generated.tf lacks the annotation %s of the manifest", key)
				}
			}
			if t.Failed() {
				t.Fatalf("generated.tf:\n%s", gen)
			}

			n := len(all)
			planned := tf.plan(fmt.Sprintf("Plan: %d to import, 0 to add, 0 to change, 0 to destroy.", n))
			out = tf.mustRun("apply", "-auto-approve", "-input=false")
			if !strings.Contains(out, fmt.Sprintf("Resources: %d imported, 0 added, 0 changed, 0 destroyed.", n)) {
				t.Fatalf("the apply of the generated configuration:\n%s", out)
			}
			if ws := newWarnings(planned, out); len(ws) > 0 {
				t.Errorf("the apply of the import warns %q", ws)
			}
			tf.plan("")
			dyn, err := dynamic.NewForConfig(acctest.Cluster(t).RESTConfig())
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range all {
				o := m.objects[i]
				cur, err := get(t, dyn, o)
				if err != nil {
					t.Fatal(err)
				}
				if cur.GetResourceVersion() != o.resourceVersion {
					t.Errorf("%s was written by the import (made by %s)", o.name, m.tool.name)
				}
				if err := othersKept(t, dyn, made{objects: []object{o}})(nil); err != nil {
					t.Error(err)
				}
			}
		})
	}
}
