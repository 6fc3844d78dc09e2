package adoption_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	sdkacctest "github.com/hashicorp/terraform-plugin-testing/helper/acctest"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
)

// TestAccImport makes an object of each of the six kinds from real manifests
// the way each tool does, and imports them with import blocks and a
// configuration equal to the manifests: the plan imports them and changes
// nothing, the apply writes nothing (the resource versions stay) and leaves
// every other tool's keys on the server, and the next plan is empty. Then
// drift in a label Terraform manages shows and is repaired, and a key of
// another tool written into the configuration with the value the object has
// plans an update that writes nothing (the object's resource version stays),
// with nothing else changing.
func TestAccImport(t *testing.T) {
	for _, tl := range tools {
		t.Run(tl.name, func(t *testing.T) {
			t.Parallel()
			m := makeAll(t, tl, "adopt-"+tl.name+"-"+strings.ToLower(sdkacctest.RandString(5)))
			dyn, err := dynamic.NewForConfig(acctest.Cluster(t).RESTConfig())
			if err != nil {
				t.Fatal(err)
			}

			var importChecks []plancheck.PlanCheck
			for _, o := range m.objects {
				importChecks = append(importChecks, plancheck.ExpectResourceAction(o.address, plancheck.ResourceActionNoop))
			}
			importChecks = append(importChecks, onlyImports(len(m.objects)))

			// Drift: someone edits a label of the manifest that Terraform
			// now manages, on every object.
			var driftChecks []plancheck.PlanCheck
			var repaired []resource.TestCheckFunc
			for _, o := range m.objects {
				driftChecks = append(driftChecks, plancheck.ExpectResourceAction(o.address, plancheck.ResourceActionUpdate))
				repaired = append(repaired, labelIs(t, dyn, o, driftKey(o), o.ownLabels[driftKey(o)]))
			}
			repaired = append(repaired, othersKept(t, dyn, m))
			// Take over: the configuration of the validating policy names a
			// key of another tool, with the value it has.
			takeover := m.objects[2]
			takeoverConfig := m.config(t, false, func(o object, labels, annotations map[string]string) {
				if o.address == takeover.address {
					maps.Copy(labels, o.othersLabels)
					maps.Copy(annotations, o.othersAnnotations)
				}
			})
			takesOver := len(takeover.othersLabels)+len(takeover.othersAnnotations) > 0

			steps := []resource.TestStep{
				{
					Config: m.config(t, true, nil),
					ConfigPlanChecks: resource.ConfigPlanChecks{
						PreApply:             importChecks,
						PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
					},
					Check: resource.ComposeTestCheckFunc(unchanged(t, dyn, m), othersKept(t, dyn, m)),
				},
				{
					Config:   m.config(t, false, nil),
					PlanOnly: true,
				},
				{
					PreConfig: func() {
						for _, o := range m.objects {
							patch(t, dyn.Resource(o.kind.gvr()), o.name, "kubectl-edit",
								map[string]any{"metadata": map[string]any{"labels": map[string]any{driftKey(o): "edited"}}})
						}
					},
					Config: m.config(t, false, nil),
					ConfigPlanChecks: resource.ConfigPlanChecks{
						PreApply:             driftChecks,
						PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
					},
					Check: resource.ComposeTestCheckFunc(repaired...),
				},
			}
			if takesOver {
				var before string
				steps = append(steps, resource.TestStep{
					PreConfig: func() {
						cur, err := get(t, dyn, takeover)
						if err != nil {
							t.Fatal(err)
						}
						before = cur.GetResourceVersion()
					},
					Config: takeoverConfig,
					ConfigPlanChecks: resource.ConfigPlanChecks{
						PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(takeover.address, plancheck.ResourceActionUpdate)},
						PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
					},
					Check: resource.ComposeTestCheckFunc(othersKept(t, dyn, m), func(*terraform.State) error {
						cur, err := get(t, dyn, takeover)
						if err == nil && cur.GetResourceVersion() != before {
							err = fmt.Errorf("%s was written: resource version %s, then %s", takeover.name, before, cur.GetResourceVersion())
						}
						return err
					}),
				})
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				Steps:                    steps,
				CheckDestroy:             gone(t, dyn, m),
			})
		})
	}
}

// onlyImports checks that the plan imports n resources and that nothing
// in it adds, changes or deletes anything: "n to import, 0 to add, 0 to
// change, 0 to destroy".
func onlyImports(n int) plancheck.PlanCheck { return onlyImportsCheck(n) }

type onlyImportsCheck int

func (c onlyImportsCheck) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	imports := 0
	var others []string
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Change.Importing != nil {
			imports++
		}
		if !rc.Change.Actions.NoOp() {
			others = append(others, fmt.Sprintf("%s: %v", rc.Address, rc.Change.Actions))
		}
	}
	if imports != int(c) || len(others) > 0 {
		resp.Error = fmt.Errorf("the plan imports %d resources (want %d) and also plans %v", imports, int(c), others)
	}
}

func get(t *testing.T, dyn dynamic.Interface, o object) (*unstructured.Unstructured, error) {
	t.Helper()
	return dyn.Resource(o.kind.gvr()).Get(context.Background(), o.name, metav1.GetOptions{})
}

// unchanged checks that importing wrote nothing: every object has the
// resource version the tool left.
func unchanged(t *testing.T, dyn dynamic.Interface, m made) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, o := range m.objects {
			cur, err := get(t, dyn, o)
			if err != nil {
				return err
			}
			if cur.GetResourceVersion() != o.resourceVersion {
				return fmt.Errorf("%s was written by the import: resource version %s, then %s; managed fields %v",
					o.name, o.resourceVersion, cur.GetResourceVersion(), managers(cur))
			}
		}
		return nil
	}
}

// othersKept checks that every key of the other tools is on the server
// still, with the value the tool gave it.
func othersKept(t *testing.T, dyn dynamic.Interface, m made) resource.TestCheckFunc {
	return func(*terraform.State) error {
		var missing []string
		for _, o := range m.objects {
			cur, err := get(t, dyn, o)
			if err != nil {
				return err
			}
			labels, annotations := cur.GetLabels(), cur.GetAnnotations()
			for k, v := range o.othersLabels {
				if labels[k] != v {
					missing = append(missing, fmt.Sprintf("%s: label %s=%q, was %q", o.name, k, labels[k], v))
				}
			}
			for k, v := range o.othersAnnotations {
				if annotations[k] != v {
					missing = append(missing, fmt.Sprintf("%s: annotation %s=%q, was %q", o.name, k, annotations[k], v))
				}
			}
		}
		if len(missing) > 0 {
			slices.Sort(missing)
			return fmt.Errorf("keys of other tools changed:\n  %s", strings.Join(missing, "\n  "))
		}
		return nil
	}
}

// driftKey is the label of o's manifest that the drift step edits.
func driftKey(o object) string {
	keys := slices.Sorted(maps.Keys(o.ownLabels))
	return keys[0]
}

func labelIs(t *testing.T, dyn dynamic.Interface, o object, key, want string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		cur, err := get(t, dyn, o)
		if err != nil {
			return err
		}
		if got := cur.GetLabels()[key]; got != want {
			return fmt.Errorf("%s: label %s=%q, want %q (drift not repaired)", o.name, key, got, want)
		}
		return nil
	}
}

func gone(t *testing.T, dyn dynamic.Interface, m made) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, o := range m.objects {
			if _, err := get(t, dyn, o); !apierrors.IsNotFound(err) {
				return fmt.Errorf("%s still exists after destroy (%v)", o.name, err)
			}
		}
		return nil
	}
}

func managers(u *unstructured.Unstructured) []string {
	var out []string
	for _, e := range u.GetManagedFields() {
		out = append(out, e.Manager+"/"+string(e.Operation))
	}
	return out
}
